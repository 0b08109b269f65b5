"""Measure the dice reader on a fixture set: per-die accuracy, errors by kind, timings.

Three kinds of set are read:

* the real webcam photographs, ``fixtures/dice/real`` (YOLO labels beside each JPEG, the
  tune/measure split in ``split.json``);
* the rendered sets, ``fixtures/dice/rendered/<name>`` (``truth.json`` written by
  ``python -m tablier.vision.render_dice``);
* the board frame sets of ``tablier render`` (``fixtures/vision/measure``), read as
  ``tablier dice`` reads a photograph of the board (no calibration, no board normal).

Matching rule: a die the reader reports matches a true die when its centre lies inside the
true die's box grown by a quarter of the box's longer side on every side (for the real set
the box is the label, which encloses the top face's pips; for rendered frames, the projected
top face), or, on rendered frames, on the die's body as seen (its outline: a cocked die's
uppermost face may be seen nearly edge on). Each true die takes the nearest unclaimed report.
A true die is read correctly when its matched report has the same value; a true bad throw
(value None) is read correctly when the report's value is None too. A true die with no report
is *missed*, a report with no true die is *extra*; both are errors. Per-die accuracy =
correct / (true dice + extra).
A rendered die whose top-face centre is outside the frame cannot be read: it is not counted
unless the reader reports it, and its box is then the part of its body in the frame. A rendered
die is a bad throw "out_of_view" when a pip of its top face is cut by the border (not when
only a corner of the face is: its value can still be read).

Run as a module::

    python -m tablier.vision.dice_eval fixtures/dice/real --split measure [--csv out.csv]
    python -m tablier.vision.dice_eval fixtures/dice/rendered/measure [--uncalibrated] [--no-net]
    python -m tablier.vision.dice_eval fixtures/vision/measure      # board frames, as tablier dice
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import sys
import time
from collections.abc import Container, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np
from tablier.calibration.markers import MarkerFinder
from tablier.vision.dice import DiceConfig, Die, load_image
from tablier.vision.photo import read_photo

GROW = 0.25
"""A report matches a true die if its centre is inside the true box grown by this share."""


@dataclass(frozen=True)
class TrueDie:
    """One die of the ground truth."""

    value: int | None
    """The top face, or None for a bad throw."""
    box: tuple[float, float, float, float]
    """(x0, y0, x1, y1) in image pixels: the labelled box or the projected top face (for an
    optional die, the part of its body inside the frame)."""
    reason: str | None = None
    """Why ``value`` is None (rendered sets only)."""
    optional: bool = False
    """True when the die's top face cannot be seen (its centre is outside the frame)."""
    body: tuple[tuple[float, float], ...] = ()
    """The die's outline as seen, in image pixels (rendered sets only; empty when unknown):
    a report centred on the die's body matches it too."""


@dataclass(frozen=True)
class Sample:
    """One image of a set and its truth."""

    name: str
    """The image's file stem, e.g. ``"dice_12"``."""
    path: Path
    """The image file."""
    truth: tuple[TrueDie, ...]
    """Every die on the image."""
    board_normal: tuple[float, float, float] | None = None
    """The board's normal in camera coordinates when known (rendered frames), as a
    calibration would give it."""


@dataclass(frozen=True)
class DiceRow:
    """The result on one image (one CSV row)."""

    image: str
    """The image's name."""
    true_dice: int
    """Dice in the truth that count."""
    correct: int
    """True dice read with the right value (or rightly unread)."""
    wrong: int
    """True dice matched by a report with another value."""
    missed: int
    """True dice nobody reported."""
    extra: int
    """Reports matching no true die."""
    ms: float
    """Time of the reading (:func:`~tablier.vision.photo.read_photo`, as ``tablier dice``) on
    this image, milliseconds."""
    errors: str
    """The errors, e.g. ``"wrong 6->3 @(120,88); extra 1 @(40,9)"``."""


