"""Measure the vision on a fixture set: accuracy per kind of reading and timings per stage.

SET is a folder of sessions (each a calibration.json with frames NAME.jpg + NAME.json truth),
e.g. fixtures/vision/measure. Prints a table (dice per die, bad throws judged bad, colour per
field, visible count per field, markers, jetons/fichets/pavillon, occlusion; median and p90
milliseconds per stage) and writes one CSV row per frame. A die seen where there is none counts
as a die read wrong; a cocked die (truth: no value) is right when it is judged bad, and is also
counted on its own row ("-" when the set has none: render one with ``tablier render --cocked``).
Each session read is reported on stderr as it ends. Example:

    tablier eval fixtures/vision/measure --out results.csv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "measure the vision on a fixture set"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("set", type=Path, help="the fixture set folder")
    parser.add_argument("--out", type=Path, default=Path("eval.csv"),
                        help="the CSV to write (default: %(default)s)")
    parser.add_argument("--own", action="store_true",
                        help="read each frame on a calibration made from itself, as "
                             "`tablier see --own` reads a photograph (each session's "
                             "calibration.json is still loaded, but not used)")
    parser.add_argument("--threads", type=int, default=1,
                        help="OpenCV threads (default: %(default)s, one core as on the Pi)")


def _progress(session: Path, done: int, total: int) -> None:
    print(f"read {session.name} ({done} of {total} sessions)", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Evaluate the set and print the table.

    Args:
        args: the parsed options.

    Returns:
        0.

    Raises:
        UsageError: if SET is not a fixture set, or a calibration or a frame's truth in it
            is wrong.
    """
    import cv2

    from tablier.calibration.calibration import CalibrationError
    from tablier.cli import UsageError
    from tablier.vision.dicenet import WeightsError
    from tablier.vision.evaluate import TruthError, evaluate, write_csv
    from tablier.vision.photo import OwnReader

    if not args.set.is_dir():
        raise UsageError(f"no fixture set folder {str(args.set)!r}")
    cv2.setNumThreads(max(1, args.threads))
    try:
        report = (evaluate(args.set, progress=_progress, recognizer_factory=OwnReader)
                  if args.own else evaluate(args.set, progress=_progress))
    except (FileNotFoundError, CalibrationError, TruthError, WeightsError) as exc:
        raise UsageError(str(exc)) from None
    print(report.table())
    try:
        write_csv(report, args.out)
    except OSError as exc:
        raise UsageError(f"cannot write {str(args.out)!r}: {exc.strerror}") from None
    print(f"\nwrote {args.out} ({len(report.rows)} frames)")
    return 0
