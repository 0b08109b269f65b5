"""Read one calibrated frame: print the observation as JSON and write an annotated picture.

The observation holds the board placement, each field's colour and visible stacks (a pile
counts once from above), the dice, the jetons, fichets and pavillon, whether a hand covers the
board, flags and per-stage timings (ms). Example:

    tablier see frame.jpg --calibration calibration.json --annotated seen.jpg
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
    parser.add_argument("--calibration", type=Path, default=Path("calibration.json"),
                        help="calibration file from tablier calibrate (default: %(default)s)")
    parser.add_argument("--annotated", type=Path, default=None,
                        help="where to write the annotated picture (default: IMAGE.seen.jpg "
                             "in the current folder)")
    parser.add_argument("--no-picture", action="store_true", help="do not write the picture")


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
    import cv2

    from tablier.calibration.calibration import Calibration, CalibrationError
    from tablier.cli import UsageError
    from tablier.vision.annotate import annotate
    from tablier.vision.errors import RecognitionError
    from tablier.vision.imageio import read_image
    from tablier.vision.recognizer import Recognizer

    try:
        calibration = Calibration.load(args.calibration)
        frame = read_image(args.image)
        recognizer = Recognizer(calibration)
        obs = recognizer.recognize(frame)
    except CalibrationError as exc:
        raise UsageError(str(exc)) from None
    except RecognitionError as exc:
        raise UsageError(exc.reason) from None
    if not args.no_picture:
        out = args.annotated or Path(f"{args.image.stem}.seen.jpg")
        picture = cv2.cvtColor(annotate(recognizer, frame, obs), cv2.COLOR_RGB2BGR)
        if not cv2.imwrite(str(out), picture):
            raise UsageError(f"cannot write the annotated picture {str(out)!r}")
    print(json.dumps(obs.to_json(), indent=1))
    return 0
