"""The ``tablier`` command line: one console script with subcommands.

Each subcommand lives in its own module under :mod:`tablier.commands` and is imported only when
it is asked for, so ``tablier jans`` never pays for OpenCV.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from tablier import __version__

# name -> (module, one-line help); the module is imported lazily.
COMMANDS: dict[str, tuple[str, str]] = {
    "jans": ("tablier.commands.jans", "what is owed on one throw (the dispute tool)"),
    "marks": ("tablier.commands.marks", "where the jetons, fichets and pavillon stand"),
    "school": ("tablier.commands.school", "settle a school (école) dispute"),
    "markers": ("tablier.commands.markers", "drive the LEDs or peg driver (markers test)"),
    "dice": ("tablier.commands.dice", "read the dice on any photograph"),
    "see": ("tablier.commands.see", "read a calibrated frame into an observation"),
    "calibrate": ("tablier.commands.calibrate", "calibrate the camera and the board"),
    "eval": ("tablier.commands.evaluate", "measure the vision on a fixture set"),
    "render": ("tablier.commands.render", "render synthetic board frames with ground truth"),
    "replay": ("tablier.commands.replay", "replay a recorded game through the whole pipeline"),
    "watch": ("tablier.commands.watch", "score a live game from the camera"),
    "log": ("tablier.commands.log", "export a match journal as a record and a chart"),
}


class UsageError(Exception):
    """A command was called with input it cannot use; the message is shown as one line."""


def _load(name: str) -> ModuleType | None:
    module_name = COMMANDS[name][0]
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, ModuleType]]:
    """Build the argument parser for every available subcommand.

    Returns:
        The parser and the loaded command modules by name.

    Raises:
        ImportError: if a command module exists but fails to import.
    """
    parser = argparse.ArgumentParser(
        prog="tablier",
        description="A companion for the real game of trictrac.",
    )
    parser.add_argument("--version", action="version", version=f"tablier {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    loaded: dict[str, ModuleType] = {}
    for name, (_, help_text) in COMMANDS.items():
        module = _load(name)
        if module is None:
            continue
        loaded[name] = module
        sp = sub.add_parser(name, help=help_text, description=getattr(module, "__doc__", None),
                            formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sp)
    return parser, loaded


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: the arguments, without the program name; ``sys.argv[1:]`` when None.

    Returns:
        The exit status: 0 on success, 2 for bad input, 1 for other failures.

    Raises:
        SystemExit: from argparse on ``--help`` or a usage error.
    """
    # NOTE: set before any command imports numpy. The nets' matrix products are small: OpenBLAS's
    # threads gain nothing on them, and where the cores are busy (the camera, the companion)
    # they wait on each other (docs/vision.md, fifty-eighth round). A value given is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser, loaded = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(loaded[args.command].run(args) or 0)
    except UsageError as exc:
        print(f"tablier {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tablier {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
