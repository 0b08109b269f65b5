"""What is owed on one throw: every jan, to whom, and why (the dispute tool).

Human form: a position in the engine's notation (or a JSON request) and the dice:

    tablier jans "1x13,3,5/1x14,16 w" 64
    tablier jans "1x11,2,3,4,5/1x15 w" 65 --throws 3

prints the board as the player to move sees it from his seat (fields in his own numbering,
his side the bottom row), every jan with a one-line reason and the totals for each player.

Contract form (docs/rules.md, design.md): one JSON request on stdin, one JSON answer on stdout:

    echo '{"white": {"1": 13, "3": 1, "5": 1}, "black": {"1": 15},
           "to_move": "white", "dice": [6, 4], "throws": 3}' | tablier jans --json -

A malformed request or an impossible position is refused: one line on stderr naming the field
and the value (or the position's status flags), exit status 2, nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tablier.cli import UsageError
from tablier.commands._request import parse_json, read_json
from tablier.engine import (
    Color,
    Dice,
    EngineError,
    Jan,
    Position,
    RuleOptions,
    jans,
    legal_moves,
    status_names,
    totals,
)

HELP = "what is owed on one throw (the dispute tool)"

_KEYS = ("white", "black", "off", "to_move", "dice", "throws", "options", "opening_dice")
_OPTION_KEYS = ("provincial_bearing_off", "rencontre", "margot", "pile_de_misere")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("position", nargs="?",
                        help="the position in the notation, e.g. '1x13,3,5/1x15 w', or a "
                             "JSON request")
    parser.add_argument("dice", nargs="?", help="the throw, e.g. 64 or 6-4")
    parser.add_argument("--json", metavar="FILE", dest="json_source",
                        help="read one JSON request from FILE ('-' = stdin), answer in JSON")
    parser.add_argument("--throws", type=int, default=None,
                        help="throws of the player to move in this relevé, this one included")
    parser.add_argument("--provincial", action="store_true",
                        help="bear off by the provincial method")
    parser.add_argument("--obsolete", action="store_true",
                        help="also score the three obsolete jans")
    parser.add_argument("--plays", action="store_true",
                        help="also list every legal play (human form)")


class Request:
    """A parsed ``tablier jans`` request."""

    def __init__(self, position: Position, dice: Dice | None, throws: int | None,
                 options: RuleOptions, opening: Dice | None) -> None:
        self.position = position
        self.dice = dice
        self.throws = throws
        self.options = options
        self.opening = opening


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise UsageError(f"{field}: expected a whole number {lo}..{hi}, got {value!r}")
    return value


def _dice(value: Any, field: str) -> Dice:
    if not isinstance(value, list) or len(value) != 2:
        raise UsageError(f"{field}: expected two dice like [6, 4], got {json.dumps(value)}")
    return Dice(_int(value[0], field, 1, 6), _int(value[1], field, 1, 6))


def _men(value: Any, field: str) -> dict[int, int]:
    if not isinstance(value, dict):
        raise UsageError(f"{field}: expected an object of field -> men, got {json.dumps(value)}")
    men: dict[int, int] = {}
    for key, count in value.items():
        if not (isinstance(key, str) and key.isdigit() and 1 <= int(key) <= 24):
            raise UsageError(f"{field}: a field is \"1\"..\"24\", got {key!r}")
        men[int(key)] = _int(count, f"{field}.{key}", 0, 99)
    return men


def parse_request(data: Any) -> Request:
    """Check and read a JSON request (design.md); missing fields take a fresh relevé's values.

    Args:
        data: the decoded JSON.

    Returns:
        The request.

    Raises:
        UsageError: naming the first bad field and its value.
    """
    if not isinstance(data, dict):
        raise UsageError(f"the request must be a JSON object, got {json.dumps(data)[:60]}")
    for key in data:
        if key not in _KEYS:
            raise UsageError(f"unknown field {key!r} (expected one of {', '.join(_KEYS)})")
    white = _men(data.get("white", {"1": 15}), "white")
    black = _men(data.get("black", {"1": 15}), "black")
    off = data.get("off", {})
    if not isinstance(off, dict) or any(k not in ("white", "black") for k in off):
        raise UsageError(f"off: expected {{\"white\": n, \"black\": n}}, got {json.dumps(off)}")
    off_white = _int(off.get("white", 0), "off.white", 0, 15)
    off_black = _int(off.get("black", 0), "off.black", 0, 15)
    to_move_text = data.get("to_move", "white")
    if to_move_text not in ("white", "black"):
        raise UsageError(f"to_move: expected \"white\" or \"black\", got "
                         f"{json.dumps(to_move_text)}")
    if "dice" not in data:
        raise UsageError("dice: missing (expected two dice like [6, 4])")
    dice = _dice(data["dice"], "dice")
    throws = _int(data.get("throws", 1), "throws", 1, 10_000)
    raw_options = data.get("options", {})
    if not isinstance(raw_options, dict):
        raise UsageError(f"options: expected an object, got {json.dumps(raw_options)}")
    flags: dict[str, bool] = {}
    for key, value in raw_options.items():
        if key not in _OPTION_KEYS or not isinstance(value, bool):
            raise UsageError(f"options.{key}: expected one of {', '.join(_OPTION_KEYS)} set to "
                             f"true or false, got {json.dumps(value)}")
        flags[key] = value
    opening = _dice(data["opening_dice"], "opening_dice") if "opening_dice" in data else None
    position = Position.from_men(white, black, to_move=Color.parse(to_move_text),
                                 off_white=off_white, off_black=off_black)
    return Request(position, dice, throws, RuleOptions(**flags), opening)



def _check_possible(position: Position) -> None:
    status = position.status()
    if status:
        raise UsageError(f"impossible position {position.notation()!r}: "
                         f"{status_names(status)}")


def answer(request: Request) -> dict[str, Any]:
    """The JSON answer of design.md for a request.

    Args:
        request: a parsed request with its dice.

    Returns:
        ``{"jans": [...], "points": {"white": n, "black": n}}``.

    Raises:
        UsageError: if the position is impossible or the dice are missing.
    """
    _check_possible(request.position)
    if request.dice is None:
        raise UsageError("dice: missing (expected two dice like [6, 4])")
    scores = jans(request.position, request.dice, rolls_so_far=request.throws,
                  options=request.options, opening_dice=request.opening)
    points = totals(scores)
    return {"jans": [s.to_json() for s in scores],
            "points": {"white": points[Color.WHITE], "black": points[Color.BLACK]}}


def _human(request: Request, *, show_plays: bool = False) -> str:
    assert request.dice is not None
    position, dice = request.position, request.dice
    scores = jans(position, dice, rolls_so_far=request.throws, options=request.options,
                  opening_dice=request.opening)
    plays = list(legal_moves(position, dice, options=request.options))
    mover = position.to_move.value
    lines = [position.drawing(side=position.to_move), ""]
    when = f", throw {request.throws} of the relevé" if request.throws else ""
    lines.append(f"{mover} throws {dice.high} and {dice.low}{when}; "
                 f"{len(plays)} legal play{'s' if len(plays) != 1 else ''} "
                 f"(fields in each player's own numbering)")
    if not scores:
        lines.append("  no jan: nothing is owed")
    for s in scores:
        way = f"{s.ways} way{'s' if s.ways != 1 else ''}"
        lines.append(f"  {s.player.value:<5} +{s.points:<2} {s.jan.value} ({way}): {s.reason}")
    if show_plays:
        lines.append("legal plays (mover's numbering, 0 = off):")
        lines.extend("  " + (" ".join(str(m) for m in play) or "(none)") for play in plays)
    points = totals(scores)
    lines.append(f"totals: white {points[Color.WHITE]}, black {points[Color.BLACK]}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Answer one request.

    Args:
        args: the parsed arguments.

    Returns:
        0 on success.

    Raises:
        UsageError: for a malformed request or an impossible position.
    """
    options = RuleOptions(args.provincial, args.obsolete, args.obsolete, args.obsolete)
    try:
        if args.json_source is not None:
            if args.position is not None:
                raise UsageError(f"--json takes the whole request; unexpected argument "
                                 f"{args.position!r}")
            request = parse_request(read_json(args.json_source))
            print(json.dumps(answer(request)))
            return 0
        if args.position is None:
            raise UsageError("position: missing (e.g. tablier jans '1x13,3,5/1x15 w' 64, or "
                             "--json -)")
        if args.position.lstrip().startswith("{"):
            data = parse_json(args.position, "position")
            if isinstance(data, dict) and "dice" not in data and args.dice is not None:
                data = {**data, "dice": [int(c) for c in str(Dice.parse(args.dice))]}
            request = parse_request(data)
            if args.throws is not None:
                request.throws = args.throws
            # the flags add to the request's own options (never silently ignored)
            o = request.options
            request.options = RuleOptions(o.provincial_bearing_off or options.provincial_bearing_off,
                                          o.rencontre or options.rencontre,
                                          o.margot or options.margot,
                                          o.pile_de_misere or options.pile_de_misere)
        else:
            position = Position.from_notation(args.position)
            if args.dice is None:
                raise UsageError("dice: missing (e.g. 64)")
            request = Request(position, Dice.parse(args.dice), args.throws, options, None)
        _check_possible(request.position)
        if args.throws is not None and args.throws < 1:
            raise UsageError(f"--throws: expected 1 or more, got {args.throws}")
        print(_human(request, show_plays=args.plays))
        return 0
    except EngineError as exc:
        raise UsageError(str(exc)) from None


__all__ = ["HELP", "Jan", "Request", "add_arguments", "answer", "parse_request", "run"]
