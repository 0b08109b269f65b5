"""Read one calibrated frame: print the observation as JSON and write an annotated picture.

The observation holds the board placement, each field's colour and visible stacks (a pile
counts once from above), the dice, the jetons, fichets and pavillon, whether a hand covers the
board, flags and per-stage timings (ms). Example:

    tablier see frame.jpg --calibration calibration.json --annotated seen.jpg

A photograph of a game in progress, taken without the board's calibration (to settle a dispute
at the école), is read on a calibration made from the photograph itself with ``--own``: the
board placed by its corner markers, or by its four outer corners given with ``--corners``; each
point's empty colour is the one the points of its colour that look alike all along show, and
the lighter dames are White's (docs/vision.md, fifty-third round). Example:

    tablier see photo.jpg --own
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HELP = "read a calibrated frame into an observation"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("image", type=Path, help="the frame (JPEG or PNG)")
    parser.add_argument("--calibration", type=Path, default=None,
                        help="calibration file from tablier calibrate (default: "
                             "calibration.json)")
    parser.add_argument("--annotated", type=Path, default=None,
                        help="where to write the annotated picture (default: IMAGE.seen.jpg "
                             "in the current folder)")
    parser.add_argument("--no-picture", action="store_true", help="do not write the picture")
    parser.add_argument("--own", action="store_true",
                        help="no calibration file: read the photograph on a calibration made "
                             "from itself (a game in progress; the lighter dames taken as "
                             "White's)")
    parser.add_argument("--corners", nargs=4, metavar="X,Y", default=None,
                        help="with --own, for a board without markers: its outer corners in "
                             "pixels, top-left, top-right, bottom-right, bottom-left (White's "
                             "talon at the bottom-left)")


def run(args: argparse.Namespace) -> int:
    """Read the frame and print its observation.

    Args:
        args: the parsed options.

    Returns:
        0 on success.

    Raises:
        UsageError: for a missing/corrupt image, a missing or stale calibration, a frame of
            the wrong size or with no board.
    """
    from tablier.calibration.calibration import Calibration, CalibrationError
    from tablier.cli import UsageError
    from tablier.commands.calibrate import parse_corners
    from tablier.vision.annotate import annotate
    from tablier.vision.errors import RecognitionError
    from tablier.vision.imageio import read_image, write_image
    from tablier.vision.photo import OwnReader
    from tablier.vision.recognizer import Recognizer

    if args.corners is not None and not args.own:
        raise UsageError("--corners places the board only for --own (a calibration file "
                         "places it otherwise)")
    if args.calibration is not None and args.own:
        raise UsageError("--own reads the photograph on a calibration made from itself: give "
                         "--own or --calibration, not both")
    try:
        if args.own:
            frame = read_image(args.image)
            own = OwnReader(corners=None if args.corners is None
                            else parse_corners(args.corners))
            obs = own.recognize(frame)
            assert own.recognizer is not None
            recognizer = own.recognizer
        else:
            calibration = Calibration.load(args.calibration or Path("calibration.json"))
            frame = read_image(args.image)
            recognizer = Recognizer(calibration)
            obs = recognizer.recognize(frame)
    except CalibrationError as exc:
        raise UsageError(str(exc)) from None
    except RecognitionError as exc:
        raise UsageError(exc.reason) from None
    except ValueError as exc:  # corners that make no board
        raise UsageError(str(exc)) from None
    if not args.no_picture:
        out = args.annotated or Path(f"{args.image.stem}.seen.jpg")
        try:
            write_image(out, annotate(recognizer, frame, obs))
        except OSError as exc:
            raise UsageError(f"the annotated picture: {exc}") from None
    print(json.dumps(obs.to_json(), indent=1))
    return 0