def load_real_set(root: Path, split: str) -> list[Sample]:
    """Load the real webcam photographs of one split.

    Args:
        root: the folder ``fixtures/dice/real`` (JPEG + YOLO ``.txt`` + ``split.json``).
        split: ``"tune"`` or ``"measure"``.

    Returns:
        The samples in the manifest's order.

    Raises:
        ValueError: if the split is unknown or a label line is malformed.
        OSError: if a file is missing.
    """
    manifest = json.loads((root / "split.json").read_text())
    if split not in ("tune", "measure"):
        raise ValueError(f"split must be 'tune' or 'measure', got {split!r}")
    samples = []
    for name in manifest[split]:
        path = root / f"{name}.jpg"
        truth = []
        for line_no, line in enumerate((root / f"{name}.txt").read_text().splitlines(), 1):
            if not line.strip():
                continue
            parts = line.split()
            if len(parts) != 5:
                raise ValueError(f"{name}.txt line {line_no}: expected 5 fields, got {line!r}")
            cls, cx, cy, bw, bh = int(parts[0]), *(float(p) for p in parts[1:])
            w, h = 640.0, 480.0  # NOTE: every photograph of the set is 640x480
            truth.append(TrueDie(cls + 1, ((cx - bw / 2) * w, (cy - bh / 2) * h,
                                           (cx + bw / 2) * w, (cy + bh / 2) * h)))
        samples.append(Sample(name, path, tuple(truth)))
    return samples


def load_rendered_set(folder: Path) -> list[Sample]:
    """Load a rendered set written by ``python -m tablier.vision.render_dice``.

    Args:
        folder: the set's folder (frames and ``truth.json``).

    Returns:
        The samples in frame order.

    Raises:
        OSError: if ``truth.json`` is missing.
        ValueError: if it is not valid JSON.
    """
    data = json.loads((folder / "truth.json").read_text())
    width, height = data["width"], data["height"]
    samples = []
    for frame in data["frames"]:
        truth = []
        for die in frame["dice"]:
            xs = [p[0] for p in die["top_face"]]
            ys = [p[1] for p in die["top_face"]]
            cx, cy = die["center"]
            optional = not (0 <= cx < width and 0 <= cy < height)
            box = (min(xs), min(ys), max(xs), max(ys))
            if optional and die.get("outline"):
                # NOTE: the top face is outside: what can be seen of the die is its body, so
                # a report there ("out_of_view") is matched to it, not counted as extra.
                ox = np.clip([p[0] for p in die["outline"]], 0, width - 1)
                oy = np.clip([p[1] for p in die["outline"]], 0, height - 1)
                box = (float(ox.min()), float(oy.min()), float(ox.max()), float(oy.max()))
            body = tuple((float(x), float(y)) for x, y in die.get("outline") or ())
            truth.append(TrueDie(die["value"], box, die["reason"], optional, body))
        name = str(frame["image"]).rsplit(".", 1)[0]
        normal = frame.get("board_normal")
        samples.append(Sample(name, folder / frame["image"], tuple(truth),
                              tuple(normal) if normal else None))
    return samples


def load_board_set(root: Path) -> list[Sample]:
    """Load a set of board frames (``tablier render``: sessions of frames with their truth), to
    read as ``tablier dice`` would a photograph of the board. Frames with a hand over the board
    are left out (the companion does not read them).

    Args:
        root: the set's folder (session folders, each with a ``calibration.json``).

    Returns:
        The samples, sessions and frames in order; each die's box is its body as drawn on the
        board plane, mapped through the frame's true board corners.

    Raises:
        OSError: if a truth file is missing.
        ValueError: if a truth file is not valid JSON or lacks a field, or the set holds no
            session.
    """
    from tablier.calibration.calibration import Calibration
    from tablier.vision.evaluate import frames, sessions
    samples = []
    for session in sessions(root):
        geometry = Calibration.load(session / "calibration.json").geometry
        half = geometry.die_size / 2
        for image, truth_path in frames(session):
            try:
                frame = json.loads(truth_path.read_text())
            except json.JSONDecodeError as exc:
                raise ValueError(f"truth {str(truth_path)!r} is not valid JSON ({exc})") from None
            if frame.get("occluded"):
                continue
            try:
                h = cv2.getPerspectiveTransform(geometry.corners.astype(np.float32),
                                                np.asarray(frame["quad"], np.float32))
                truth = []
                for die in frame["dice"]:
                    # NOTE: sets rendered before the dice's outlines were written: the die's
                    # square, unturned, about its centre.
                    cx, cy = die["center_mm"]
                    outline = die.get("outline_mm") or [
                        (cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half),
                        (cx - half, cy + half)]
                    body = np.asarray(cv2.perspectiveTransform(
                        np.asarray(outline, np.float64).reshape(-1, 1, 2), h),
                        np.float64).reshape(-1, 2)
                    box = (float(body[:, 0].min()), float(body[:, 1].min()),
                           float(body[:, 0].max()), float(body[:, 1].max()))
                    truth.append(TrueDie(die["value"], box, die["reason"], False,
                                         tuple((float(x), float(y)) for x, y in body)))
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"truth {str(truth_path)!r} is malformed ({exc!r})") from None
            samples.append(Sample(str(image.relative_to(root).with_suffix("")), image,
                                  tuple(truth)))
    if not samples and not any(sessions(root)):
        raise ValueError(f"no board session in {str(root)!r} (no calibration.json)")
    return samples


