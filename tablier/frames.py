"""Frame sources: where the pictures of the board come from.

A :class:`FrameSource` yields :class:`Frame` objects, each an HxWx3 uint8 **RGB** image with its
index and its time in seconds. Three kinds exist, as pin factories do for gpiozero:

- :class:`FileSource`: a folder of recorded pictures (``*.jpg``/``*.png`` in name order) or a
  video file, played at its recorded pace or as fast as possible, from any frame on (a replay
  resumed after a crash starts where the journal stopped);
- :class:`CameraSource`: a USB webcam through ``cv2.VideoCapture``; reopened when it comes back
  after being unplugged;
- :class:`PiCameraSource`: the Raspberry Pi camera through picamera2, imported only when the
  source is opened; exposure and white balance are locked after calibration
  (:meth:`PiCameraSource.lock`), so the colours the calibration learned stay true.

A frame that cannot be read is not an exception: it comes as a :class:`Frame` with no image and
a ``problem`` saying why, and the session goes on.

>>> open_source("file:no/such/folder")
Traceback (most recent call last):
...
tablier.frames.FrameSourceError: no recorded frames at no/such/folder
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from typing_extensions import Self

Image = npt.NDArray[np.uint8]
"""An HxWx3 uint8 RGB picture."""

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".mjpeg", ".h264")


def _rgb(bgr: Any) -> Image:
    import cv2

    return cast(Image, cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))


class FrameSourceError(OSError):
    """A frame source cannot be opened (no camera, no recording, picamera2 missing)."""


@dataclass(frozen=True)
class Frame:
    """One picture of the board."""

    index: int
    """Position in the source, from 0."""
    t: float
    """Time in seconds from the start of the source (recorded time for a recording)."""
    image: Image | None = field(default=None, repr=False)
    """The picture, HxWx3 uint8 RGB; None when it could not be read."""
    name: str = ""
    """Where it came from (file name, camera name)."""
    problem: str | None = None
    """Why the picture could not be read, or None."""


class FrameSource(Protocol):
    """Anything that yields frames of the board."""

    def frames(self, *, start: int = 0) -> Iterator[Frame]:
        """Yield frames from index ``start`` on, until the source ends."""

    def close(self) -> None:
        """Release the device or files; later calls do nothing."""


class _Closing:
    closed = False

    def close(self) -> None:
        """Release the source; closing twice does nothing.

        Raises:
            Nothing.
        """
        self.closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FileSource(_Closing):
    """Recorded frames: a folder of pictures or one video file.

    A folder may hold a ``frames.json`` with ``{"fps": 10}`` or ``{"times": [0.0, 0.1, ...]}``
    giving the recorded times; otherwise ``fps`` is used.

    Args:
        path: the folder or video.
        pace: ``"recorded"`` waits so that frames come at their recorded times; ``"fast"``
            yields them as fast as they can be read.
        fps: frames per second when the recording does not say.
        clock: the clock and sleep used for pacing (for tests).
        files: the pictures in order, when not every picture of the folder is a frame.

    Raises:
        FrameSourceError: if the path holds no frames or the video cannot be opened.
        ValueError: if ``pace`` or ``fps`` is bad.
    """

    def __init__(self, path: str | Path, *, pace: str = "fast", fps: float = 10.0,
                 clock: tuple[Callable[[], float], Callable[[float], None]] | None = None,
                 files: Sequence[str | Path] = ()) -> None:
        if pace not in ("recorded", "fast"):
            raise ValueError(f"pace must be 'recorded' or 'fast', not {pace!r}")
        if not fps > 0:
            raise ValueError(f"fps must be positive, not {fps!r}")
        self.path = Path(path)
        self.pace = pace
        self._now, self._sleep = clock or (time.monotonic, time.sleep)
        self._files: list[Path] = []
        self._times: list[float] = []
        if files:
            self._files = [self.path / f for f in files]
            self._times = self._read_times(fps)
        elif self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir()
                                 if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise FrameSourceError(f"no recorded frames (*.jpg, *.png) in {self.path}")
            self._times = self._read_times(fps)
        elif self.path.is_file() and self.path.suffix.lower() in VIDEO_SUFFIXES:
            self._video_fps = fps
        else:
            raise FrameSourceError(f"no recorded frames at {self.path}")

    def _read_times(self, fps: float) -> list[float]:
        manifest = self.path / "frames.json"
        n = len(self._files)
        if manifest.is_file():
            try:
                data = json.loads(manifest.read_text())
                if "times" in data and len(data["times"]) == n:
                    return [float(t) for t in data["times"]]
                if "fps" in data:
                    fps = float(data["fps"])
            except (ValueError, TypeError, AttributeError) as exc:
                raise FrameSourceError(f"{manifest}: not a frame manifest ({exc})") from None
        return [i / fps for i in range(n)]

    def __len__(self) -> int:
        return len(self._files)

    def frames(self, *, start: int = 0) -> Iterator[Frame]:
        """Yield the recorded frames from ``start`` on.

        Args:
            start: the first frame's index.

        Yields:
            Frames; an unreadable picture comes with ``problem`` set.

        Raises:
            FrameSourceError: if a video cannot be opened.
        """
        if self._files:
            yield from self._paced(self._folder(start))
        else:
            yield from self._paced(self._video(start))

    def _folder(self, start: int) -> Iterator[Frame]:
        from tablier.vision.errors import BadFrameError
        from tablier.vision.imageio import decode_image

        for i in range(start, len(self._files)):
            if self.closed:
                return
            p = self._files[i]
            try:
                image = decode_image(p.read_bytes(), name="it")
            except OSError as exc:
                yield Frame(i, self._times[i], None, p.name, f"cannot read {p.name}: "
                            f"{exc.strerror}")
                continue
            except BadFrameError as exc:
                # NOTE: a truncated or damaged picture is refused, not read half grey
                yield Frame(i, self._times[i], None, p.name, f"cannot decode {p.name}: {exc}")
                continue
            yield Frame(i, self._times[i], image, p.name)

    def _video(self, start: int) -> Iterator[Frame]:
        import cv2

        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            raise FrameSourceError(f"cannot open the video {self.path}")
        fps = cap.get(cv2.CAP_PROP_FPS) or self._video_fps
        try:
            i = 0
            while not self.closed:
                ok, bgr = cap.read()
                if not ok:
                    return
                if i >= start:
                    yield Frame(i, i / fps, _rgb(bgr),
                                f"{self.path.name}#{i}")
                i += 1
        finally:
            cap.release()

    def _paced(self, frames: Iterator[Frame]) -> Iterator[Frame]:
        if self.pace == "fast":
            yield from frames
            return
        origin: tuple[float, float] | None = None
        for frame in frames:
            if origin is None:
                origin = (self._now(), frame.t)
            else:
                wait = origin[0] + (frame.t - origin[1]) - self._now()
                if wait > 0:
                    self._sleep(wait)
            yield frame


class CameraSource(_Closing):
    """A USB webcam through ``cv2.VideoCapture``.

    Args:
        device: the camera index (0 for the first) or a device path such as ``/dev/video0``.
        size: the wanted (width, height); the camera may give another.
        retry: seconds between attempts to reopen a camera that stopped answering.

    Raises:
        FrameSourceError: if no camera answers at ``device``.
    """

    def __init__(self, device: int | str = 0, *, size: tuple[int, int] | None = None,
                 retry: float = 1.0) -> None:
        self.device = device
        self.size = size
        self.retry = retry
        self._cap: Any = self._open()
        if self._cap is None:
            raise FrameSourceError(f"no camera at {device!r} (is it plugged in?)")

    def _open(self) -> Any:
        import cv2

        # NOTE: OpenCV logs its own warnings when a device is missing; the caller reports it in
        # one line, so they are silenced while opening.
        quiet = getattr(getattr(cv2, "utils", None), "logging", None)
        level = quiet.getLogLevel() if quiet is not None else None
        if quiet is not None:
            quiet.setLogLevel(quiet.LOG_LEVEL_SILENT)
        try:
            cap = cv2.VideoCapture(self.device)
        finally:
            if quiet is not None:
                quiet.setLogLevel(level)
        if not cap.isOpened():
            cap.release()
            return None
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        return cap

    def frames(self, *, start: int = 0) -> Iterator[Frame]:
        """Yield live frames, numbered from ``start``, until the source is closed.

        Args:
            start: the first frame's index (a resumed session continues its numbering).

        Yields:
            Frames; while the camera is gone, one frame with ``problem`` set, then retries.

        Raises:
            Nothing.
        """

        t0 = time.monotonic()
        i = start
        lost = False
        while not self.closed:
            ok, bgr = (False, None) if self._cap is None else self._cap.read()
            if not ok:
                if not lost:
                    lost = True
                    yield Frame(i, time.monotonic() - t0, None, str(self.device),
                                f"camera {self.device!r} stopped answering: reconnecting")
                    i += 1
                if self._cap is not None:
                    self._cap.release()
                time.sleep(self.retry)
                self._cap = self._open()
                continue
            lost = False
            yield Frame(i, time.monotonic() - t0, _rgb(bgr),
                        str(self.device))
            i += 1

    def close(self) -> None:
        """Release the camera; closing twice does nothing.

        Raises:
            Nothing.
        """
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        super().close()


@dataclass(frozen=True)
class CameraLock:
    """Exposure and white balance to hold fixed (read after calibration)."""

    exposure_time: int
    """Microseconds."""
    analogue_gain: float
    """Sensor gain."""
    colour_gains: tuple[float, float]
    """Red and blue gains."""

    def to_json(self) -> dict[str, Any]:
        """Saved beside the calibration.

        Returns:
            The three values.

        Raises:
            Nothing.
        """
        return {"exposure_time": self.exposure_time, "analogue_gain": self.analogue_gain,
                "colour_gains": list(self.colour_gains)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CameraLock:
        """Read the lock back.

        Args:
            data: as written by :meth:`to_json`.

        Returns:
            The lock.

        Raises:
            ValueError: if a value is missing or not a number.
        """
        try:
            r, b = data["colour_gains"]
            return cls(int(data["exposure_time"]), float(data["analogue_gain"]),
                       (float(r), float(b)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"camera lock: {data!r}: {exc}") from None


class PiCameraSource(_Closing):
    """The Raspberry Pi camera through picamera2 (apt ``python3-picamera2``).

    Args:
        size: the frame size, pixels.
        lock: exposure and white balance to hold from the start (from the calibration); None
            lets the camera adjust until :meth:`lock` is called.

    Raises:
        FrameSourceError: if picamera2 is not installed or no camera is connected.
    """

    def __init__(self, *, size: tuple[int, int] = (1640, 1232),
                 lock: CameraLock | None = None) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise FrameSourceError(
                "picamera2 is not installed: on the Pi, 'sudo apt install python3-picamera2' "
                "and make the venv with --system-site-packages") from None
        try:
            self._cam: Any = Picamera2()
            # NOTE: picamera2's "RGB888" format is stored B, G, R in memory (libcamera names
            # formats by their little-endian words), so frames are converted as BGR below.
            config = self._cam.create_video_configuration(
                main={"size": size, "format": "RGB888"})
            self._cam.configure(config)
            self._cam.start()
        except (RuntimeError, IndexError, OSError) as exc:
            raise FrameSourceError(f"no Raspberry Pi camera answers: {exc}") from None
        if lock is not None:
            self.apply_lock(lock)

    def lock(self) -> CameraLock:
        """Freeze exposure and white balance where the automatic loops have settled.

        Returns:
            The values now held (save them with the calibration).

        Raises:
            FrameSourceError: if the camera gives no such metadata.
        """
        meta = self._cam.capture_metadata()
        try:
            held = CameraLock(int(meta["ExposureTime"]), float(meta["AnalogueGain"]),
                              (float(meta["ColourGains"][0]), float(meta["ColourGains"][1])))
        except (KeyError, TypeError, IndexError) as exc:
            raise FrameSourceError(f"camera metadata lacks exposure or gains: {exc}") from None
        self.apply_lock(held)
        return held

    def apply_lock(self, lock: CameraLock) -> None:
        """Hold the given exposure and white balance (automatic loops off).

        Args:
            lock: the values.

        Raises:
            Nothing.
        """
        self._cam.set_controls({"AeEnable": False, "AwbEnable": False,
                                "ExposureTime": lock.exposure_time,
                                "AnalogueGain": lock.analogue_gain,
                                "ColourGains": lock.colour_gains})

    def frames(self, *, start: int = 0) -> Iterator[Frame]:
        """Yield live frames, numbered from ``start``.

        Args:
            start: the first frame's index.

        Yields:
            Frames (HxWx3 RGB).

        Raises:
            Nothing: a failed capture yields a frame with ``problem`` set.
        """

        t0 = time.monotonic()
        i = start
        while not self.closed:
            try:
                bgr = self._cam.capture_array("main")
            except RuntimeError as exc:
                yield Frame(i, time.monotonic() - t0, None, "picamera", f"capture failed: {exc}")
            else:
                yield Frame(i, time.monotonic() - t0, _rgb(bgr),
                            "picamera")
            i += 1

    def close(self) -> None:
        """Stop and release the camera; closing twice does nothing.

        Raises:
            Nothing.
        """
        if not self.closed:
            try:
                self._cam.stop()
                self._cam.close()
            except RuntimeError:
                pass
        super().close()


def open_source(spec: str, *, pace: str = "fast", fps: float = 10.0) -> FileSource | \
        CameraSource | PiCameraSource:
    """Open a frame source by name.

    ``file:PATH`` (or a bare path) is a recording; ``cam:0`` or ``cam:/dev/video0`` a USB
    webcam, at its own frame size or at the one asked by ``@WIDTHxHEIGHT`` (``cam:0@1280x960``:
    the camera may give another); ``picamera`` the Pi camera.

    Args:
        spec: the source's name.
        pace: for recordings, ``"recorded"`` or ``"fast"``.
        fps: for recordings that do not say.

    Returns:
        The open source.

    Raises:
        FrameSourceError: if it cannot be opened.
        ValueError: if the spec or pace is malformed.
    """
    if spec == "picamera":
        return PiCameraSource()
    if spec.startswith("cam:"):
        dev, size = _camera_spec(spec)
        return CameraSource(dev, size=size)
    return FileSource(spec.removeprefix("file:"), pace=pace, fps=fps)


def _camera_spec(spec: str) -> tuple[int | str, tuple[int, int] | None]:
    """The device and the frame size asked of a ``cam:DEVICE[@WIDTHxHEIGHT]`` source.

    >>> _camera_spec("cam:1@1280x960")
    (1, (1280, 960))
    >>> _camera_spec("cam:/dev/video0")
    ('/dev/video0', None)
    """
    dev, at, size = spec.removeprefix("cam:").partition("@")
    dev = dev or "0"
    device: int | str = int(dev) if dev.isdigit() else dev
    if not at:
        return device, None
    width, x, height = size.partition("x")
    if not (x and width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0):
        raise ValueError(f"camera {spec!r}: expected cam:DEVICE@WIDTHxHEIGHT, "
                         "such as cam:0@1280x960")
    return device, (int(width), int(height))


__all__ = ["CameraLock", "CameraSource", "FileSource", "Frame", "FrameSource",
           "FrameSourceError", "Image", "PiCameraSource", "open_source"]
