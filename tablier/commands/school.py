"""Settle a school (école) dispute: what was owed on a throw, what was marked, the verdict.

Human form: the position in the engine's notation (or a JSON request as for ``tablier jans``),
the dice, and what the player to move marked; optionally the play he made:

    tablier school "1x4,2x2,3x2,4x2,5x2,6,8x2/1x15 w" 54 0
    tablier school "1x4,2x2,3x2,4x2,5x2,6,8x2/1x15 w" 54 4 --play 1-5,2-6

JSON form (--json FILE, '-' = stdin), one request, one answer:

    {"white": {"1": 4, "2": 2, "3": 2, "4": 2, "5": 2, "6": 1, "8": 2}, "black": {"1": 15},
     "to_move": "white", "dice": [5, 4], "marked": {"white": 4}, "play": [[1, 5], [2, 6]]}

The position fields are those of ``tablier jans`` (design.md); ``marked`` gives what each judged
player marked on this throw (a bare number means the player to move); ``play`` is optional.
Without a position, the jans owed may be given directly (the ``tablier jans`` answer's list):

    {"jans": [{"jan": "true_hit_petit_jan", "scorer": "white", "points": 4}],
     "marked": {"white": 2}, "not_filled": [], "not_preserved": []}

Answer: {"jans": [...], "play": null | {"moves", "legal", "reason"}, "verdicts": [{"player",
"owed", "entitled", "marked", "school", "kinds", "points", "retract", "to", "false_move",
"reasons"}]}. Bad input exits with status 2 and one line on stderr naming the field and value.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from tablier.cli import UsageError
from tablier.commands._request import parse_json, read_json
from tablier.commands.jans import parse_request
from tablier.engine.base import Color, Dice, EngineError, IllegalMoveError
from tablier.engine.jans import Jan, jans
from tablier.engine.match import JanOwed
from tablier.engine.position import Position, status_names
from tablier.engine.school import JanLike, Verdict, broken_obligations, jan_name, judge

HELP = "settle a school (école) dispute"

_OWN_KEYS = ("marked", "play")
_EXPLICIT_KEYS = ("jans", "marked", "not_filled", "not_preserved")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("position", nargs="?",
                        help="the position in the notation, e.g. '1x13,3,5/1x15 w'")
    parser.add_argument("dice", nargs="?", help="the throw, e.g. 64")
    parser.add_argument("marked", nargs="?", type=str,
                        help="the points the player to move marked on this throw")
    parser.add_argument("--play", help="the play he made, e.g. 1-5,2-6 (fields in his own "
                                       "numbering, 'off' when borne off)")
    parser.add_argument("--throws", type=int, default=None,
                        help="his throws in this relevé, this one included")
    parser.add_argument("--opponent-marked", type=str, default=None,
                        help="what the opponent marked on this throw, to judge him too")
    parser.add_argument("--json", metavar="FILE", dest="json_source",
                        help="read one JSON request from FILE ('-' = stdin), answer in JSON")


def run(args: argparse.Namespace) -> int:
    """Judge one throw.

    Args:
        args: the parsed arguments.

    Returns:
        0 (a school found is an answer, not an error).

    Raises:
        UsageError: for a malformed request, an impossible position or a play that cannot be
            made on the board.
    """
    try:
        if args.json_source is not None:
            if args.position is not None:
                raise UsageError(f"--json takes the whole request; unexpected argument "
                                 f"{args.position!r}")
            result = settle(read_json(args.json_source))
            print(json.dumps(result))
            return 0
        result = settle(_human_request(args))
        print(describe(result))
        return 0
    except EngineError as exc:
        raise UsageError(str(exc)) from None



def _points(value: Any, field: str) -> int:
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?[0-9]+\s*", value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{field}: {json.dumps(value)} is not a number of points")
    if value < 0:
        raise UsageError(f"{field}: {value} is negative")
    if value % 2:
        raise UsageError(f"{field}: {value} is odd (points go in twos)")
    return value


def _play_text(text: str) -> list[list[int]]:
    moves: list[list[int]] = []
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        ends = part.split("-")
        if len(ends) != 2 or not ends[0].isdigit() or not (ends[1].isdigit()
                                                            or ends[1] == "off"):
            raise UsageError(f"--play: {part!r} is not a move like 1-5 or 20-off")
        moves.append([int(ends[0]), 0 if ends[1] == "off" else int(ends[1])])
    return moves


def _human_request(args: argparse.Namespace) -> dict[str, Any]:
    if args.position is None or args.dice is None or args.marked is None:
        raise UsageError("position, dice and marked are needed (e.g. tablier school "
                         "'1x13,3,5/1x15 w' 64 4), or --json -")
    dice = Dice.parse(args.dice)
    request: dict[str, Any]
    if args.position.lstrip().startswith("{"):
        data = parse_json(args.position, "position")
        if not isinstance(data, dict):
            raise UsageError(f"position: expected a JSON object, not {args.position[:40]!r}")
        request = {**data, "dice": [dice.a, dice.b]}
        mover = request.get("to_move", "white")
    else:
        position = Position.from_notation(args.position)
        mover = position.to_move.value
        request = {
            "white": {str(f): c for f, c in position.men(Color.WHITE).items()},
            "black": {str(f): c for f, c in position.men(Color.BLACK).items()},
            "off": {"white": position.off(Color.WHITE), "black": position.off(Color.BLACK)},
            "to_move": mover, "dice": [dice.a, dice.b],
        }
    request["marked"] = {mover: _points(args.marked, "marked")}
    if args.throws is not None:
        request["throws"] = args.throws
    if args.opponent_marked is not None and mover in ("white", "black"):
        request["marked"][Color(mover).other().value] = _points(args.opponent_marked,
                                                                "--opponent-marked")
    if args.play is not None:
        request["play"] = _play_text(args.play)
    return request


def settle(request: Any) -> dict[str, Any]:
    """Answer one school request (either form, see the module's description).

    Args:
        request: the decoded JSON request.

    Returns:
        The answer: the jans owed, the play's legality, one verdict per judged player.

    Raises:
        UsageError: naming the first bad field and its value.
        EngineError: for a malformed position (turned into a UsageError by :func:`run`).
    """
    if not isinstance(request, dict):
        raise UsageError(f"request: expected a JSON object, not {json.dumps(request)[:40]}")
    if "jans" in request:
        return _settle_explicit(request)
    if "marked" not in request:
        raise UsageError("marked: missing (what each judged player marked, e.g. "
                         "{\"white\": 4})")
    parsed = parse_request({k: v for k, v in request.items() if k not in _OWN_KEYS})
    position = parsed.position
    status = position.status()
    if status:
        raise UsageError(f"impossible position {position.notation()!r}: "
                         f"{status_names(status)}")
    assert parsed.dice is not None
    owed = jans(position, parsed.dice, rolls_so_far=parsed.throws, options=parsed.options,
                opening_dice=parsed.opening)
    marked = _marked(request["marked"], default=position.to_move)
    play_answer: dict[str, Any] | None = None
    not_filled: tuple[JanLike, ...] = ()
    not_preserved: tuple[JanLike, ...] = ()
    if "play" in request:
        moves = _moves(request["play"])
        try:
            not_filled, not_preserved = broken_obligations(position, moves, owed)
        except IllegalMoveError as exc:
            raise UsageError(f"play: {exc}") from None
        legal, reason = True, None
        try:
            position.apply(moves, dice=parsed.dice, options=parsed.options)
        except IllegalMoveError as exc:
            legal, reason = False, f"a false move (fausse case): {exc}"
        play_answer = {"moves": [list(m) for m in moves], "legal": legal, "reason": reason}
    verdicts = [judge(owed, player=color, marked=points,
                      not_filled=not_filled if color is position.to_move else (),
                      not_preserved=not_preserved if color is position.to_move else ())
                for color, points in marked]
    return {"jans": [j.to_json() for j in owed], "play": play_answer,
            "verdicts": [v.to_json() for v in verdicts]}


def _marked(value: Any, *, default: Color) -> list[tuple[Color, int]]:
    if not isinstance(value, dict):
        return [(default, _points(value, "marked"))]
    out = []
    for key, points in value.items():
        if key not in ("white", "black"):
            raise UsageError(f"marked: {key!r} is not 'white' or 'black'")
        out.append((Color(key), _points(points, f"marked.{key}")))
    if not out:
        raise UsageError("marked: {} names nobody to judge")
    return out


def _moves(value: Any) -> tuple[tuple[int, int], ...]:
    ok = isinstance(value, list) and all(
        isinstance(m, list) and len(m) == 2
        and all(isinstance(f, int) and not isinstance(f, bool) and 0 <= f <= 24 for f in m)
        for m in value)
    if not ok:
        raise UsageError(f"play: {json.dumps(value)[:60]} is not a list of [from, to] fields "
                         f"0..24")
    return tuple((m[0], m[1]) for m in value)


def _settle_explicit(request: dict[str, Any]) -> dict[str, Any]:
    for key in request:
        if key not in _EXPLICIT_KEYS:
            raise UsageError(f"unknown field {key!r} (with 'jans' expected "
                             f"{', '.join(_EXPLICIT_KEYS)})")
    raw = request["jans"]
    if not isinstance(raw, list):
        raise UsageError(f"jans: expected a list, not {json.dumps(raw)[:40]}")
    owed: list[JanOwed] = []
    for i, item in enumerate(raw):
        owed.append(_jan(item, f"jans[{i}]"))
    if "marked" not in request:
        raise UsageError("marked: missing (what each judged player marked, e.g. "
                         "{\"white\": 4})")
    if not isinstance(request["marked"], dict):
        raise UsageError(f"marked: expected an object like {{\"white\": 4}}, not "
                         f"{json.dumps(request['marked'])[:40]}")
    marked = _marked(request["marked"], default=Color.WHITE)
    lists = {}
    for key in ("not_filled", "not_preserved"):
        names = request.get(key, [])
        if not isinstance(names, list):
            raise UsageError(f"{key}: expected a list of jan names, not "
                             f"{json.dumps(names)[:40]}")
        picked = []
        for name in names:
            found = [j for j in owed if j.jan == name]
            if not found:
                raise UsageError(f"{key}: {json.dumps(name)} is not among the jans owed")
            picked.append(found[0])
        lists[key] = picked
    verdicts: list[Verdict] = []
    for color, points in marked:
        verdicts.append(judge(owed, player=color, marked=points,
                              not_filled=[j for j in lists["not_filled"] if j.player is color],
                              not_preserved=[j for j in lists["not_preserved"]
                                             if j.player is color]))
    return {"jans": [{"jan": j.jan, "scorer": j.player.value, "points": j.points,
                      "ways": j.ways} for j in owed],
            "play": None, "verdicts": [v.to_json() for v in verdicts]}


def _jan(item: Any, where: str) -> JanOwed:
    if not isinstance(item, dict):
        raise UsageError(f"{where}: expected an object, not {json.dumps(item)[:40]}")
    for key in item:
        if key not in ("jan", "scorer", "points", "ways"):
            raise UsageError(f"{where}: unknown key {key!r} (expected jan, scorer, points, ways)")
    name = item.get("jan")
    if name not in {j.value for j in Jan}:
        raise UsageError(f"{where}.jan: {json.dumps(name)} is not a jan identifier")
    scorer = item.get("scorer")
    if scorer not in ("white", "black"):
        raise UsageError(f"{where}.scorer: {json.dumps(scorer)} is not 'white' or 'black'")
    points = _points(item.get("points"), f"{where}.points")
    ways = item.get("ways", 1)
    if isinstance(ways, bool) or not isinstance(ways, int) or ways < 1:
        raise UsageError(f"{where}.ways: {json.dumps(ways)} is not a whole number >= 1")
    return JanOwed(name, Color(scorer), points, ways)


def describe(answer: dict[str, Any]) -> str:
    """The answer in words: the jans owed, the play, then each verdict with its reasons.

    Args:
        answer: what :func:`settle` returned.

    Returns:
        The text.

    Raises:
        Nothing.
    """
    lines = ["owed on this throw:"]
    if not answer["jans"]:
        lines.append("  nothing")
    for j in answer["jans"]:
        lines.append(f"  {j['scorer']:<5} +{j['points']:<2} {j['jan']} ({j['ways']} way"
                     f"{'s' if j['ways'] != 1 else ''})")
    play = answer["play"]
    if play is not None:
        shown = ", ".join(f"{f}-{t or 'off'}" for f, t in play["moves"]) or "no move"
        lines.append(f"play {shown}: " + ("legal" if play["legal"] else play["reason"]))
    for v in answer["verdicts"]:
        if v["school"]:
            head = (f"{v['player']} goes to school ({', '.join(v['kinds'])}): {v['to']} marks "
                    f"{v['points']}")
            if v["retract"]:
                head += f", {v['retract']} come off {v['player']}'s jeton"
        else:
            head = f"{v['player']}: no school"
        lines.append(head)
        lines.extend(f"  - {r}" for r in v["reasons"])
    return "\n".join(lines)


__all__ = ["HELP", "add_arguments", "describe", "jan_name", "run", "settle"]
