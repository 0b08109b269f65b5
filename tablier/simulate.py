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

import json
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tablier.engine import Choice, Color, Dice, Game, Hole, Position, jans, legal_positions
from tablier.engine.match import Decision, JanOwed, Mark, Play, Throw
from tablier.tracker import START, Board, BoardView, view_of_board


@dataclass(frozen=True)
class Moment:
    """One moment of a simulated match, as a renderer needs it."""

    board: Board
    """The dames."""
    dice: tuple[int, int] | None
    """The dice lying on the board, None while in the cup."""
    phase: str
    """``"throw"`` (cup over the board), ``"play"`` (a hand), ``"settled"`` or ``"after"``."""


def simulate_match(*, seed: int = 0, throws: int = 20, still: int = 3, go_rate: float = 0.5,
                   pile: int = 5, moments: list[Moment] | None = None,
                   ) -> tuple[list[BoardView], list[dict[str, Any]]]:
    """Play a random match and film it with a perfect camera.

    Args:
        seed: seeds the dice, the plays and the decisions.
        throws: how many throws to play (fewer if the match ends).
        still: still frames per still moment.
        go_rate: the chance that a player goes after winning a hole.
        pile: taller piles show only this many dames (the camera cannot count them).
        moments: when given, receives every moment filmed (for :func:`write_rendered_game`).

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

    def film(view: BoardView, count: int, phase: str = "after") -> None:
        if moments is not None:
            moments.append(Moment(board=board, dice=view.dice, phase=phase))
        for _ in range(count):
            n = len(views)
            views.append(replace(view, frame=n, t=n / 10))

    cup = BoardView(frame=0, t=0.0, occluded=True)
    film(view_of_board(board, pile=pile), still, "after")
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
        film(cup, 1, "throw")
        film(replace(view_of_board(board, dice=dice, pile=pile), dice_at=dice_at), still,
             "settled")
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
                film(cup, 2, "play")
                film(replace(view_of_board(board, dice=dice, pile=pile), dice_at=dice_at), still,
                     "after")
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
        film(cup, 2, "play")
        film(replace(view_of_board(board, dice=dice, pile=pile), dice_at=dice_at), still,
             "after")
        if any(x.kind == "releve" for x in derived):
            board = START
        record.update(board=list(after.counts), score=_score(game))
        truth.append(record)
        mover = game.state.to_move or mover.other()
    # The dice are taken up at the end: that closes the last play.
    film(cup, 1, "throw")
    film(view_of_board(board, pile=pile), still, "after")
    return views, truth


def write_rendered_game(folder: str | Path, *, seed: int = 0, throws: int = 8,
                        frames_per_step: int = 3, width: int = 820,
                        height: int = 616) -> Path:
    """Render a simulated match with the vision part's board renderer, as a recorded game.

    Writes ``frames/NNNN.jpg`` (with each frame's truth beside it), ``calibration.json`` (from
    a reference frame of the same camera) and ``game.json`` (the truth of every throw), the
    layout :func:`tablier.replay.load_game` reads.

    Args:
        folder: where to write (created).
        seed: seeds the match and the rendering.
        throws: throws to play.
        frames_per_step: still frames per still moment.
        width: frame width, pixels.
        height: frame height, pixels.

    Returns:
        The folder.

    Raises:
        ImportError: if the vision part is not installed.
        OSError: if the files cannot be written.
    """
    from tablier.calibration.flow import calibrate_frame
    from tablier.calibration.geometry import BoardGeometry
    from tablier.vision.render import (
        BoardStyle,
        Camera,
        GameStep,
        render_game,
        render_reference,
        write_frame,
    )

    moments: list[Moment] = []
    _, truth = simulate_match(seed=seed, throws=throws, still=frames_per_step,
                              moments=moments)
    out = Path(folder)
    frames = out / "frames"
    frames.mkdir(parents=True, exist_ok=True)
    steps = []
    for m in moments:
        white = {f + 1: n for f, n in enumerate(m.board) if n > 0}
        black = {24 - f: -n for f, n in enumerate(m.board) if n < 0}
        steps.append(GameStep(white=white, black=black, dice=m.dice, phase=m.phase))
    for i, rendered in enumerate(render_game(steps, seed=seed, width=width, height=height,
                                             frames_per_step=frames_per_step)):
        write_frame(rendered, frames, f"{i:04d}")
    import numpy as np

    rng = np.random.default_rng(seed)
    style = BoardStyle.random(rng)  # the same style and camera as render_game's
    camera = Camera.random(rng, width, height, geometry=BoardGeometry())
    reference = render_reference(seed=seed, width=width, height=height, style=style,
                                 camera=camera)
    try:
        calibration = calibrate_frame(reference.image)
    except ValueError:
        # NOTE: the renderer knows where it drew the board: the manual four-corner fallback.
        calibration = calibrate_frame(reference.image, corners=reference.truth["quad"])
    calibration.save(out / "calibration.json")
    (frames / "frames.json").write_text(json.dumps({"fps": 10}))
    game = {"white": "White", "black": "Black", "first": "white", "fps": 10,
            "source": f"simulated match {seed}, rendered", "frames": "frames",
            "throws": truth}
    (out / "game.json").write_text(json.dumps(game, indent=1) + "\n")
    return out


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


__all__ = ["Moment", "simulate_match", "write_rendered_game"]
