"""The match as a sequence of events, and :class:`Game`, the one mutable match state.

Every throw, jan owed, mark, decision, play and school is an *input* event pushed on a
:class:`Game`; the game answers with the *derived* events it caused (holes, pavillon moves,
relevés, the end of the match). Replaying the events rebuilds the exact state
(:meth:`Game.replay`). Each event is a small frozen dataclass with ``to_json()`` and
:func:`event_from_json` to and from a plain JSON object, ``{"v": 1, "kind": ..., ...}``; the
journal stores one per line (the format is documented in ``docs/scoring.md``).

The order within one throw (seeds, "Holding, going and games" and "Hitting"): the roller marks
his own jans and wins his holes (each hole erases the opponent's points); if he won a hole he
decides to stay or go; unless he went, he plays, then the opponent marks what the throw gave
him (false hits, contre-jans, helpless men). Going drops both players' points, cancels what the
throw gave the opponent and starts a new relevé with the leaver to throw.

>>> g = Game()
>>> g.push(Throw(Color.WHITE, Dice(6, 4)))
()
>>> g.push(Mark(Color.WHITE, 4))
()
>>> g.score.white
Score(points=4, holes=0, bredouille=True)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import random

from tablier.engine.base import (
    CHECKERS_PER_SIDE,
    HOLES_PER_MATCH,
    Color,
    Dice,
    EngineError,
    IllegalMoveError,
)
from tablier.engine.jans import JanScore, jans, totals
from tablier.engine.moves import RuleOptions, legal_moves
from tablier.engine.position import Position
from tablier.engine.score import MatchScore, Pavillon, ScoreError

if TYPE_CHECKING:
    from tablier.engine.school import Verdict

EVENT_VERSION = 1
"""The ``"v"`` of every event's JSON; bumped when a field changes meaning."""


class MatchError(EngineError, ValueError):
    """An event does not fit the state of the match (out of order, impossible)."""


class EventError(EngineError, ValueError):
    """An event's JSON is malformed (unknown kind, missing or bad field)."""


class Choice(enum.Enum):
    """The roller's decision after winning a hole on his own throw."""

    STAY = "stay"
    """Tenir: keep the remainder, play on."""
    GO = "go"
    """S'en aller: drop both players' points, men back to the talons, throw first."""


# JSON field readers -------------------------------------------------------------------------

def _color(data: Mapping[str, Any], key: str) -> Color:
    value = data.get(key)
    if value not in ("white", "black"):
        raise EventError(f"{data.get('kind')!s}.{key}: {value!r} is not 'white' or 'black'")
    return Color(value)


def _int(data: Mapping[str, Any], key: str, *, low: int = 0) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise EventError(f"{data.get('kind')!s}.{key}: {value!r} is not an integer >= {low}")
    return value


def _even(data: Mapping[str, Any], key: str) -> int:
    value = _int(data, key)
    if value % 2:
        raise EventError(f"{data.get('kind')!s}.{key}: {value!r} is odd (points go in twos)")
    return value


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise EventError(f"{data.get('kind')!s}.{key}: {value!r} is not a non-empty string")
    return value


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise EventError(f"{data.get('kind')!s}.{key}: {value!r} is not true or false")
    return value


