"""Measure the recogniser on a fixture set: accuracy per kind of reading, and timings.

A set is a folder holding one or more *sessions*; a session is a folder with a
``calibration.json`` and frames ``NAME.jpg`` each with its truth ``NAME.json`` (as written by
:func:`tablier.vision.render.write_frame`). ``reference.jpg`` (the calibration frame) is not
scored. Run ``python -m tablier.vision.evaluate SET --out results.csv`` or ``tablier eval SET``.

Dice per die: a true die is right when exactly one sighting lies within 12 mm of it (three
quarters of a die) and reads its value (or its reason's None); a sighting within 12 mm of no
true die is a stray and counts as one more die, read wrong: accuracy = right / (true + stray).
"""

from __future__ import annotations

import csv
import json
import math
import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tablier.calibration.calibration import Calibration
from tablier.vision.errors import RecognitionError
from tablier.vision.imageio import read_image
from tablier.vision.marks import marks_truth_reading
from tablier.vision.recognizer import Observation, Recognizer

METRICS = ("dice per die", "bad throws judged bad", "colour per field", "visible count per field",
           "markers (board)", "jetons/fichets/pavillon", "occlusion")
"""The rows of the accuracy table, in order."""


@dataclass
class Tally:
    """Correct and total counts of one metric."""

    correct: int = 0
    """Readings that matched the truth."""
    total: int = 0
    """Readings scored."""

    def add(self, ok: bool, n: int = 1) -> None:
        """Count ``n`` readings, all right or all wrong."""
        self.total += n
        self.correct += n if ok else 0

    @property
    def accuracy(self) -> float:
        """Share of correct readings (NaN when nothing was scored)."""
        return self.correct / self.total if self.total else math.nan


@dataclass
class Report:
    """The result of an evaluation."""

    tallies: dict[str, Tally] = field(default_factory=lambda: {m: Tally() for m in METRICS})
    """Accuracy per metric."""
    timings: dict[str, list[float]] = field(default_factory=dict)
    """Milliseconds per stage, one entry per frame."""
    rows: list[dict[str, Any]] = field(default_factory=list)
    """One CSV row per frame."""
    failures: list[str] = field(default_factory=list)
    """Frames that could not be read at all, with the reason."""

    def table(self) -> str:
        """The accuracy and timing table as text."""
        lines = [f"{'metric':<26}{'correct':>9}{'total':>8}{'accuracy':>10}"]
        for name, t in self.tallies.items():
            acc = "-" if not t.total else f"{100 * t.accuracy:.2f}%"
            lines.append(f"{name:<26}{t.correct:>9}{t.total:>8}{acc:>10}")
        lines.append("")
        lines.append(f"{'stage':<26}{'median ms':>10}{'p90 ms':>9}{'frames':>8}")
        order = ["locate", "rectify", "occlusion", "dice", "dames", "marks", "total"]
        stages = sorted(self.timings, key=lambda k: order.index(k) if k in order else 99)
        for stage in stages:
            v = self.timings[stage]
            lines.append(f"{stage:<26}{statistics.median(v):>10.2f}{p90(v):>9.2f}{len(v):>8}")
        if self.failures:
            lines.append("")
            lines.append(f"{len(self.failures)} frame(s) not read: " + "; ".join(self.failures[:5]))
        return "\n".join(lines)


def p90(values: Sequence[float]) -> float:
    """The 90th percentile as the reports print it: the value at 0.9 n of the n values sorted.

    Raises:
        IndexError: if ``values`` is empty.
    """
    v = sorted(values)
    return v[min(len(v) - 1, int(0.9 * len(v)))]


def sessions(root: Path) -> Iterator[Path]:
    """Every session folder (holding a ``calibration.json``) under ``root``, sorted.

    Args:
        root: the set.

    Yields:
        Session folders.

    Raises:
        Nothing.
    """
    for cal in sorted(root.rglob("calibration.json")):
        yield cal.parent


