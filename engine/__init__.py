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

# Score keeping, the match as events, schools (score branch) ---------------------------------
from tablier.engine.match import (
    EVENT_VERSION,
    EVENTS,
    Choice,
    Decision,
    Event,
    EventError,
    Game,
    Hole,
    JanOwed,
    Mark,
    MatchEnd,
    MatchError,
    MatchState,
    PavillonMoved,
    Play,
    Releve,
    School,
    Throw,
    event_from_json,
)
from tablier.engine.score import MatchScore, WinningsScheme

__all__ += [
    "EVENTS",
    "EVENT_VERSION",
    "Choice",
    "Decision",
    "Event",
    "EventError",
    "Game",
    "Hole",
    "JanOwed",
    "Mark",
    "MatchEnd",
    "MatchError",
    "MatchScore",
    "MatchState",
    "PavillonMoved",
    "Play",
    "Releve",
    "School",
    "Throw",
    "WinningsScheme",
    "event_from_json",
]