# Input events -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Throw:
    """A player threw the dice; a new turn begins."""

    kind: ClassVar[str] = "throw"
    by: Color
    """Who threw."""
    dice: Dice | None = None
    """The dice, or None when only the score is kept (``tablier marks``)."""

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "throw", "by", "dice": [a, b] | null}``."""
        dice = None if self.dice is None else [self.dice.a, self.dice.b]
        return {"v": EVENT_VERSION, "kind": self.kind, "by": self.by.value, "dice": dice}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Throw:
        """Read the event back (see :func:`event_from_json`)."""
        dice = data.get("dice")
        if dice is None:
            return cls(_color(data, "by"))
        if not (isinstance(dice, list) and len(dice) == 2
                and all(isinstance(d, int) and not isinstance(d, bool) for d in dice)):
            raise EventError(f"throw.dice: {dice!r} is not two dice like [6, 4]")
        try:
            return cls(_color(data, "by"), Dice(dice[0], dice[1]))
        except ValueError as exc:
            raise EventError(f"throw.dice: {dice!r}: {exc}") from None


@dataclass(frozen=True)
class JanOwed:
    """A jan owed on the current throw, as the rules engine found it (a record; marks score)."""

    kind: ClassVar[str] = "jan"
    jan: str
    """The jan's name (the engine's ``Jan`` value, e.g. ``"true_hit_petit_jan"``)."""
    player: Color
    """Who is owed the points (the roller, or his opponent for false hits and contre-jans)."""
    points: int
    """Points owed, all ways included."""
    ways: int = 1
    """In how many ways the jan is made."""

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "jan", "jan", "player", "points", "ways"}``."""
        return {"v": EVENT_VERSION, "kind": self.kind, "jan": self.jan,
                "player": self.player.value, "points": self.points, "ways": self.ways}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JanOwed:
        """Read the event back (see :func:`event_from_json`)."""
        return cls(_str(data, "jan"), _color(data, "player"), _even(data, "points"),
                   _int(data, "ways", low=1) if "ways" in data else 1)