def frames(session: Path) -> Iterator[tuple[Path, Path]]:
    """Every (image, truth) pair of a session, sorted; the reference frame is skipped.

    Args:
        session: the folder.

    Yields:
        Image and truth paths.

    Raises:
        Nothing.
    """
    for img in sorted(session.glob("*.jpg")):
        truth = img.with_suffix(".json")
        if img.stem != "reference" and truth.exists():
            yield img, truth


DIE_REACH = 0.75 * 16.0
"""mm: a sighting this near a die's top face's centre is a sighting of that die."""


def _at(center_mm: Sequence[float], die: dict[str, Any]) -> bool:
    """Whether a die seen at ``center_mm`` is a sighting of the true ``die``.

    Within ``DIE_REACH`` of its top face's centre, or anywhere on the die as seen (its
    ``outline_mm``, in the truth of sets rendered from 2026-11-27): the top face of a die
    cocked 40 degrees or more is nearly as level as the face beside it, and a reader that
    finds the die by another face than its top, 12-14 mm from the top's centre, has still
    found the die. The truth of older sets has no outline; for them the reach alone counts,
    as before.
    """
    if math.dist(center_mm, die["center_mm"]) < DIE_REACH:
        return True
    outline = die.get("outline_mm")
    if not outline:
        return False
    point = (float(center_mm[0]), float(center_mm[1]))
    return cv2.pointPolygonTest(np.asarray(outline, np.float32), point, False) >= 0


class TruthError(ValueError):
    """A frame's truth file cannot be scored against (not JSON, or a field missing)."""


TRUTH_FIELDS = ("occluded", "quad", "image", "fields", "dice", "marks")
"""What :func:`score` reads of a frame's truth."""


def load_truth(path: Path) -> dict[str, Any]:
    """A frame's truth, checked to hold what :func:`score` reads.

    Args:
        path: the truth file (``frame_NNN.json`` beside its picture).

    Returns:
        The truth.

    Raises:
        TruthError: naming the file, if it cannot be read, is not JSON or lacks a field.
    """
    try:
        truth = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TruthError(f"cannot read the truth {str(path)!r}: {exc.strerror}") from None
    except ValueError as exc:
        raise TruthError(f"the truth {str(path)!r} is not readable JSON ({exc})") from None
    missing = ([k for k in TRUTH_FIELDS if k not in truth] if isinstance(truth, dict)
               else list(TRUTH_FIELDS))
    if missing:
        raise TruthError(f"the truth {str(path)!r} lacks {', '.join(map(repr, missing))}: "
                         "not a frame's truth from tablier render")
    return dict(truth)


def score(obs: Observation, truth: dict[str, Any], report: Report) -> dict[str, Any]:
    """Score one observation against its truth, adding to ``report``.

    Args:
        obs: what the recogniser saw.
        truth: the renderer's truth.
        report: where to add the counts.

    Returns:
        The frame's CSV row (without names and timings).

    Raises:
        KeyError: if the truth lacks a field.
    """
    t = report.tallies
    occluded = bool(truth["occluded"])
    t["occlusion"].add(obs.occluded == occluded)
    quad_err = max(math.dist(a, b) for a, b in zip(obs.quad, truth["quad"]))
    diag = math.hypot(*truth["image"])
    t["markers (board)"].add(obs.board_source == "markers" and quad_err < 0.01 * diag)
    row: dict[str, Any] = {"occluded_truth": occluded, "occluded_seen": obs.occluded,
                           "quad_error_px": round(quad_err, 2), "colour_errors": 0,
                           "count_errors": 0, "dice_errors": 0, "dice": 0, "stray_dice": 0,
                           "marks_ok": ""}
    if occluded:
        return row
    seen = {r.field: r for r in obs.fields}
    for tf in truth["fields"]:
        r = seen.get(tf["field"])
        colour_ok = r is not None and (r.color.value if r.color else None) == tf["color"]
        count_ok = r is not None and r.visible == tf["visible"]
        t["colour per field"].add(colour_ok)
        t["visible count per field"].add(count_ok)
        row["colour_errors"] += not colour_ok
        row["count_errors"] += not count_ok
    for td in truth["dice"]:
        near = [d for d in obs.dice if _at(d.center_mm, td)]
        ok = len(near) == 1 and near[0].value == td["value"]
        t["dice per die"].add(ok)
        if td["value"] is None:
            # A die cocked (or otherwise bad) is also counted apart: it is rare in a set, and
            # "dice per die" would hide how many of them are let through as a throw.
            t["bad throws judged bad"].add(ok)
        row["dice"] += 1
        row["dice_errors"] += not ok
    # A die seen where there is none counts as one more die read wrong (at the board it is a
    # third die, or a bad throw that was not).
    stray = sum(not any(_at(d.center_mm, td) for td in truth["dice"]) for d in obs.dice)
    t["dice per die"].add(False, stray)
    row["stray_dice"] = stray
    row["dice_errors"] += stray
    if obs.marks is not None:
        expected = marks_truth_reading(truth["marks"])
        got = obs.marks
        ok = (got.jetons_at_rest, got.white_jetons, got.black_jetons, got.white_pegs,
              got.black_pegs, got.pavillon) == (
            expected.jetons_at_rest, expected.white_jetons, expected.black_jetons,
            expected.white_pegs, expected.black_pegs, expected.pavillon)
        t["jetons/fichets/pavillon"].add(ok)
        row["marks_ok"] = ok
    return row


