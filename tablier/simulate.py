"""A simulated match seen through a perfect camera: board views with their ground truth.

Used by the tests and the benchmark, and as a stand-in recording when no rendered game is at
hand: random dice and random legal plays (seeded), the dice cup and the hands over the board
between still moments, a go now and then after a hole. The truth of every throw (dice, the
board after the play, the jans owed, the score after it) comes straight from the engine.

>>> views, truth = simulate_match(seed=1, throws=3)
>>> len(truth), truth[0]["by"]
(3, 'white')
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from tablier.engine import Choice, Color, Dice, Game, Hole, Position, jans, legal_positions
from tablier.engine.match import Decision, JanOwed, Mark, Play, Throw
from tablier.tracker import START, Board, BoardView, view_of_board


def simulate_match(*, seed: int = 0, throws: int = 20, still: int = 3, go_rate: float = 0.5,
                   pile: int = 5) -> tuple[list[BoardView], list[dict[str, Any]]]:
    """Play a random match and film it with a perfect camera.

    Args:
        seed: seeds the dice, the plays and the decisions.
        throws: how many throws to play (fewer if the match ends).
        still: still frames per still moment.
        go_rate: the chance that a player goes after winning a hole.
        pile: taller piles show only this many dames (the camera cannot count them).

    Returns:
        The views in order (frame indices from 0, 10 frames a second) and the truth, one
        record per throw: ``by``, ``dice``, ``board`` (after the play, or the talons after a
        go), ``jans`` (``[jan, player, points]``), ``decision`` and ``score``.

    Raises:
        Nothing.
    """
    rng = random.Random(seed)
    game = Game()
    board: Board = START
    views: list[BoardView] = []
    truth: list[dict[str, Any]] = []
    dice_at = ((100.0, 100.0), (140.0, 100.0))

    def film(view: BoardView, count: int) -> None:
        for _ in range(count):
            n = len(views)
            views.append(replace(view, frame=n, t=n / 10))

    cup = BoardView(frame=0, t=0.0, occluded=True)
    film(view_of_board(board, pile=pile), still)
    mover = Color.WHITE
    for _ in range(throws):
        if game.score.winner is not None:
            break
        d = Dice(rng.randint(1, 6), rng.randint(1, 6))
        dice = (d.a, d.b)
        dice_at = ((float(rng.randint(60, 700)), float(rng.randint(60, 500))),
                   (float(rng.randint(60, 700)), float(rng.randint(60, 500))))
        position = _position(board, mover)
        owed = jans(position, d, rolls_so_far=game.state.throws_by(mover) + 1)
        game.push(Throw(mover, d))
        for j in owed:
            game.push(JanOwed(j.jan.value, j.player, j.points, j.ways))
        own = sum(j.points for j in owed if j.player is mover)
        other = sum(j.points for j in owed if j.player is not mover)
        won = bool(own) and any(isinstance(h, Hole) and h.player is mover
                                for h in game.push(Mark(mover, own)))
        film(cup, 1)
        film(replace(view_of_board(board, dice=dice, pile=pile), dice_at=dice_at), still)
        record: dict[str, Any] = {"by": mover.value, "dice": list(dice),
                                  "jans": [[j.jan.value, j.player.value, j.points] for j in owed],
                                  "decision": None}
        if game.score.winner is not None:
            record.update(board=list(board), score=_score(game))
            truth.append(record)
            break
        if other and not won:
            game.push(Mark(mover.other(), other))
        if won:
            choice = Choice.GO if rng.random() < go_rate else Choice.STAY
            record["decision"] = choice.value
            game.push(Decision(mover, choice))
            if choice is Choice.GO:
                board = START
                film(cup, 2)
                film(replace(view_of_board(board, dice=dice, pile=pile), dice_at=dice_at), still)
                record.update(board=list(board), score=_score(game))
                truth.append(record)
                mover = game.state.to_move or mover
                continue
            if other:
                game.push(Mark(mover.other(), other))
        results = legal_positions(position, d)
        after, play = rng.choice(sorted(results.items(), key=lambda kv: kv[0].counts))
        left = after.total(mover) - after.off(mover)
        derived = game.push(Play(mover, tuple((m[0], m[1]) for m in play), last_off=left == 0))
        board = after.counts
        film(cup, 2)
        film(replace(view_of_board(board, dice=dice, pile=pile), dice_at=dice_at), still)
        if any(x.kind == "releve" for x in derived):
            board = START
        record.update(board=list(after.counts), score=_score(game))
        truth.append(record)
        mover = game.state.to_move or mover.other()
    # The dice are taken up at the end: that closes the last play.
    film(cup, 1)
    film(view_of_board(board, pile=pile), still)
    return views, truth


def _position(board: Board, mover: Color) -> Position:
    white = sum(n for n in board if n > 0)
    black = -sum(n for n in board if n < 0)
    return Position.from_counts(list(board), to_move=mover, off_white=15 - white,
                                off_black=15 - black)


def _score(game: Game) -> dict[str, Any]:
    s = game.score
    return {"white": {"points": s.white.points, "holes": s.white.holes,
                      "bredouille": s.white.bredouille},
            "black": {"points": s.black.points, "holes": s.black.holes,
                      "bredouille": s.black.bredouille},
            "pavillon": s.pavillon.value}


__all__ = ["simulate_match"]