@dataclass(frozen=True)
class Mark:
    """A player moved his jeton on by ``points`` on the current throw (right or wrong)."""

    kind: ClassVar[str] = "mark"
    by: Color
    """Who marked."""
    points: int
    """Points marked, even, >= 0 (0: he marked nothing)."""

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "mark", "by", "points"}``."""
        return {"v": EVENT_VERSION, "kind": self.kind, "by": self.by.value,
                "points": self.points}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Mark:
        """Read the event back (see :func:`event_from_json`)."""
        return cls(_color(data, "by"), _even(data, "points"))


@dataclass(frozen=True)
class Decision:
    """Tenir or s'en aller, after a hole won on one's own throw."""

    kind: ClassVar[str] = "decision"
    by: Color
    """The roller."""
    choice: Choice
    """Stay or go."""

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "decision", "by", "choice": "stay" | "go"}``."""
        return {"v": EVENT_VERSION, "kind": self.kind, "by": self.by.value,
                "choice": self.choice.value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Decision:
        """Read the event back (see :func:`event_from_json`)."""
        value = data.get("choice")
        if value not in ("stay", "go"):
            raise EventError(f"decision.choice: {value!r} is not 'stay' or 'go'")
        return cls(_color(data, "by"), Choice(value))


@dataclass(frozen=True)
class Play:
    """The roller moved his men (fields in his own numbering, 0 = borne off)."""

    kind: ClassVar[str] = "play"
    by: Color
    """The roller."""
    moves: tuple[tuple[int, int], ...] = ()
    """Each man's (from, to); empty when he could not play."""
    last_off: bool = False
    """True when this play bore off his last man (a relevé)."""

    def __post_init__(self) -> None:
        for move in self.moves:
            if len(move) != 2 or not all(0 <= f <= 24 for f in move):
                raise EventError(f"play.moves: {move!r} is not (from, to) with fields 0..24")

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "play", "by", "moves": [[from, to], ...], "last_off"}``."""
        return {"v": EVENT_VERSION, "kind": self.kind, "by": self.by.value,
                "moves": [list(m) for m in self.moves], "last_off": self.last_off}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Play:
        """Read the event back (see :func:`event_from_json`)."""
        moves = data.get("moves", [])
        if not (isinstance(moves, list) and all(
                isinstance(m, list) and len(m) == 2
                and all(isinstance(f, int) and not isinstance(f, bool) for f in m)
                for m in moves)):
            raise EventError(f"play.moves: {moves!r} is not a list of [from, to] pairs")
        return cls(_color(data, "by"), tuple((m[0], m[1]) for m in moves),
                   _bool(data, "last_off"))


@dataclass(frozen=True)
class School:
    """A school scored: ``by`` marks ``points`` and ``retract`` points go back off the other
    player's jeton (see :mod:`tablier.engine.school` for how they are worked out)."""

    kind: ClassVar[str] = "school"
    by: Color
    """Who scores the school (the one who sent the other to school)."""
    points: int
    """Points he marks."""
    retract: int = 0
    """Points taken back off the offender's jeton (overscoring, a broken plein, a false
    school's improper points)."""
    reason: str = "under"
    """``under``, ``over``, ``fill``, ``preserve``, ``false_school`` or ``raise``."""

    REASONS: ClassVar[tuple[str, ...]] = ("under", "over", "fill", "preserve", "false_school",
                                          "raise")

    def __post_init__(self) -> None:
        if self.reason not in self.REASONS:
            raise EventError(f"school.reason: {self.reason!r} is not one of {self.REASONS}")

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "school", "by", "points", "retract", "reason"}``."""
        return {"v": EVENT_VERSION, "kind": self.kind, "by": self.by.value,
                "points": self.points, "retract": self.retract, "reason": self.reason}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> School:
        """Read the event back (see :func:`event_from_json`)."""
        return cls(_color(data, "by"), _even(data, "points"),
                   _even(data, "retract") if "retract" in data else 0,
                   _str(data, "reason") if "reason" in data else "under")


# Derived events -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Hole:
    """Derived: a player won a hole (two pegs' worth when bredouille)."""

    kind: ClassVar[str] = "hole"
    player: Color
    """Who won it."""
    bredouille: bool
    """True when won bredouille (the fichet moves two holes)."""
    holes: int
    """His holes after it."""

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "hole", "player", "bredouille", "holes"}``."""
        return {"v": EVENT_VERSION, "kind": self.kind, "player": self.player.value,
                "bredouille": self.bredouille, "holes": self.holes}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Hole:
        """Read the event back (see :func:`event_from_json`)."""
        return cls(_color(data, "player"), _bool(data, "bredouille"), _int(data, "holes"))


@dataclass(frozen=True)
class PavillonMoved:
    """Derived: the pavillon changed hands or was laid out."""

    kind: ClassVar[str] = "pavillon"
    where: Pavillon
    """Where it stands now."""

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "pavillon", "where": "middle" | "white" | "black" | "out"}``."""
        return {"v": EVENT_VERSION, "kind": self.kind, "where": self.where.value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PavillonMoved:
        """Read the event back (see :func:`event_from_json`)."""
        value = data.get("where")
        if value not in [p.value for p in Pavillon]:
            raise EventError(f"pavillon.where: {value!r} is not middle, white, black or out")
        return cls(Pavillon(value))


@dataclass(frozen=True)
class Releve:
    """Derived: the men go back to the talons and a new relevé begins."""

    kind: ClassVar[str] = "releve"
    reason: str
    """``"go"`` (a player went) or ``"bear_off"`` (a player bore off his last man)."""
    first: Color
    """Who throws first in the new relevé."""

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "releve", "reason": "go" | "bear_off", "first"}``."""
        return {"v": EVENT_VERSION, "kind": self.kind, "reason": self.reason,
                "first": self.first.value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Releve:
        """Read the event back (see :func:`event_from_json`)."""
        reason = data.get("reason")
        if reason not in ("go", "bear_off"):
            raise EventError(f"releve.reason: {reason!r} is not 'go' or 'bear_off'")
        return cls(reason, _color(data, "first"))


@dataclass(frozen=True)
class MatchEnd:
    """Derived: a player reached the 12th hole."""

    kind: ClassVar[str] = "end"
    winner: Color
    """Who won the match."""
    grande_bredouille: bool
    """True when won grande bredouille (the loser won no hole since the winner's first, or
    none at all)."""
    with_pavillon: bool
    """True when the winner carried the pavillon (he was second to win a hole)."""

    def to_json(self) -> dict[str, Any]:
        """``{"v", "kind": "end", "winner", "grande_bredouille", "with_pavillon"}``."""
        return {"v": EVENT_VERSION, "kind": self.kind, "winner": self.winner.value,
                "grande_bredouille": self.grande_bredouille,
                "with_pavillon": self.with_pavillon}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchEnd:
        """Read the event back (see :func:`event_from_json`)."""
        return cls(_color(data, "winner"), _bool(data, "grande_bredouille"),
                   _bool(data, "with_pavillon"))


InputEvent = Throw | JanOwed | Mark | Decision | Play | School
DerivedEvent = Hole | PavillonMoved | Releve | MatchEnd
Event = InputEvent | DerivedEvent

EVENTS: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (Throw, JanOwed, Mark, Decision, Play, School,
                Hole, PavillonMoved, Releve, MatchEnd)
}
"""Every event class by its ``kind``."""

DERIVED_KINDS = frozenset({"hole", "pavillon", "releve", "end"})
"""The kinds a :class:`Game` derives itself; pushing one is an error."""


def event_from_json(data: object) -> Event:
    """Read one event from its JSON object.

    Args:
        data: a dict as written by the event's ``to_json()``.

    Returns:
        The event.

    Raises:
        EventError: if ``data`` is not an object, has another version, an unknown kind, an
            unknown key, or a missing or bad field (the message names the field and value).

    >>> event_from_json({"v": 1, "kind": "mark", "by": "black", "points": 6})
    Mark(by=<Color.BLACK: 'black'>, points=6)
    """
    if not isinstance(data, dict):
        raise EventError(f"an event is a JSON object, not {data!r}")
    if data.get("v") != EVENT_VERSION:
        raise EventError(f"event.v: {data.get('v')!r} (this reader knows version "
                         f"{EVENT_VERSION})")
    kind = data.get("kind")
    cls = EVENTS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventError(f"event.kind: {kind!r} is not one of {sorted(EVENTS)}")
    known = {"v", "kind"} | {f for f in cls.__dataclass_fields__}
    unknown = sorted(set(data) - known)
    if unknown:
        raise EventError(f"{kind}: unknown key {unknown[0]!r}")
    event: Event = cls.from_json(data)
    return event


# The state machine --------------------------------------------------------------------------

@dataclass(frozen=True)
class Turn:
    """What happened so far on the current throw."""

    roller: Color
    """Who threw."""
    dice: Dice | None
    """The dice."""
    owed: tuple[JanOwed, ...] = ()
    """The jans recorded as owed on this throw."""
    marked: int = 0
    """What the roller marked on it."""
    won_hole: bool = False
    """True when the roller's own marks won a hole (he must decide)."""
    decision: Choice | None = None
    """His decision, once taken."""
    played: bool = False
    """True once he played."""
    other_marked: int = 0
    """What the opponent marked on this throw."""
    position: Position | None = None
    """The men at the throw, when the game tracks them."""
    moves: tuple[tuple[int, int], ...] | None = None
    """The play, once made."""