def evaluate(root: Path, *, recognizer_factory: Any = Recognizer,
             progress: Callable[[Path, int, int], None] | None = None) -> Report:
    """Run the recogniser over every frame of a set.

    Args:
        root: the set folder.
        recognizer_factory: builds a recogniser from a calibration (for tests).
        progress: called after each session with its folder, how many sessions are done
            and how many there are (a set of 8 x 50 frames takes minutes).

    Returns:
        The report.

    Raises:
        FileNotFoundError: if ``root`` holds no session.
        CalibrationError: if a session's calibration is wrong.
        TruthError: if a frame's truth is not JSON or lacks a field; every truth is read
            before the first frame, so a broken one is found at once, not minutes in.
    """
    report = Report()
    todo = list(sessions(root))
    if not todo:
        raise FileNotFoundError(f"no calibration.json under {str(root)!r}: not a fixture set")
    found = {session: [(img, path, load_truth(path)) for img, path in frames(session)]
             for session in todo}
    for done, session in enumerate(todo, 1):
        rec = recognizer_factory(Calibration.load(session / "calibration.json"))
        for img_path, truth_path, truth in found[session]:
            name = str(img_path.relative_to(root))
            try:
                obs = rec.recognize(read_image(img_path), previous=None)
            except RecognitionError as exc:
                report.failures.append(f"{name}: {exc.reason}")
                report.tallies["markers (board)"].add(False)
                continue
            try:
                scored = score(obs, truth, report)
            except (KeyError, TypeError, IndexError) as exc:
                raise TruthError(f"the truth {str(truth_path)!r} does not hold a frame's "
                                 f"truth as tablier render writes it ({exc!r})") from None
            row = {"frame": name} | scored
            for stage, ms in obs.timings:
                report.timings.setdefault(stage, []).append(ms)
                row[f"{stage}_ms"] = round(ms, 3)
            report.rows.append(row)
        if progress is not None:
            progress(session, done, len(todo))
    return report


def write_csv(report: Report, path: Path) -> None:
    """Write one row per frame.

    Args:
        report: the evaluation.
        path: the CSV file.

    Raises:
        OSError: if it cannot be written.
    """
    keys: list[str] = []
    for row in report.rows:
        keys += [k for k in row if k not in keys]
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=keys)
        writer.writeheader()
        writer.writerows(report.rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tablier eval`` (this module's entry point is the same command).

    Args:
        argv: the command's arguments, without the program name; ``sys.argv[1:]`` when None.

    Returns:
        0, or 2 for a set that cannot be read.

    Raises:
        SystemExit: from argparse on bad arguments.
    """
    from tablier.cli import main as cli_main

    return cli_main(["eval", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
