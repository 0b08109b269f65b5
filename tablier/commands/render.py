"""Render synthetic board frames with their ground truth (regenerates the fixture sets).

A set: sessions of one board style, camera and lens, each with reference.jpg, its
calibration.json (made by the same code as tablier calibrate) and frames NAME.jpg + NAME.json.
The same seed gives the same set. Examples:

    tablier render out/measure --seed 2 --sessions 8 --frames 50
    tablier render out/game --game --seed 5
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "render synthetic board frames with ground truth"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("out", type=Path, help="the folder to write")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--frames", type=int, default=25, help="frames per session")
    parser.add_argument("--size", default="1640x1232", help="WxH (default: %(default)s)")
    parser.add_argument("--occluders", type=float, default=0.08,
                        help="share of frames with a hand or cup (default: %(default)s)")
    parser.add_argument("--cocked", type=float, default=0.0,
                        help="share of frames with a cocked die, leaning 20-45 degrees "
                             "(default: %(default)s)")
    parser.add_argument("--cocked-anywhere", dest="cocked_against", action="store_false",
                        help="lean a cocked die where it fell, any way, instead of against a "
                             "dame or the rail (how sets with --cocked were rendered before "
                             "2026-11-24's sixth round)")
    parser.add_argument("--by-rail", type=float, default=0.0,
                        help="share of dice lying flat against the rail (default: %(default)s; "
                             "before this option a die lay at least 15 mm from it)")
    parser.add_argument("--on-dames", type=float, default=0.0,
                        help="share of dice lying flat on top of a pile of dames; above 0 "
                             "every other die also lies clear of the dames (default: "
                             "%(default)s, a die may be drawn through a dame at board level)")
    parser.add_argument("--on-die", type=float, default=0.0,
                        help="share of frames whose second die rests on the first, a bad "
                             "throw (default: %(default)s)")
    parser.add_argument("--on-die-reach", type=float, default=1 / 3, metavar="DICE",
                        help="how far off the die below the top die of a stack may lie, in "
                             "dice along each axis (default: a third; smaller draws nearly "
                             "centred stacks, for teaching the stack net)")
    parser.add_argument("--on-die-hidden", dest="hide_below", action="store_true",
                        help="draw a die resting on the other moved toward the point below "
                             "the camera, so that it hides the die below from the camera")
    parser.add_argument("--look-alike", action="store_true",
                        help="draw every board with brown points and brown black dames, whose "
                             "dark points are the black dames' colour (about one board in "
                             "fifteen otherwise; the dames reader may misread fields there)")
    parser.add_argument("--touching", type=float, default=0.0,
                        help="share of frames whose two dice lie flat side by side, touching "
                             "or nearly, a good throw (default: %(default)s; before this option "
                             "two dice lay at least 30 mm apart)")
    parser.add_argument("--depth", type=float, default=0.0, metavar="MM",
                        help="how far the playing surface lies below the rails' top, mm "
                             "(default: %(default)s, the whole board in one plane)")
    parser.add_argument("--no-parallax", dest="parallax", action="store_false",
                        help="draw the dice straight down, not as the camera sees them from "
                             "its place (how the sets committed before this option were made)")
    parser.add_argument("--game", action="store_true",
                        help="render a whole demo game (engine-legal plays) with a manifest")
    parser.add_argument("--releves", type=int, default=1, help="relevés of the demo game")
    parser.add_argument("--throws", type=int, default=12, help="throws per relevé")


def run(args: argparse.Namespace) -> int:
    """Render the set or the game.

    Args:
        args: the parsed options.

    Returns:
        0.

    Raises:
        UsageError: for a bad size or count.
    """
    from tablier.cli import UsageError
    from tablier.vision.render import parse_size

    try:
        w, h = parse_size(args.size)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for name in ("sessions", "frames"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name} must be at least 1, not {getattr(args, name)}")
    for name, top in (("occluders", 1), ("cocked", 1), ("by_rail", 1), ("on_dames", 1),
                      ("on_die", 1), ("on_die_reach", 1), ("touching", 1), ("depth", 80)):
        if not 0 <= getattr(args, name) <= top:
            unit = " mm" if name == "depth" else ""
            raise UsageError(f"--{name.replace('_', '-')} must be 0..{top}{unit}, "
                             f"not {getattr(args, name)}")
    from tablier.calibration.calibration import CalibrationError
    try:
        return _render(args, w, h)
    except CalibrationError as exc:
        raise UsageError(f"the rendered reference frame could not be calibrated: {exc}"
                         " (try a larger --size)") from None


def _progress(session: Path, done: int, total: int) -> None:
    print(f"wrote {session.name} ({done} of {total} sessions)", file=sys.stderr, flush=True)


def _render(args: argparse.Namespace, w: int, h: int) -> int:
    if args.game:
        from tablier.vision.game import write_game
        path = write_game(args.out, seed=args.seed, width=w, height=h, releves=args.releves,
                          throws=args.throws, parallax=args.parallax)
        print(f"wrote the game and its manifest {path}")
        return 0
    from tablier.vision.render import render_set
    folders = render_set(args.out, seed=args.seed, sessions=args.sessions, frames=args.frames,
                         width=w, height=h, occluder_rate=args.occluders,
                         cocked_rate=args.cocked, cocked_against=args.cocked_against,
                         by_rail=args.by_rail, on_dames=args.on_dames,
                         parallax=args.parallax, depth=args.depth, on_die=args.on_die,
                         touching=args.touching, on_die_reach=args.on_die_reach,
                         hide_below=args.hide_below, look_alike=args.look_alike,
                         progress=_progress)
    print(f"wrote {len(folders)} session(s) of {args.frames} frames under {args.out}")
    return 0