@dataclass(frozen=True)
class MatchState:
    """The whole state of a match between two events (immutable; :class:`Game` holds it)."""

    score: MatchScore = field(default_factory=MatchScore)
    """Points, holes, pavillon, winner."""
    to_move: Color | None = None
    """Who throws next (None before the first throw)."""
    releve: int = 1
    """The number of the current relevé, from 1."""
    throws: tuple[int, int] = (0, 0)
    """Throws made by White and by Black in this relevé."""
    turn: Turn | None = None
    """The current throw, until the next one."""
    position: Position | None = None
    """The men, when the game tracks them (``Game(track_position=True)``)."""

    def throws_by(self, color: Color) -> int:
        """Throws made by ``color`` in this relevé (the jan de trois coups needs it)."""
        return self.throws[0 if color is Color.WHITE else 1]


class Game:
    """The one mutable object: a match driven by events, with ``push()``, ``pop()`` and
    ``history`` (as a chess ``Board``).

    Without positions (score keeping only, as ``tablier marks``) turn order is not enforced:
    the score follows whoever is said to throw and :attr:`MatchState.to_move` says who should.
    With ``track_position=True`` the game also keeps the men: each throw must be the player
    to move's, with dice; each play is applied to the position (on the board; its legality is
    the school's business, see :mod:`tablier.engine.school`); bearing off the last man is
    found from the position; a relevé puts every man back on the talons. :meth:`throw` and
    :meth:`play` then push the events for you, the jans owed computed by the rules engine.

    >>> g = Game(track_position=True)
    >>> [(j.jan.value, j.points) for j in g.throw(Color.WHITE, Dice(6, 5))]
    []
    >>> g.play(((1, 7), (1, 6)))
    ()
    >>> g.state.position
    Position('1x13,6,7/1x15 b')
    """

    def __init__(self, *, track_position: bool = False, position: Position | None = None,
                 options: RuleOptions | None = None) -> None:
        if position is None and track_position:
            position = Position.start()
        self._state = MatchState(position=position)
        self._frames: list[tuple[InputEvent, tuple[DerivedEvent, ...], MatchState]] = []
        self._options = options

    # Reading ------------------------------------------------------------------------------

    @property
    def state(self) -> MatchState:
        """The current state."""
        return self._state

    @property
    def score(self) -> MatchScore:
        """The current score."""
        return self._state.score

    @property
    def history(self) -> tuple[Event, ...]:
        """Every event so far, each input followed by what it caused."""
        out: list[Event] = []
        for event, derived, _ in self._frames:
            out.append(event)
            out.extend(derived)
        return tuple(out)

    def __repr__(self) -> str:
        s = self.score
        return (f"<Game white={s.white.holes}/{s.white.points} black={s.black.holes}/"
                f"{s.black.points} pavillon={s.pavillon.value} events={len(self._frames)}>")

    # Driving with the rules engine -------------------------------------------------------

    def throw(self, by: Color, dice: Dice) -> tuple[JanScore, ...]:
        """Push a throw and the jans the rules engine finds owed on it.

        Args:
            by: who throws (the player to move).
            dice: the dice.

        Returns:
            The jans owed (both players'), as :func:`tablier.engine.jans` gives them.

        Raises:
            MatchError: if the game does not track positions or the throw does not fit.
        """
        if self._state.position is None:
            raise MatchError("throw() needs Game(track_position=True)")
        self.push(Throw(by, dice))
        position = self._state.position
        owed = jans(position, dice, rolls_so_far=self._state.throws_by(by),
                    options=self._options)
        for j in owed:
            self.push(JanOwed(j.jan.value, j.player, j.points, j.ways))
        return owed

    def play(self, moves: Iterable[tuple[int, int]]) -> tuple[DerivedEvent, ...]:
        """Push the roller's play; bearing off his last man is found from the position.

        Args:
            moves: ``(from, to)`` in his own numbering, 0 = borne off.

        Returns:
            The derived events (a relevé when he bore off his last man).

        Raises:
            MatchError: if no throw is under way, the game does not track positions, or a move
                is impossible on the board.
        """
        s = self._state
        if s.position is None or s.turn is None:
            raise MatchError("play() needs Game(track_position=True) and a throw")
        play = tuple((int(f), int(t)) for f, t in moves)
        try:
            after = s.position.apply(play)
        except IllegalMoveError as exc:
            raise MatchError(str(exc)) from None
        last = after.off(s.turn.roller) == CHECKERS_PER_SIDE
        return self.push(Play(s.turn.roller, play, last_off=last))

    def verdict(self, color: Color) -> Verdict:
        """The school verdict on what ``color`` marked on the current throw.

        Judged on the jans recorded as owed (:class:`JanOwed` events, pushed by
        :meth:`throw`); when the game tracks the men and the roller has played, the filling
        and keeping jans his play broke are forfeited (see :func:`tablier.engine.school.judge`).

        Args:
            color: the roller or his opponent.

        Returns:
            The verdict; push ``verdict.to_event()`` if the school is claimed.

        Raises:
            MatchError: if no throw is under way.
        """
        from tablier.engine.school import broken_obligations, judge

        turn = self._state.turn
        if turn is None:
            raise MatchError("no throw to judge")
        marked = turn.marked if color is turn.roller else turn.other_marked
        not_filled: tuple[JanOwed, ...] = ()
        not_preserved: tuple[JanOwed, ...] = ()
        if color is turn.roller and turn.position is not None and turn.moves is not None:
            filled, kept = broken_obligations(turn.position, turn.moves, turn.owed)
            not_filled = tuple(j for j in turn.owed if j in filled)
            not_preserved = tuple(j for j in turn.owed if j in kept)
        return judge(turn.owed, player=color, marked=marked, not_filled=not_filled,
                     not_preserved=not_preserved)

    # Writing ------------------------------------------------------------------------------

    def push(self, event: InputEvent) -> tuple[DerivedEvent, ...]:
        """Apply one input event.

        Args:
            event: a throw, jan, mark, decision, play or school.

        Returns:
            The derived events it caused (holes, pavillon moves, relevés, the match's end).

        Raises:
            MatchError: if the event does not fit the state (the message says why); the state
                is then unchanged.
        """
        before = self._state
        try:
            state, derived = self._apply(before, event)
        except ScoreError as exc:
            raise MatchError(f"{event.kind} by {_who(event)}: {exc}") from None
        self._frames.append((event, derived, before))
        self._state = state
        return derived

    def pop(self) -> InputEvent:
        """Undo the last input event and what it caused.

        Returns:
            The event undone.

        Raises:
            IndexError: if nothing was pushed.
        """
        if not self._frames:
            raise IndexError("pop from an empty game")
        event, _, before = self._frames.pop()
        self._state = before
        return event

    @classmethod
    def replay(cls, events: Iterable[Event], *, track_position: bool = False,
               position: Position | None = None, options: RuleOptions | None = None) -> Game:
        """Rebuild a game from its events (a journal).

        Input events are pushed; derived events may be present (they are checked against what
        the game derives) or left out.

        Args:
            events: the events in order.
            track_position: keep the men too (the events must then carry dice and plays).
            position: the men at the first event, when not the start (implies tracking).
            options: the agreed rules, with ``track_position``.

        Returns:
            The game.

        Raises:
            MatchError: if an input event does not fit, or a recorded derived event differs
                from what the rules derive (the message gives its index).
        """
        game = cls(track_position=track_position, position=position, options=options)
        expected: list[DerivedEvent] = []
        for index, event in enumerate(events):
            if event.kind in DERIVED_KINDS:
                if not expected or expected[0] != event:
                    want = expected[0].to_json() if expected else None
                    raise MatchError(f"event {index}: recorded {event.to_json()} but the rules "
                                     f"derive {want}")
                expected.pop(0)
                continue
            try:
                expected = list(game.push(event))  # type: ignore[arg-type]
            except MatchError as exc:
                raise MatchError(f"event {index}: {exc}") from None
        return game

    # Rules ---------------------------------------------------------------------------------

    def _apply(self, s: MatchState,
               event: InputEvent) -> tuple[MatchState, tuple[DerivedEvent, ...]]:
        if s.score.winner is not None:
            raise MatchError(f"the match is over: {s.score.winner.value} won; no {event.kind}")
        if isinstance(event, Throw):
            return self._throw(s, event), ()
        if isinstance(event, School):
            score = s.score.retract(event.by.other(), event.retract)
            return _marked(s, score, event.by, event.points, replace_turn=None)
        turn = s.turn
        if turn is None:
            raise MatchError(f"{event.kind} by {_who(event)} before any throw")
        if isinstance(event, JanOwed):
            return replace(s, turn=replace(turn, owed=turn.owed + (event,))), ()
        if isinstance(event, Mark):
            return self._mark(s, turn, event)
        if isinstance(event, Decision):
            return self._decide(s, turn, event)
        return self._play(s, turn, event)

    @staticmethod
    def _throw(s: MatchState, event: Throw) -> MatchState:
        turn = s.turn
        if turn is not None and turn.won_hole and turn.decision is None:
            raise MatchError(f"{turn.roller.value} won a hole: he must stay or go before "
                             f"{event.by.value} throws")
        w, b = s.throws
        throws = (w + 1, b) if event.by is Color.WHITE else (w, b + 1)
        position = s.position
        if position is not None:
            if event.dice is None:
                raise MatchError(f"{event.by.value}'s throw has no dice (the game tracks the "
                                 f"men)")
            if (s.releve == 1 and s.throws == (0, 0)
                    and position.with_turn(Color.WHITE) == Position.start()):
                position = position.with_turn(event.by)  # whoever won the lead opens
            if position.to_move is not event.by:
                raise MatchError(f"{event.by.value} throws but it is "
                                 f"{position.to_move.value}'s throw")
        return replace(s, throws=throws, turn=Turn(event.by, event.dice, position=position),
                       to_move=event.by.other(), position=position)

    @staticmethod
    def _mark(s: MatchState, turn: Turn,
              event: Mark) -> tuple[MatchState, tuple[DerivedEvent, ...]]:
        roller = turn.roller
        if event.by is roller:
            if turn.played or turn.decision is not None or turn.other_marked:
                raise MatchError(f"{roller.value} marks his own throw before playing, deciding "
                                 f"or his opponent's marks")
            new_turn = replace(turn, marked=turn.marked + event.points)
            state, derived = _marked(s, s.score, roller, event.points, replace_turn=new_turn)
            if any(isinstance(d, Hole) for d in derived):
                assert state.turn is not None
                state = replace(state, turn=replace(state.turn, won_hole=True))
            return state, derived
        if turn.decision is Choice.GO:
            raise MatchError(f"{roller.value} went: what his throw gave {event.by.value} is "
                             f"cancelled")
        if turn.won_hole and turn.decision is None:
            raise MatchError(f"{roller.value} won a hole: he must stay or go before "
                             f"{event.by.value} marks")
        new_turn = replace(turn, other_marked=turn.other_marked + event.points)
        return _marked(s, s.score, event.by, event.points, replace_turn=new_turn)

    @staticmethod
    def _decide(s: MatchState, turn: Turn,
                event: Decision) -> tuple[MatchState, tuple[DerivedEvent, ...]]:
        if event.by is not turn.roller or not turn.won_hole or turn.decision is not None:
            raise MatchError(f"no decision is open to {event.by.value}: only the roller, once, "
                             f"after winning a hole by his own throw")
        turn = replace(turn, decision=event.choice)
        if event.choice is Choice.STAY:
            return replace(s, turn=turn), ()
        state = replace(s, score=s.score.drop_points(), releve=s.releve + 1, throws=(0, 0),
                        to_move=turn.roller, turn=turn, position=_talons(s, turn.roller))
        return state, (Releve("go", turn.roller),)

    @staticmethod
    def _play(s: MatchState, turn: Turn,
              event: Play) -> tuple[MatchState, tuple[DerivedEvent, ...]]:
        if event.by is not turn.roller:
            raise MatchError(f"{event.by.value} plays on {turn.roller.value}'s throw")
        if turn.decision is Choice.GO:
            raise MatchError(f"{turn.roller.value} went: the men are back on the talons")
        if turn.won_hole and turn.decision is None:
            raise MatchError(f"{turn.roller.value} won a hole: he must stay or go before "
                             f"playing")
        if turn.played:
            raise MatchError(f"{turn.roller.value} already played this throw")
        turn = replace(turn, played=True, moves=event.moves)
        position = s.position
        if position is not None:
            try:
                position = position.apply(event.moves)
            except IllegalMoveError as exc:
                raise MatchError(str(exc)) from None
            last = position.off(turn.roller) == CHECKERS_PER_SIDE
            if last is not event.last_off:
                raise MatchError(f"play.last_off is {event.last_off} but {turn.roller.value} "
                                 f"has {position.off(turn.roller)} men off")
        if not event.last_off:
            return replace(s, turn=turn, position=position), ()
        state = replace(s, releve=s.releve + 1, throws=(0, 0), to_move=turn.roller, turn=turn,
                        position=_talons(s, turn.roller))
        return state, (Releve("bear_off", turn.roller),)


