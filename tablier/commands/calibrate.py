"""Calibrate the camera and the board, step by step.

  1. tablier calibrate markers --out markers.png
       print the sheet, cut the four markers out and stick them on the corner blocks of the
       board: id 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left, seen from the camera
       with White's talon at the bottom-left.
  2. (wide lenses only) tablier calibrate lens --sheet charuco.png, print it, photograph it
       flat from a dozen angles, then: tablier calibrate lens PHOTO... --out lens.json
  3. Set up the start of a match (15 dames on each talon, the three jetons between the talons,
     both fichets in their start holes, the pavillon in the middle hole, no dice, no hands),
     take a frame, then:
       tablier calibrate board reference.jpg --out calibration.json --overlay overlay.jpg
     A board without markers: add --corners X,Y X,Y X,Y X,Y (outer corners TL TR BR BL).
  4. Look at the overlay: every field outline, dame slot, hole and jeton spot must sit where it
     belongs. tablier calibrate overlay FRAME redraws it on any later frame.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "calibrate the camera and the board"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the steps and their options.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    sub = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    m = sub.add_parser("markers", help="write the sheet of the four corner markers")
    m.add_argument("--out", type=Path, default=Path("markers.png"))
    m.add_argument("--dpi", type=int, default=300)
    lens = sub.add_parser("lens", help="lens calibration from ChArUco photographs")
    lens.add_argument("photos", type=Path, nargs="*")
    lens.add_argument("--sheet", type=Path, default=None, help="write the ChArUco sheet here")
    lens.add_argument("--out", type=Path, default=Path("lens.json"))
    b = sub.add_parser("board", help="calibrate from a reference frame of a match's start")
    b.add_argument("image", type=Path)
    b.add_argument("--out", type=Path, default=Path("calibration.json"))
    b.add_argument("--overlay", type=Path, default=Path("overlay.jpg"))
    b.add_argument("--corners", nargs=4, metavar="X,Y", default=None,
                   help="outer corners TL TR BR BL, for a board without markers")
    b.add_argument("--lens", type=Path, default=None, help="lens.json from the lens step")
    b.add_argument("--surface-depth", type=float, default=0.0, metavar="MM",
                   help="how far the playing surface lies below the rails' top (where the "
                        "markers are), mm: measure it with a ruler (default: %(default)s)")
    o = sub.add_parser("overlay", help="draw the calibrated layout on a frame")
    o.add_argument("image", type=Path)
    o.add_argument("--calibration", type=Path, default=Path("calibration.json"))
    o.add_argument("--out", type=Path, default=Path("overlay.jpg"))


def parse_corners(values: list[str]) -> list[tuple[float, float]]:
    """The ``--corners`` option's four X,Y pairs.

    Args:
        values: the option's words.

    Returns:
        The corners in pixels.

    Raises:
        UsageError: for a word that is not two numbers joined by a comma.
    """
    from tablier.cli import UsageError
    out: list[tuple[float, float]] = []
    for v in values:
        try:
            x, y = (float(p) for p in v.split(","))
        except ValueError:
            raise UsageError(f"--corners takes X,Y pairs, not {v!r}") from None
        out.append((x, y))
    return out


def _write(path: Path, image: object, *, rgb: bool = True) -> None:
    import numpy as np

    from tablier.cli import UsageError
    from tablier.vision.imageio import write_image
    try:
        write_image(path, np.asarray(image, np.uint8), rgb=rgb)
    except OSError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    """Run one calibration step.

    Args:
        args: the parsed options.

    Returns:
        0 on success.

    Raises:
        UsageError: for unreadable images, a board that cannot be found or a bad calibration.
    """
    from tablier.calibration.calibration import Calibration, CalibrationError
    from tablier.calibration.flow import calibrate_frame, draw_overlay
    from tablier.calibration.lens import calibrate_lens, charuco_sheet, load_lens, save_lens
    from tablier.calibration.markers import marker_sheet
    from tablier.cli import UsageError
    from tablier.vision.errors import RecognitionError
    from tablier.vision.imageio import read_image

    try:
        if args.step == "markers":
            _write(args.out, marker_sheet(dpi=args.dpi), rgb=False)
            print(f"wrote {args.out}: print it at 100% and stick id 0 top-left, 1 top-right, "
                  "2 bottom-right, 3 bottom-left (White's talon bottom-left)")
        elif args.step == "lens":
            if args.sheet:
                _write(args.sheet, charuco_sheet(), rgb=False)
                print(f"wrote {args.sheet}: print it, photograph it flat from a dozen angles")
            if args.photos:
                lens = calibrate_lens([read_image(p) for p in args.photos])
                save_lens(lens, args.out)
                print(f"wrote {args.out}: reprojection error {lens.rms:.2f} px")
            elif not args.sheet:
                raise UsageError("give ChArUco photographs, or --sheet to write the sheet")
        elif args.step == "board":
            board_lens = load_lens(args.lens) if args.lens else None
            corners = parse_corners(args.corners) if args.corners else None
            frame = read_image(args.image)
            if not 0 <= args.surface_depth <= 80:
                raise UsageError(f"--surface-depth {args.surface_depth} mm is out of range 0..80")
            from dataclasses import replace

            from tablier.calibration.geometry import BoardGeometry
            geometry = replace(BoardGeometry(), surface_depth=args.surface_depth)
            cal = calibrate_frame(frame, corners=corners, lens=board_lens, geometry=geometry)
            cal.save(args.out)
            _write(args.overlay, draw_overlay(cal, frame))
            how = "markers" if corners is None else "the corners given"
            print(f"board found by {how}; wrote {args.out} and the overlay {args.overlay}: "
                  "check that every outline sits on the board")
            from tablier.calibration.profile import look_alike_warnings
            from tablier.vision.recognizer import small_dice_warnings
            for line in look_alike_warnings(cal.profile) + small_dice_warnings(cal):
                print(line, file=sys.stderr)
        else:
            cal = Calibration.load(args.calibration)
            frame = read_image(args.image)
            cal.check_frame(frame.shape[1], frame.shape[0])
            _write(args.out, draw_overlay(cal, frame))
            print(f"wrote {args.out}")
    except CalibrationError as exc:
        raise UsageError(str(exc)) from None
    except RecognitionError as exc:
        raise UsageError(exc.reason) from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:  # the calibration or lens file could not be written
        raise UsageError(str(exc)) from None
    return 0
