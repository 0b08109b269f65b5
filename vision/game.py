"""Whole recorded games: engine-legal plays rendered as a frame sequence with a manifest.

:func:`demo_game` plays random legal plays with the rules engine (``legal_moves``, the jans
owed and the score kept by :class:`tablier.engine.match.Game`), and :func:`write_game` renders
every throw as a recording would show it: the cup over the board (occluded), the dice settled
(the jans are owed now), a hand moving the dames (occluded), the play made. The folder holds
``reference.jpg`` and ``calibration.json`` (calibrated like ``tablier calibrate board``), the
frames ``frame_NNN.jpg`` each with its truth ``frame_NNN.json``, and ``manifest.json``::

    {"format": "tablier-game", "version": 1, "seed": 5, "image": [820, 616],
     "calibration": "calibration.json", "reference": "reference.jpg",
     "throws": [{"index": 0, "by": "white", "dice": [6, 4], "throws_in_releve": 1,
                 "position_before": "1x15/1x15 w", "play": [[1, 7], [1, 5]],
                 "position_after": "...", "jans": [{"jan": ..., "player": ..., "points": ...}],
                 "marks_after": {"white": {...}, "black": {...}, "pavillon": "middle"}}],
     "frames": [{"file": "frame_000.jpg", "truth": "frame_000.json", "throw": 0,
                 "phase": "throw" | "settled" | "play" | "after", "occluded": true}]}

Positions use the engine's notation (``Position(notation)`` pastes back).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tablier.calibration.geometry import BoardGeometry
from tablier.engine import Color, Dice, Marks, Position, legal_moves, totals
from tablier.vision.render import (
    BoardStyle,
    Camera,
    GameStep,
    Lighting,
    Scene,
    render_frame,
    render_game,
    write_frame,
)

MANIFEST_FORMAT = "tablier-game"
"""The ``format`` of a game manifest."""
MANIFEST_VERSION = 1
"""The manifest's version."""


@dataclass(frozen=True)
class DemoThrow:
    """One throw of a demo game and what it led to."""

    by: Color
    """Who threw."""
    dice: Dice
    """The throw."""
    before: Position
    """The position at the throw."""
    play: tuple[tuple[int, int], ...]
    """The play made (mover's numbering)."""
    after: Position
    """The position after the play."""
    jans: tuple[dict[str, Any], ...]
    """The jans owed on the throw (name, player, points, ways)."""
    marks_before: Marks
    """Markers before the throw was marked."""
    marks_after: Marks
    """Markers after both players marked."""
    throws_in_releve: int
    """Throws ``by`` made in this relevé, this one included."""


def _marks_json(m: Marks) -> dict[str, Any]:
    def one(p: Any) -> dict[str, Any]:
        return {"token_spot": p.token_spot, "bredouille_token": p.bredouille_token,
                "peg_hole": p.peg_hole, "pavillon": p.pavillon}
    return {"white": one(m.white), "black": one(m.black), "pavillon": m.pavillon.value}


def demo_game(*, seed: int = 0, throws: int = 12) -> list[DemoThrow]:
    """Play a short game of random legal plays with the engine, scoring every jan.

    Args:
        seed: seeds the dice and the choice of plays.
        throws: how many throws to play.

    Returns:
        The throws in order.

    Raises:
        EngineError: if the engine refuses an event (a bug in one of the two).
    """
    from tablier.engine.match import Choice, Decision, Game, Hole, Mark
    rng = random.Random(seed)
    game = Game(track_position=True)
    color = Color.WHITE
    out: list[DemoThrow] = []
    for _ in range(throws):
        state = game.state
        before = state.position
        assert before is not None
        marks_before = Marks.from_scores(game.score.white, game.score.black, game.score.pavillon)
        dice = Dice.roll(rng)
        owed = game.throw(color, dice)
        gains = totals(owed)
        if gains.get(color, 0):
            derived = game.push(Mark(color, gains[color]))
            if any(isinstance(e, Hole) and e.player is color for e in derived):
                game.push(Decision(color, Choice.STAY))
        position = game.state.position
        assert position is not None
        plays = list(legal_moves(position, dice))
        play = tuple((int(m[0]), int(m[1])) for m in rng.choice(plays))
        game.play(play)
        other = color.other()
        if gains.get(other, 0):
            game.push(Mark(other, gains[other]))
        after = game.state.position
        assert after is not None
        out.append(DemoThrow(
            by=color, dice=dice, before=before, play=play, after=after,
            jans=tuple({"jan": j.jan.value, "player": j.player.value, "points": j.points,
                        "ways": j.ways} for j in owed),
            marks_before=marks_before,
            marks_after=Marks.from_scores(game.score.white, game.score.black,
                                          game.score.pavillon),
            throws_in_releve=game.state.throws_by(color)))
        color = other
    return out


