"""The calibration file: board geometry, where the board was, lens, colours and thresholds.

A calibration is a versioned JSON document written by ``tablier calibrate`` and checked by
:meth:`Calibration.load`; nothing tuned lives in code, it lives here (the defaults of
:class:`Thresholds` are what the TUNING fixtures chose and are copied into every file).

>>> cal = Calibration.example()
>>> Calibration.from_json(cal.to_json()) == cal
True
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tablier.calibration.geometry import BoardGeometry

from tablier.files import write_durably

FORMAT = "tablier-calibration"
"""The ``format`` field of every calibration file."""
VERSION = 1
"""The current version; files of another version are refused (re-run ``tablier calibrate``)."""

RGB = tuple[float, float, float]


class CalibrationError(ValueError):
    """A calibration file is missing, malformed, of another version or does not fit the frame."""


@dataclass(frozen=True)
class Lens:
    """Camera intrinsics from a ChArUco calibration (OpenCV's pinhole + radial model)."""

    matrix: tuple[tuple[float, ...], ...]
    """The 3x3 camera matrix."""
    dist: tuple[float, ...]
    """OpenCV's distortion coefficients (k1, k2, p1, p2, k3)."""
    rms: float = 0.0
    """Reprojection error of the calibration, pixels."""

    def arrays(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The matrix and the distortion as numpy arrays."""
        return np.array(self.matrix, np.float64), np.array(self.dist, np.float64)


@dataclass(frozen=True)
class ColourProfile:
    """Colours seen on the reference frame (RGB, 0..255), after the light was normalised."""

    rail: RGB
    """Median colour of the rails (the light reference of every frame)."""
    rail_samples: tuple[RGB, ...]
    """Colour of each rail probe of the layout."""
    slots: tuple[RGB, ...]
    """Colour of each empty dame slot (24 x slots, White's field order)."""
    rings: tuple[RGB, ...]
    """Colour of the ring around each empty dame slot."""
    white: RGB
    """A white dame."""
    black: RGB
    """A black dame."""
    white_ring: RGB
    """The ring of a white dame (its rim)."""
    black_ring: RGB
    """The ring of a black dame."""
    jeton: RGB
    """A jeton."""
    jeton_empty: tuple[RGB, ...]
    """Colour of each jeton place when empty."""
    hole: RGB
    """An empty rail hole."""
    peg: RGB
    """The head of a fichet."""
    pavillon: RGB
    """The pavillon's flag."""
    flag_empty: tuple[RGB, ...]
    """Colour beside each hole where the pavillon's flag would show."""
    surface: tuple[RGB, ...]
    """Colour of each surface probe on the empty reference board."""


@dataclass(frozen=True)
class Thresholds:
    """Decision thresholds (chosen on the TUNING fixtures)."""

    occupied_margin: float = 0.0
    """Bias added to the empty distance before a slot is called occupied."""
    min_visible_share: float = 0.3
    """Least share of a slot's disc that must be free of dice to be read."""
    die_radius_mm: float = 13.0
    """Radius around a die's centre whose pixels are ignored, mm."""
    rail_distance: float = 55.0
    """Colour distance from the reference above which a rail probe is anomalous."""
    rail_chroma: float = 0.06
    """Chromaticity distance (r, g, b shares) above which a rail probe is anomalous: a grey
    sleeve over a brown rail differs more in hue than in RGB."""
    rail_anomalies: int = 6
    """Size of a group of anomalous rail probes from which a frame is occluded."""
    surface_distance: float = 70.0
    """Colour distance from every known colour above which a surface probe is anomalous."""
    surface_anomalies: int = 7
    """Size of a cluster of anomalous surface probes from which a frame is occluded. 7 since
    the thirty-third round (6 before; a calibration keeps the value it was written with): on
    17,400 frames of 44 rendered tuning sets, no frame with nothing over the board had a
    group of 7-9 and six had one of 6 (dame rims and shadows); of the occluded frames that
    the rails missed, none had a group of 6 or 7 (1-5 or 8-41; docs/vision.md)."""
    motion: float = 6.0
    """Mean absolute grey difference to the previous frame above which the board moves."""
    peg_share: float = 0.3
    """A hole holds a fichet when it is this share of the way from an empty hole to a peg."""
    min_markers: int = 3
    """Markers needed to find the board on a frame (else the calibrated corners are used)."""


@dataclass(frozen=True)
class Calibration:
    """Everything the recogniser needs to read one camera's view of one board."""

    image_size: tuple[int, int]
    """Width and height of the frames this calibration is for, pixels."""
    quad: tuple[tuple[float, float], ...]
    """The board's outer corners (TL, TR, BR, BL) on the reference frame, pixels."""
    profile: ColourProfile
    """Colours of the board, dames, jetons and fichets."""
    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    """The board's dimensions."""
    scale: float = 0.8
    """Rectified pixels per millimetre."""
    lens: Lens | None = None
    """Lens intrinsics, or None for a lens whose distortion is negligible."""
    markers: bool = True
    """True when the board carries ArUco markers (found again on every frame)."""
    thresholds: Thresholds = field(default_factory=Thresholds)
    """Decision thresholds."""
    version: int = VERSION
    """File format version."""

    # JSON
    def to_json(self) -> dict[str, Any]:
        """The calibration as a JSON-ready dict (``format`` and ``version`` first).

        Returns:
            The document.

        Raises:
            Nothing.
        """
        doc = {
            "format": FORMAT, "version": self.version,
            "image_size": list(self.image_size),
            "quad": [list(p) for p in self.quad],
            "markers": self.markers,
            "scale": self.scale,
            "geometry": self.geometry.to_dict(),
            "lens": None if self.lens is None else asdict(self.lens),
            "thresholds": asdict(self.thresholds),
            "profile": asdict(self.profile),
        }
        # tuples become lists, exactly as a JSON file reads back
        data: dict[str, Any] = json.loads(json.dumps(doc))
        return data

    @classmethod
    def from_json(cls, data: Any) -> Calibration:
        """Check and build a calibration from :meth:`to_json`'s output.

        Args:
            data: the parsed JSON document.

        Returns:
            The calibration.

        Raises:
            CalibrationError: naming the first field that is missing or wrong.
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError(f"not a tablier calibration (format must be {FORMAT!r})")
        version = data.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
            raise CalibrationError(f"calibration version {version} was written by a newer "
                                   f"tablier (this one reads version {VERSION}): update tablier "
                                   "or run tablier calibrate")
        if version != VERSION:
            raise CalibrationError(f"calibration version {version!r} is stale "
                                   f"(this tablier reads version {VERSION}): run tablier calibrate")
        try:
            size = _numbers(data["image_size"], "image_size", 2)
            quad = [_numbers(p, "quad corner", 2) for p in _list(data["quad"], "quad", 4)]
            geometry = BoardGeometry.from_dict(_dict(data.get("geometry", {}), "geometry"))
            scale = float(_numbers([data.get("scale", 0.8)], "scale", 1)[0])
            lens = None
            if data.get("lens") is not None:
                ld = _dict(data["lens"], "lens")
                matrix = [_numbers(r, "lens.matrix row", 3) for r in _list(ld["matrix"],
                                                                             "lens.matrix", 3)]
                dist = _numbers(ld["dist"], "lens.dist", None)
                lens = Lens(matrix=tuple((r[0], r[1], r[2]) for r in matrix), dist=tuple(dist),
                            rms=float(ld.get("rms", 0.0)))
            thresholds = Thresholds(**{k: type(getattr(Thresholds(), k))(v) for k, v in
                                       _dict(data.get("thresholds", {}), "thresholds").items()
                                       if k in {f.name for f in fields(Thresholds)}})
            profile = _profile(_dict(data["profile"], "profile"))
        except KeyError as exc:
            raise CalibrationError(f"calibration lacks the field {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"calibration is malformed: {exc}") from None
        if size[0] < 16 or size[1] < 16:
            raise CalibrationError(f"calibration image_size {size!r} is too small")
        if not 0.3 <= scale <= 4.0:
            raise CalibrationError(f"calibration scale {scale!r} is out of range 0.3..4")
        return cls(image_size=(int(size[0]), int(size[1])),
                   quad=tuple((float(x), float(y)) for x, y in quad),
                   profile=profile, geometry=geometry, scale=scale, lens=lens,
                   markers=bool(data.get("markers", True)), thresholds=thresholds)

    def save(self, path: str | Path) -> None:
        """Write the calibration as JSON.

        Args:
            path: the file to write.

        Raises:
            OSError: naming the file, if it cannot be written (an old file there is kept).
        """
        write_durably(path, json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Read and check a calibration file.

        Args:
            path: the file.

        Returns:
            The calibration.

        Raises:
            CalibrationError: if the file is missing, not JSON, of another version, or wrong.
        """
        p = Path(path)
        try:
            text = p.read_text()
        except FileNotFoundError:
            raise CalibrationError(f"no calibration file at {str(p)!r}: run tablier calibrate"
                                   ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise CalibrationError(f"cannot read calibration {str(p)!r}: {exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"calibration {str(p)!r} is not valid JSON "
                                   f"(line {exc.lineno}): {exc.msg}") from None
        return cls.from_json(data)

    def check_frame(self, width: int, height: int) -> None:
        """Refuse a frame this calibration was not made for.

        Args:
            width: frame width, pixels.
            height: frame height, pixels.

        Raises:
            CalibrationError: if the size differs from ``image_size``.
        """
        if (width, height) != self.image_size:
            w, h = self.image_size
            raise CalibrationError(f"frame is {width}x{height} but the calibration is for "
                                   f"{w}x{h} frames: recalibrate or use that camera mode")

    @classmethod
    def example(cls) -> Calibration:
        """A small valid calibration (neutral colours) for examples and tests."""
        g = BoardGeometry()
        grey = (128.0, 128.0, 128.0)
        prof = ColourProfile(rail=grey, rail_samples=(grey,), slots=(grey,) * (24 * g.slots),
                             rings=(grey,) * (24 * g.slots),
                             white=(230.0, 230.0, 220.0), black=(30.0, 30.0, 30.0),
                             white_ring=(220.0, 220.0, 210.0), black_ring=(40.0, 40.0, 40.0),
                             jeton=(200.0, 160.0, 40.0), jeton_empty=(grey,) * 23,
                             hole=(20.0, 20.0, 20.0), peg=(230.0, 220.0, 180.0),
                             pavillon=(220.0, 30.0, 40.0), flag_empty=(grey,) * 27,
                             surface=(grey,))
        return cls(image_size=(640, 480),
                   quad=((20.0, 20.0), (620.0, 20.0), (620.0, 460.0), (20.0, 460.0)),
                   profile=prof)


def _list(v: Any, name: str, n: int | None) -> list[Any]:
    if not isinstance(v, list) or (n is not None and len(v) != n):
        raise CalibrationError(f"calibration field {name!r} must be a list"
                               + (f" of {n}" if n is not None else "") + f", not {v!r:.60}")
    return v


def _dict(v: Any, name: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise CalibrationError(f"calibration field {name!r} must be an object, not {v!r:.60}")
    return v


def _numbers(v: Any, name: str, n: int | None) -> list[float]:
    items = _list(v, name, n)
    out: list[float] = []
    for x in items:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise CalibrationError(f"calibration field {name!r} holds {x!r}, not a number")
        out.append(float(x))
    return out


def _rgb(v: Any, name: str) -> RGB:
    r, g, b = _numbers(v, name, 3)
    return (r, g, b)


_PLURAL = {"rail_samples", "slots", "rings", "jeton_empty", "flag_empty", "surface"}


def _profile(d: dict[str, Any]) -> ColourProfile:
    values: dict[str, Any] = {}
    for f in fields(ColourProfile):
        if f.name not in d:
            raise CalibrationError(f"calibration profile lacks {f.name!r}")
        v = d[f.name]
        if f.name in _PLURAL:
            _list(v, f"profile.{f.name}", None)
            values[f.name] = tuple(_rgb(x, f"profile.{f.name}") for x in v)
        else:
            values[f.name] = _rgb(v, f"profile.{f.name}")
    return ColourProfile(**values)
