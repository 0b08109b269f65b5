"""The rules of Grand Trictrac: positions, dice, legal plays, jans, scores and schools.

Pure Python, no dependencies, no I/O. Rules are computed for White; Black goes through
``position.mirror()``.
"""

from tablier.engine.base import (
    CHECKERS_PER_SIDE,
    CORNER,
    HOLES_PER_MATCH,
    OPPONENT_CORNER,
    OPPONENT_TALON,
    POINTS_PER_HOLE,
    TALON,
    Color,
    Dice,
    EngineError,
    Field,
    IllegalMoveError,
    InvalidNotationError,
    mirror_field,
)
from tablier.engine.score import TOKEN_SPOTS, Marks, Pavillon, PlayerMarks, Score, ScoreError

__all__ = [
    "CHECKERS_PER_SIDE", "CORNER", "HOLES_PER_MATCH", "OPPONENT_CORNER", "OPPONENT_TALON",
    "POINTS_PER_HOLE", "TALON", "TOKEN_SPOTS",
    "Color", "Dice", "EngineError", "Field", "IllegalMoveError", "InvalidNotationError",
    "Marks", "Pavillon", "PlayerMarks", "Score", "ScoreError", "mirror_field",
]
