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
from tablier.engine.jans import JAN_POINTS, Jan, JanScore, jans, totals
from tablier.engine.moves import (
    CheckerMove,
    RuleOptions,
    apply_play,
    legal_moves,
    legal_positions,
    random_position,
)
from tablier.engine.position import Position, Status, status_names
from tablier.engine.score import TOKEN_SPOTS, Marks, Pavillon, PlayerMarks, Score, ScoreError

__all__ = [
    "CHECKERS_PER_SIDE",
    "CORNER",
    "HOLES_PER_MATCH",
    "JAN_POINTS",
    "OPPONENT_CORNER",
    "OPPONENT_TALON",
    "POINTS_PER_HOLE",
    "TALON",
    "TOKEN_SPOTS",
    "CheckerMove",
    "Color",
    "Dice",
    "EngineError",
    "Field",
    "IllegalMoveError",
    "InvalidNotationError",
    "Jan",
    "JanScore",
    "Marks",
    "Pavillon",
    "PlayerMarks",
    "Position",
    "RuleOptions",
    "Score",
    "ScoreError",
    "Status",
    "apply_play",
    "jans",
    "legal_moves",
    "legal_positions",
    "mirror_field",
    "random_position",
    "status_names",
    "totals",
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
    random_match,
)
from tablier.engine.school import (
    SchoolKind,
    Verdict,
    broken_obligations,
    false_school,
    judge,
    school_raise,
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
    "SchoolKind",
    "Throw",
    "Verdict",
    "WinningsScheme",
    "broken_obligations",
    "event_from_json",
    "false_school",
    "judge",
    "random_match",
    "school_raise",
]
