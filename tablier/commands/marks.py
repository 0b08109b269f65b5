"""Where the jetons, fichets and pavillon stand after a list of throws, from the start of a match.

Reads one JSON request (a file, or ``-`` for stdin):

  {"throws": [{"by": "white", "gains": {"white": 8, "black": 0}},
              {"by": "black", "gains": {"white": 0, "black": 10}},
              {"by": "white", "gains": {"white": 26, "black": 12}, "decision": "stay"}]}

Each throw lists what it gave each player (the roller's own jans, and what it gave the
opponent: false hits, contre-jans, helpless men). ``decision`` is the roller's choice when his
own gains made a hole: "stay" (tenir, the default) or "go" (s'en aller). With --json the answer
is one JSON object:

  {"white": {"holes": 3, "points": 0, "bredouille": false},
   "black": {"holes": 2, "points": 0, "bredouille": false},
   "pavillon": "black", "winner": null}

Bad input (odd or negative gains, a decision where none is allowed: no hole by the roller's own
gains, or the match over; an unknown key or colour)
exits with status 2 and one line on stderr naming the field and the value.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tablier.cli import UsageError
from tablier.commands._request import read_json
from tablier.engine.base import Color
from tablier.engine.match import Choice, Decision, Game, Mark, MatchError, Throw
from tablier.engine.score import TOKEN_SPOTS, MatchScore, WinningsScheme

HELP = "where the jetons, fichets and pavillon stand"

_THROW_KEYS = ("by", "gains", "decision")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("request", nargs="?", default="-",
                        help="the JSON request file, or - for stdin (the default)")
    parser.add_argument("--json", action="store_true", help="answer in JSON (design.md)")
    parser.add_argument("--events", action="store_true",
                        help="print the match events instead, one JSON object per line")
    parser.add_argument("--scheme", choices=[s.value for s in WinningsScheme],
                        default=WinningsScheme.SIXTH_HOLE.value,
                        help="how winnings are counted when the match is over")


def run(args: argparse.Namespace) -> int:
    """Answer one request.

    Args:
        args: the parsed arguments.

    Returns:
        0.

    Raises:
        UsageError: for a malformed or impossible request (one line naming field and value).
    """
    request = read_json(args.request)
    game = score_throws(request)
    if args.events:
        for event in game.history:
            print(json.dumps(event.to_json()))
    elif args.json:
        print(json.dumps(game.score.to_json()))
    else:
        print(describe(game.score, scheme=WinningsScheme(args.scheme)))
    return 0



def score_throws(request: object) -> Game:
    """Build the match of a ``marks`` request, validating every field.

    Args:
        request: the decoded JSON request.

    Returns:
        The game after every throw.

    Raises:
        UsageError: naming the first bad field and its value.

    >>> g = score_throws({"throws": [{"by": "white", "gains": {"white": 10, "black": 0}},
    ...                              {"by": "white", "gains": {"white": 6, "black": 0}}]})
    >>> g.score.white
    Score(points=4, holes=2, bredouille=True)
    """
    if not isinstance(request, dict):
        raise UsageError(f"request: expected a JSON object, not {_short(request)}")
    for key in request:
        if key != "throws":
            raise UsageError(f"request: unknown key {key!r} (expected 'throws')")
    throws = request.get("throws", [])
    if not isinstance(throws, list):
        raise UsageError(f"throws: expected a list, not {_short(throws)}")
    game = Game()
    for index, throw in enumerate(throws):
        _one_throw(game, index, throw)
    return game


def _one_throw(game: Game, index: int, throw: object) -> None:
    where = f"throws[{index}]"
    if not isinstance(throw, dict):
        raise UsageError(f"{where}: expected an object, not {_short(throw)}")
    for key in throw:
        if key not in _THROW_KEYS:
            raise UsageError(f"{where}: unknown key {key!r} (expected by, gains, decision)")
    by = _colour(f"{where}.by", throw.get("by"))
    if "gains" not in throw:
        raise UsageError(f"{where}.gains: missing")
    gains = throw["gains"]
    if not isinstance(gains, dict):
        raise UsageError(f"{where}.gains: expected an object, not {_short(gains)}")
    points = {Color.WHITE: 0, Color.BLACK: 0}
    for name, value in gains.items():
        color = _colour(f"{where}.gains key", name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"{where}.gains.{name}: {_short(value)} is not an integer")
        if value < 0:
            raise UsageError(f"{where}.gains.{name}: {value} is negative")
        if value % 2:
            raise UsageError(f"{where}.gains.{name}: {value} is odd (points go in twos)")
        points[color] = value
    decision = throw.get("decision")
    if "decision" in throw and decision not in ("stay", "go"):
        raise UsageError(f"{where}.decision: {_short(decision)} is not 'stay' or 'go'")
    winner = game.score.winner
    if winner is not None:
        raise UsageError(f"{where}: the match is already over ({winner.value} won)")
    try:
        game.push(Throw(by))
        game.push(Mark(by, points[by]))
        if game.score.winner is not None:
            if decision is not None:
                raise UsageError(f"{where}.decision: {decision!r} but {by.value}'s own gains "
                                 f"ended the match, so there is nothing to decide")
            return
        turn = game.state.turn
        assert turn is not None
        if not turn.won_hole:
            if decision is not None:
                raise UsageError(f"{where}.decision: {decision!r} but {by.value}'s own gains "
                                 f"made no hole, so there is nothing to decide")
        else:
            game.push(Decision(by, Choice(decision or "stay")))
            if decision == "go":
                return
        if points[by.other()]:
            game.push(Mark(by.other(), points[by.other()]))
    except MatchError as exc:
        raise UsageError(f"{where}: {exc}") from None


def _colour(where: str, value: object) -> Color:
    if value not in ("white", "black"):
        raise UsageError(f"{where}: {_short(value)} is not 'white' or 'black'")
    return Color(value)


def _short(value: object) -> str:
    text = json.dumps(value) if _jsonable(value) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def describe(score: MatchScore, *, scheme: WinningsScheme = WinningsScheme.SIXTH_HOLE) -> str:
    """The score in words, one line per player, then the pavillon and the winner.

    Args:
        score: the score to describe.
        scheme: how to count winnings once the match is over.

    Returns:
        The text.

    Raises:
        Nothing.

    >>> print(describe(MatchScore()))
    white: 0 holes, 0 points (jeton by the talons)
    black: 0 holes, 0 points (jeton by the talons)
    pavillon: middle
    """
    marks = score.marks()
    lines = []
    for color, pm in ((Color.WHITE, marks.white), (Color.BLACK, marks.black)):
        s = score[color]
        spot = "by the talons" if s.points == 0 else f"on field {TOKEN_SPOTS[s.points]}"
        extra = ", in bredouille" if s.points and s.bredouille else ""
        jeton = " with the bredouille jeton" if pm.bredouille_token else ""
        holes = "1 hole" if s.holes == 1 else f"{s.holes} holes"
        lines.append(f"{color.value}: {holes}, {s.points} points "
                     f"(jeton {spot}{jeton}{extra})")
    lines.append(f"pavillon: {score.pavillon.value}")
    if score.winner is not None:
        kind = " grande bredouille" if score.grande_bredouille else ""
        lines.append(f"{score.winner.value} wins{kind}: {score.winnings(scheme)} stake(s) "
                     f"({scheme.value} scheme)")
    return "\n".join(lines)