def _inside(x: float, y: float, outline: Sequence[tuple[float, float]]) -> bool:
    """Whether a point lies on a polygon (False for fewer than 3 points), as
    ``vision.evaluate`` matches a die by its outline."""
    if len(outline) < 3:
        return False
    return cv2.pointPolygonTest(np.asarray(outline, np.float32), (x, y), False) >= 0


def nearest_report(box: tuple[float, float, float, float], found: Sequence[Die],
                   claimed: Container[int],
                   body: Sequence[tuple[float, float]] = ()) -> int | None:
    """The matching rule: the unclaimed report nearest the box's centre, among those whose
    centre lies inside the box grown by ``GROW`` times its longer side on every side, or on
    the die's body as seen.

    Args:
        box: a true die's (x0, y0, x1, y1).
        found: the reports.
        claimed: indices of reports already matched.
        body: the die's outline as seen (empty when unknown).

    Returns:
        The index in ``found``, or None.

    Raises:
        Nothing.
    """
    x0, y0, x1, y1 = box
    grow = GROW * max(x1 - x0, y1 - y0)
    tcx, tcy = (x0 + x1) / 2, (y0 + y1) / 2
    best: tuple[float, int] | None = None
    for k, d in enumerate(found):
        if k in claimed:
            continue
        x, y = d.center
        if (x0 - grow <= x <= x1 + grow and y0 - grow <= y <= y1 + grow) or _inside(x, y, body):
            dist = math.hypot(x - tcx, y - tcy)
            if best is None or dist < best[0]:
                best = (dist, k)
    return None if best is None else best[1]


def score_image(truth: Sequence[TrueDie], found: Sequence[Die]) -> tuple[int, int, int, int,
                                                                         int, list[str]]:
    """Match reports to true dice by the module's rule and count.

    Args:
        truth: the true dice of the image.
        found: what the reader reported.

    Returns:
        (true dice counted, correct, wrong, missed, extra, error descriptions).

    Raises:
        Nothing.
    """
    claimed: set[int] = set()
    counted = correct = wrong = missed = 0
    errors: list[str] = []
    # NOTE: dice whose top face is outside the frame take only the reports left over.
    for t in sorted(truth, key=lambda t: t.optional):
        x0, y0, x1, y1 = t.box
        tcx, tcy = (x0 + x1) / 2, (y0 + y1) / 2
        best = nearest_report(t.box, found, claimed, t.body)
        if best is None:
            if not t.optional:
                counted += 1
                missed += 1
                errors.append(f"missed {t.value} @({tcx:.0f},{tcy:.0f})")
            continue
        counted += 1
        claimed.add(best)
        d = found[best]
        if d.value == t.value:
            correct += 1
        else:
            wrong += 1
            got = d.value if d.value is not None else d.reason
            want = t.value if t.value is not None else t.reason
            errors.append(f"wrong {want}->{got} @({tcx:.0f},{tcy:.0f})")
    extra = 0
    for k, d in enumerate(found):
        if k not in claimed:
            extra += 1
            got = d.value if d.value is not None else d.reason
            errors.append(f"extra {got} @({d.center[0]:.0f},{d.center[1]:.0f})")
    return counted, correct, wrong, missed, extra, errors


def evaluate_dice(samples: Iterable[Sample], *, cfg: DiceConfig | None = None,
                  calibrated: bool = True) -> list[DiceRow]:
    """Read every image of a set and score it.

    Args:
        samples: the images with their truth (:func:`load_real_set`, :func:`load_rendered_set`).
        cfg: the reader's configuration; the defaults when None.
        calibrated: give the reader the board's normal when the sample knows it (as the
            Recognizer does from its calibration); False reads as ``tablier dice`` does.

    Returns:
        One :class:`DiceRow` per image.

    Raises:
        ValueError: if an image cannot be read.
    """
    config = cfg or DiceConfig()
    finder = MarkerFinder()
    rows = []
    for sample in samples:
        image = load_image(sample.path)
        used = config
        if calibrated and sample.board_normal is not None:
            used = dataclasses.replace(config, board_normal=sample.board_normal)
        start = time.perf_counter()
        reading = read_photo(used, image, finder=finder)
        ms = (time.perf_counter() - start) * 1000
        counted, correct, wrong, missed, extra, errors = score_image(sample.truth, reading.dice)
        rows.append(DiceRow(sample.name, counted, correct, wrong, missed, extra, round(ms, 2),
                            "; ".join(errors)))
    return rows


