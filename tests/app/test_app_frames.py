"""Frame sources: recorded folders and videos at recorded pace or fast; missing devices."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from tablier.frames import (
    CameraLock,
    CameraSource,
    FileSource,
    FrameSourceError,
    PiCameraSource,
    open_source,
)


def _folder(tmp_path: Path, n: int = 5) -> Path:
    d = tmp_path / "frames"
    d.mkdir()
    for i in range(n):
        img = np.zeros((24, 32, 3), np.uint8)
        img[:, :, 2] = 40 * i  # the red channel, in OpenCV's BGR order
        cv2.imwrite(str(d / f"{i:04d}.png"), img)
    return d


def test_folder_in_order_and_rgb(tmp_path: Path) -> None:
    d = _folder(tmp_path)
    with FileSource(d) as src:
        frames = list(src.frames())
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert frames[3].image is not None and frames[3].image.shape == (24, 32, 3)
    # written as BGR with the red channel at 120: read back as RGB, red is channel 0
    assert frames[3].image[0, 0, 0] == 120 and frames[3].image[0, 0, 2] == 0
    assert [f.t for f in frames] == pytest.approx([0, 0.1, 0.2, 0.3, 0.4])


def test_start_and_manifest_times(tmp_path: Path) -> None:
    d = _folder(tmp_path)
    (d / "frames.json").write_text(json.dumps({"times": [0, 1, 2, 5, 9]}))
    frames = list(FileSource(d).frames(start=3))
    assert [(f.index, f.t) for f in frames] == [(3, 5.0), (4, 9.0)]


def test_recorded_pace_sleeps_between_frames(tmp_path: Path) -> None:
    d = _folder(tmp_path)
    now = [100.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    src = FileSource(d, pace="recorded", fps=4, clock=(lambda: now[0], sleep))
    list(src.frames())
    assert slept == pytest.approx([0.25] * 4)
    assert list(FileSource(d, pace="fast").frames())[-1].index == 4


def test_unreadable_frame_is_reported_not_raised(tmp_path: Path) -> None:
    d = _folder(tmp_path, 3)
    (d / "0001.png").write_bytes(b"not a png")
    frames = list(FileSource(d).frames())
    assert frames[1].image is None and "cannot decode 0001.png" in (frames[1].problem or "")
    assert frames[2].image is not None


def test_damaged_frame_is_reported_not_read_half_grey(tmp_path: Path) -> None:
    d = tmp_path / "frames"
    d.mkdir()
    img = np.random.default_rng(1).integers(0, 255, (60, 80, 3), dtype=np.uint8)
    for i in range(2):
        cv2.imwrite(str(d / f"{i:04d}.jpg"), img)
    data = (d / "0000.jpg").read_bytes()
    (d / "0000.jpg").write_bytes(data[:700] + b"\x55" * 300 + data[1000:])
    frames = list(FileSource(d).frames())
    assert frames[0].image is None and "0000.jpg" in (frames[0].problem or "")
    assert "damaged JPEG" in (frames[0].problem or "")
    assert frames[1].image is not None


def test_video(tmp_path: Path) -> None:
    path = tmp_path / "v.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (32, 24))
    for i in range(6):
        out.write(np.full((24, 32, 3), 30 * i, np.uint8))
    out.release()
    frames = list(FileSource(path).frames(start=2))
    assert [f.index for f in frames] == [2, 3, 4, 5]
    assert frames[0].t == pytest.approx(0.4)


def test_missing_things_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FrameSourceError, match="no recorded frames"):
        FileSource(tmp_path)
    with pytest.raises(ValueError, match="pace"):
        FileSource(_folder(tmp_path), pace="slow")
    with pytest.raises(FrameSourceError, match="no camera"):
        CameraSource("/dev/no-such-video")
    with pytest.raises(FrameSourceError, match="picamera2"):
        PiCameraSource()
    with pytest.raises(FrameSourceError, match="no recorded frames"):
        open_source(str(tmp_path / "nothing"))


def test_camera_lock_round_trip() -> None:
    lock = CameraLock(33000, 2.0, (1.5, 1.7))
    assert CameraLock.from_json(json.loads(json.dumps(lock.to_json()))) == lock
    with pytest.raises(ValueError, match="camera lock"):
        CameraLock.from_json({"exposure_time": 1})


class _FakeCapture:
    """Stands in for cv2.VideoCapture: answers, goes silent (unplugged), answers again."""

    script: ClassVar[list[bool]] = []
    opened = 0

    def __init__(self, device: object) -> None:
        type(self).opened += 1

    def isOpened(self) -> bool:
        return True

    def set(self, *args: object) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        ok = self.script.pop(0) if self.script else False
        return ok, (np.full((4, 6, 3), (10, 20, 30), np.uint8) if ok else None)

    def release(self) -> None:
        pass


def test_webcam_unplugged_then_back(monkeypatch: pytest.MonkeyPatch) -> None:
    _FakeCapture.script = [True, False, False, True, True]
    _FakeCapture.opened = 0
    monkeypatch.setattr(cv2, "VideoCapture", _FakeCapture)
    cam = CameraSource(0, retry=0.0)
    frames = []
    for f in cam.frames(start=7):
        frames.append(f)
        if len(frames) == 4:
            break
    cam.close()
    assert [f.index for f in frames] == [7, 8, 9, 10]
    assert frames[0].image is not None and frames[0].image[0, 0].tolist() == [30, 20, 10]
    assert frames[1].image is None and "reconnecting" in (frames[1].problem or "")
    assert frames[2].image is not None and frames[3].image is not None
    assert _FakeCapture.opened >= 3  # reopened after it went silent


def test_a_webcam_is_asked_the_frame_size_its_spec_names(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """``cam:DEVICE@WxH`` asks the webcam for that frame size (a webcam's own is often too
    small for the dice: ``small_dice_warnings``); a malformed size is one clear error."""
    asked: list[tuple[object, ...]] = []

    class _Sized(_FakeCapture):
        def __init__(self, device: object) -> None:
            super().__init__(device)
            asked.append(("open", device))

        def set(self, *args: object) -> bool:
            asked.append(args)
            return True

    monkeypatch.setattr(cv2, "VideoCapture", _Sized)
    cam = open_source("cam:2@1280x960")
    assert isinstance(cam, CameraSource) and cam.size == (1280, 960)
    cam.close()
    assert asked == [("open", 2), (cv2.CAP_PROP_FRAME_WIDTH, 1280),
                     (cv2.CAP_PROP_FRAME_HEIGHT, 960)]
    asked.clear()
    open_source("cam:/dev/video1").close()
    assert asked == [("open", "/dev/video1")]  # its own size: nothing asked
    for bad in ("cam:0@1280", "cam:0@1280x", "cam:0@wide", "cam:0@0x960"):
        with pytest.raises(ValueError, match="expected cam:DEVICE@WIDTHxHEIGHT"):
            open_source(bad)


def test_picamera_lock_with_a_stand_in_module(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    controls: list[dict[str, object]] = []

    class Picamera2:
        def create_video_configuration(self, main: dict[str, object]) -> dict[str, object]:
            return {"main": main}

        def configure(self, config: object) -> None:
            pass

        def start(self) -> None:
            pass

        def capture_metadata(self) -> dict[str, object]:
            return {"ExposureTime": 20000, "AnalogueGain": 2.5, "ColourGains": (1.4, 1.9)}

        def set_controls(self, c: dict[str, object]) -> None:
            controls.append(c)

        def capture_array(self, name: str) -> np.ndarray:
            return np.full((4, 6, 3), (1, 2, 3), np.uint8)

        def stop(self) -> None:
            pass

        def close(self) -> None:
            pass

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=Picamera2))
    cam = PiCameraSource(size=(6, 4))
    lock = cam.lock()
    assert lock == CameraLock(20000, 2.5, (1.4, 1.9))
    assert controls[-1]["AeEnable"] is False and controls[-1]["AwbEnable"] is False
    frame = next(iter(cam.frames()))
    assert frame.image is not None and frame.image[0, 0].tolist() == [3, 2, 1]
    cam.close()
    cam.close()
    again = PiCameraSource(lock=lock)
    assert controls[-1]["ExposureTime"] == 20000
    again.close()