def _talons(s: MatchState, first: Color) -> Position | None:
    return None if s.position is None else Position.start(to_move=first)


def _who(event: Event) -> str:
    color = getattr(event, "by", None) or getattr(event, "player", None)
    return color.value if isinstance(color, Color) else "?"


def _marked(s: MatchState, score: MatchScore, color: Color, points: int, *,
            replace_turn: Turn | None) -> tuple[MatchState, tuple[DerivedEvent, ...]]:
    new, won = score.mark(color, points)
    derived: list[DerivedEvent] = []
    holes = score[color].holes
    for double in won:
        holes = min(HOLES_PER_MATCH, holes + (2 if double else 1))
        derived.append(Hole(color, double, holes))
    if new.pavillon is not score.pavillon:
        derived.append(PavillonMoved(new.pavillon))
    if new.winner is not None:
        derived.append(MatchEnd(new.winner, new.grande_bredouille,
                                new.pavillon.value == new.winner.value))
    turn = s.turn if replace_turn is None else replace_turn
    return replace(s, score=new, turn=turn), tuple(derived)


def random_match(rng: random.Random, *, first: Color = Color.WHITE, go_rate: float = 0.3,
                 max_throws: int = 2000) -> Iterator[Game]:
    """Play a match of honest players: random dice, plays and decisions, every jan marked.

    Each player marks exactly what his throw owes him, the opponent marks what it gave him, and
    after a hole won on his own throw the roller goes with probability ``go_rate``. Used by the
    benchmarks and the property tests.

    Args:
        rng: the source of randomness (never the global one).
        first: who throws first.
        go_rate: the chance of s'en aller after a hole made on one's own throw.
        max_throws: stop after this many throws even if nobody has won.

    Yields:
        The same :class:`Game` after each throw (snapshot ``game.state`` to keep it).

    Raises:
        MatchError: never for honest play; it would mean the engine and the score disagree.

    >>> import random
    >>> games = list(random_match(random.Random(1), max_throws=5))
    >>> len(games), sum(1 for e in games[-1].history if e.kind == "throw")
    (5, 5)
    """
    game = Game(track_position=True)
    by = first
    for _ in range(max_throws):
        if game.score.winner is not None:
            break
        dice = Dice.roll(rng)
        owed = totals(game.throw(by, dice))
        game.push(Mark(by, owed[by]))
        go = False
        turn = game.state.turn
        if game.score.winner is None and turn is not None and turn.won_hole:
            go = rng.random() < go_rate
            game.push(Decision(by, Choice.GO if go else Choice.STAY))
        if game.score.winner is None and not go:
            position = game.state.position
            assert position is not None
            plays = list(legal_moves(position, dice))
            game.play(plays[rng.randrange(len(plays))])
            if game.score.winner is None and owed[by.other()]:
                game.push(Mark(by.other(), owed[by.other()]))
        to_move = game.state.to_move
        assert to_move is not None
        by = to_move
        yield game