def summarise(rows: Sequence[DiceRow]) -> dict[str, float]:
    """Totals of a set: dice, errors by kind, per-die accuracy, median time.

    Args:
        rows: the rows of :func:`evaluate_dice`.

    Returns:
        ``{"images", "true_dice", "correct", "wrong", "missed", "extra", "accuracy",
        "median_ms"}``.

    Raises:
        Nothing.
    """
    true_dice = sum(r.true_dice for r in rows)
    extra = sum(r.extra for r in rows)
    correct = sum(r.correct for r in rows)
    denominator = true_dice + extra
    return {
        "images": len(rows),
        "true_dice": true_dice,
        "correct": correct,
        "wrong": sum(r.wrong for r in rows),
        "missed": sum(r.missed for r in rows),
        "extra": extra,
        "accuracy": correct / denominator if denominator else 1.0,
        "median_ms": float(np.median([r.ms for r in rows])) if rows else 0.0,
    }


def write_csv(rows: Sequence[DiceRow], path: Path) -> None:
    """Write one CSV row per image.

    Args:
        rows: the rows of :func:`evaluate_dice`.
        path: the CSV file to write.

    Raises:
        OSError: if the file cannot be written.
    """
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(DiceRow.__dataclass_fields__))
        writer.writeheader()
        for row in rows:
            writer.writerow(asdict(row))


def load_set(path: Path, split: str | None) -> list[Sample]:
    """Load a real set (a folder with ``split.json``), a rendered one (``truth.json``) or a set
    of board frames (session folders with a ``calibration.json``).

    Args:
        path: the set's folder.
        split: for the real set, ``"tune"`` or ``"measure"``.

    Returns:
        The samples.

    Raises:
        ValueError: if the folder holds neither kind of set, or the split is missing.
    """
    if (path / "truth.json").is_file():
        return load_rendered_set(path)
    if (path / "split.json").is_file():
        if split is None:
            raise ValueError(f"{str(path)!r} is a real set: give --split tune or measure")
        return load_real_set(path, split)
    if any(path.rglob("calibration.json")):
        return load_board_set(path)
    raise ValueError(f"no dice set in {str(path)!r} (no truth.json, split.json or "
                     "calibration.json)")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the accuracy of the dice reader on a set (and write a CSV if asked).

    Args:
        argv: arguments without the program name.

    Returns:
        0, or 2 on a bad set.

    Raises:
        SystemExit: from argparse on bad arguments.
    """
    parser = argparse.ArgumentParser(prog="python -m tablier.vision.dice_eval",
                                     description="Measure the dice reader on a fixture set.")
    parser.add_argument("set", type=Path,
                        help="fixtures/dice/real, a rendered dice set or a set of board frames")
    parser.add_argument("--split", choices=("tune", "measure"))
    parser.add_argument("--csv", type=Path, help="write one row per image")
    parser.add_argument("--errors", action="store_true", help="list every image with errors")
    parser.add_argument("--uncalibrated", action="store_true",
                        help="do not give the reader the rendered board's normal")
    parser.add_argument("--no-net", action="store_true",
                        help="read with the hand-written rules alone (no dice net)")
    args = parser.parse_args(argv)
    try:
        samples = load_set(args.set, args.split)
    except (ValueError, OSError) as exc:
        print(f"dice_eval: {exc}", file=sys.stderr)
        return 2
    rows = evaluate_dice(samples, cfg=DiceConfig(net=not args.no_net),
                         calibrated=not args.uncalibrated)
    if args.csv:
        write_csv(rows, args.csv)
    if args.errors:
        for row in rows:
            if row.errors:
                print(f"{row.image}: {row.errors}")
    s = summarise(rows)
    print(f"images {s['images']}  true dice {s['true_dice']}  correct {s['correct']}  "
          f"wrong {s['wrong']}  missed {s['missed']}  extra {s['extra']}  "
          f"per-die accuracy {100 * s['accuracy']:.2f}%  median {s['median_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
