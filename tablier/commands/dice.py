"""Read the dice on any photograph (no calibration needed).

Prints one JSON object: the image size and every die seen, with its top face, centre and size
in the image's pixels and a confidence; a die seen but not readable has "value": null and a
"reason" ("cocked", "on_die", "out_of_view"):

  {"image": [640, 480],
   "dice": [{"value": 5, "center": [412.0, 233.5], "size": 38.0, "confidence": 0.97}]}

On a photograph of the board with three or more of tablier's corner markers in view (or with
its outer corners given, ``--corners``), the dice are read as the board's own reader reads a
camera frame, on a calibration made from the photograph itself; the rails' holes and the
markers are no dice. ``--whole`` reads the whole picture as any photograph's.

A missing, empty, truncated or non-image file is refused with one line on stderr (exit 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HELP = "read the dice on any photograph"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("image", metavar="IMAGE", help="a photograph (JPEG, PNG, ...)")
    parser.add_argument("--json", action="store_true",
                        help="print the reading as JSON (the default and only format)")
    parser.add_argument("--debug", metavar="DIR", type=Path,
                        help="also write an annotated picture IMAGE-stem.dice.png into DIR")
    parser.add_argument("--corners", nargs=4, metavar="X,Y", default=None,
                        help="the board's outer corners TL TR BR BL (White's talon at the "
                             "bottom-left), for a photograph of a board without markers")
    parser.add_argument("--whole", action="store_true",
                        help="read the whole picture as any photograph's, even where the "
                             "board's corner markers are seen")


def run(args: argparse.Namespace) -> int:
    """Read the image and print the JSON reading.

    Args:
        args: the parsed arguments (``image``, ``json``, ``debug``, ``corners``, ``whole``).

    Returns:
        0.

    Raises:
        UsageError: if the image is missing, unreadable, truncated or not an image, or the
            corners are malformed or place no board, or a net file of tablier's own is
            damaged.
    """
    from tablier.cli import UsageError
    from tablier.commands.calibrate import parse_corners
    from tablier.vision.dice import DiceConfig, draw_reading, load_image
    from tablier.vision.dicenet import WeightsError
    from tablier.vision.imageio import write_image
    from tablier.vision.photo import read_photo

    corners = parse_corners(args.corners) if args.corners else None
    if corners is not None and args.whole:
        raise UsageError("--corners and --whole ask for two readings: give one")
    try:
        image = load_image(args.image)
        reading = read_photo(DiceConfig(), image, whole=args.whole, corners=corners)
    except WeightsError as exc:  # before ValueError: the install's fault, not the image's
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise UsageError(f"{exc} ({args.image!r})" if args.image not in str(exc)
                         else str(exc)) from None
    if args.debug is not None:
        try:
            args.debug.mkdir(parents=True, exist_ok=True)
            write_image(args.debug / f"{Path(args.image).stem}.dice.png",
                        draw_reading(image, reading))
        except OSError as exc:
            raise UsageError(f"--debug: {exc}") from None
    print(json.dumps(reading.to_json()))
    return 0