def game_steps(throws: list[DemoThrow]) -> list[GameStep]:
    """The moments to render for each throw: cup, dice settled, hand, play made.

    Args:
        throws: the game.

    Returns:
        Four steps per throw.

    Raises:
        Nothing.
    """
    steps: list[GameStep] = []
    for i, t in enumerate(throws):
        d = (t.dice.a, t.dice.b)
        w0, b0 = t.before.men(Color.WHITE), t.before.men(Color.BLACK)
        w1, b1 = t.after.men(Color.WHITE), t.after.men(Color.BLACK)
        label = f"throw {i}: {t.by.value} {t.dice}"
        steps += [GameStep(w0, b0, None, t.marks_before, "throw", label),
                  GameStep(w0, b0, d, t.marks_before, "settled", label),
                  GameStep(w0, b0, d, t.marks_after, "play", label),
                  GameStep(w1, b1, d, t.marks_after, "after", label)]
    return steps


def write_game(out: Path, *, seed: int = 5, width: int = 820, height: int = 616,
               releves: int = 1, throws: int = 12, frames_per_step: int = 2,
               parallax: bool = True) -> Path:
    """Render a demo game into ``out`` with its calibration and manifest.

    Args:
        out: the folder (created).
        seed: seeds the game and the rendering.
        width: frame width, pixels.
        height: frame height, pixels.
        releves: games to chain (each starts from the talons; only 1 is supported now).
        throws: throws per game.
        frames_per_step: still frames per still moment (hand frames get one).
        parallax: see :func:`tablier.vision.render.render_frame`.

    Returns:
        The manifest's path.

    Raises:
        ValueError: if ``releves`` is not 1.
        OSError: if files cannot be written.
    """
    from tablier.calibration.flow import calibrate_frame
    if releves != 1:
        raise ValueError(f"only one relevé per demo game is supported, not {releves!r}")
    rng = np.random.default_rng(seed)
    g = BoardGeometry()
    style = BoardStyle.random(rng)
    camera = Camera.random(rng, width, height, geometry=g, distortion=False)
    ref = render_frame(Scene.start(), style=style, camera=camera, lighting=Lighting(),
                       seed=seed, geometry=g)
    write_frame(ref, out, "reference")
    calibrate_frame(ref.image, geometry=g).save(out / "calibration.json")
    game = demo_game(seed=seed, throws=throws)
    frames: list[dict[str, Any]] = []
    for k, frame in enumerate(render_game(game_steps(game), seed=seed + 1, width=width,
                                          height=height, style=style, camera=camera,
                                          frames_per_step=frames_per_step,
                                          parallax=parallax)):
        step = int(frame.truth["step"])
        frame.truth["throw"] = step // 4
        frame.truth["position"] = (game[step // 4].before if frame.truth["phase"] != "after"
                                   else game[step // 4].after).notation()
        name = f"frame_{k:03d}"
        write_frame(frame, out, name)
        frames.append({"file": f"{name}.jpg", "truth": f"{name}.json", "throw": step // 4,
                       "phase": frame.truth["phase"], "occluded": frame.truth["occluded"]})
    manifest = {
        "format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, "seed": seed,
        "image": [width, height], "calibration": "calibration.json",
        "reference": "reference.jpg",
        "throws": [{"index": i, "by": t.by.value, "dice": [t.dice.a, t.dice.b],
                    "throws_in_releve": t.throws_in_releve,
                    "position_before": t.before.notation(), "play": [list(m) for m in t.play],
                    "position_after": t.after.notation(), "jans": list(t.jans),
                    "marks_after": _marks_json(t.marks_after)} for i, t in enumerate(game)],
        "frames": frames,
    }
    path = out / "manifest.json"
    path.write_text(json.dumps(manifest, indent=1) + "\n")
    return path
