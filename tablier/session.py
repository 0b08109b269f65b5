"""The session: the tracker's events scored by the engine, shown on the markers, kept in a journal.

For every frame the session feeds the tracker and reacts to what it reports:

- a throw settled: the engine's jans for the position at the throw are recorded at once with
  the roller's marks (and the opponent's, unless the roller won a hole and must still decide),
  and every display shows both players' target markers;
- a play seen: it is recorded (after a *tenir* when a hole was won), or the men gathered to the
  talons: the roller went (*s'en aller*);
- false moves, questions, re-rolls and unreadable frames are recorded as flags.

The journal holds the engine's match events (:mod:`tablier.engine.match`) one per line, the
companion's header (``"match"``) and flags, and after the events of each frame a ``"seen"`` line
that *commits* them with the score and the tracker's state. Resuming rolls back anything written
after the last commit (a crash in the middle of a frame), rebuilds the match from the events and
the tracker from the commit, and carries on from the next frame: a replay resumed after
``kill -9`` writes exactly the journal of an uninterrupted run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tablier.engine import (
    CHECKERS_PER_SIDE,
    Choice,
    Color,
    Decision,
    Dice,
    Game,
    Hole,
    JanOwed,
    Mark,
    Marks,
    MatchError,
    Play,
    Position,
    RuleOptions,
    Score,
    Throw,
    event_from_json,
    jans,
    legal_positions,
)
from tablier.engine.match import EVENTS
from tablier.journal import Event, Journal, JournalError, read_journal
from tablier.tracker import (
    START,
    Answer,
    Board,
    BoardView,
    Candidate,
    DiceMisread,
    FalseMoveSeen,
    GatheredSeen,
    NoticeSeen,
    PlaySeen,
    QuestionRaised,
    RerollSeen,
    ThrowSeen,
    Tracker,
    TrackerEvent,
)

log = logging.getLogger(__name__)

COMPANION_KINDS = frozenset({"match", "seen", "false_move", "question", "answered", "reroll",
                             "notice", "correction", "retract"})
"""The journal kinds the companion writes besides the engine's events."""


class SessionError(ValueError):
    """A session cannot start or resume (corrupt journal, a journal of another match, ...)."""


class EmptyJournalError(SessionError):
    """The journal to resume holds no event: the crash came before its first line was whole.
    Nothing was recorded, so the caller may start the match afresh in that file."""


class Display(Protocol):
    """What the session needs of a marker display (``tablier.hardware.MarkerDisplay``)."""

    def show(self, marks: Marks, *, status: Any = ...) -> None:
        """Show the target state of every marker; never blocks."""

    def poll_events(self) -> list[Any]:
        """Button presses since the last call."""


@dataclass(frozen=True)
class MatchInfo:
    """The header of a match: the record's tag pairs."""

    white: str = "White"
    """White's player."""
    black: str = "Black"
    """Black's player."""
    date: str = ""
    """The day, ``YYYY-MM-DD``."""
    place: str = ""
    """Where it is played."""
    first: str = "white"
    """Who throws first (decided at the board before the match)."""
    rules: Mapping[str, Any] = field(default_factory=dict)
    """Agreed rule options (``provincial_bearing_off``, ``obsolete_jans``)."""
    source: str = ""
    """Where the frames come from (a recorded game, a camera)."""

    def to_json(self) -> dict[str, Any]:
        """The journal's header line.

        Returns:
            ``{"kind": "match", ...}``.

        Raises:
            Nothing.
        """
        return {"kind": "match", "white": self.white, "black": self.black, "date": self.date,
                "place": self.place, "first": self.first, "rules": dict(self.rules),
                "source": self.source}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchInfo:
        """Read the header line back.

        Args:
            data: the header.

        Returns:
            The match info.

        Raises:
            SessionError: if the header is malformed.
        """
        if data.get("kind") != "match" or data.get("first") not in ("white", "black"):
            raise SessionError(f"the journal's first line is not a match header: {dict(data)!r}")
        return cls(white=str(data.get("white", "White")), black=str(data.get("black", "Black")),
                   date=str(data.get("date", "")), place=str(data.get("place", "")),
                   first=str(data["first"]), rules=dict(data.get("rules") or {}),
                   source=str(data.get("source", "")))


def rule_options(rules: Mapping[str, Any]) -> RuleOptions:
    """The engine's rule options from a header's ``rules``.

    Args:
        rules: option name -> value (unknown names are refused).

    Returns:
        The options.

    Raises:
        SessionError: if an option is unknown or has a bad value.
    """
    try:
        return RuleOptions(**dict(rules))
    except (TypeError, ValueError) as exc:
        raise SessionError(f"rules: {dict(rules)!r}: {exc}") from None


def position_of(board: Board, mover: Color) -> Position:
    """The engine's position for a tracker board (men not on the board are borne off).

    Args:
        board: 24 signed counts in White's numbering.
        mover: who throws.

    Returns:
        The position.

    Raises:
        InvalidNotationError: if the board is malformed.

    >>> position_of(START, Color.WHITE) == Position.start()
    True
    """
    white = sum(n for n in board if n > 0)
    black = -sum(n for n in board if n < 0)
    return Position.from_counts(list(board), to_move=mover,
                                off_white=max(0, CHECKERS_PER_SIDE - white),
                                off_black=max(0, CHECKERS_PER_SIDE - black))


def legal_results(options: RuleOptions) -> Callable[[Board, str, tuple[int, int]],
                                                    list[Candidate]]:
    """The tracker's view of the engine: every legal result of a throw.

    Args:
        options: the agreed rules.

    Returns:
        ``(board, mover, dice) -> candidates``, one per distinct resulting position.

    Raises:
        Nothing.
    """
    def results(board: Board, mover: str, dice: tuple[int, int]) -> list[Candidate]:
        pos = position_of(board, Color(mover))
        return [Candidate(play=tuple((int(m[0]), int(m[1])) for m in play), board=p.counts)
                for p, play in legal_positions(pos, Dice(*dice), options=options).items()]

    return results


def _score_json(s: Score) -> dict[str, Any]:
    return {"points": s.points, "holes": s.holes, "bredouille": s.bredouille}


def committed(events: Sequence[Event]) -> int:
    """How many leading events are committed: up to the last ``seen`` (or the header).

    Args:
        events: the journal's events.

    Returns:
        The count to keep.

    Raises:
        Nothing.

    >>> committed([{"kind": "match"}, {"kind": "throw"}, {"kind": "seen"}, {"kind": "jan"}])
    3
    >>> committed([{"kind": "match"}, {"kind": "throw"}])
    1
    """
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("kind") in ("seen", "match"):
            return i + 1
    return 0


@dataclass(frozen=True)
class Resumed:
    """What resuming a journal found."""

    events: int
    """Committed events kept."""
    rolled_back: int
    """Uncommitted events cut off (written again from the frames)."""
    truncated: str | None
    """The damaged last line that was skipped, if any."""
    next_frame: int
    """The frame to continue from."""


class Session:
    """One match being scored: engine, tracker, displays and journal.

    Build it with :meth:`start` or :meth:`resume`, then :meth:`step` every frame.

    Args:
        journal: the open journal (its events already hold the header).
        info: the match header.
        displays: where the target markers are shown.
        still_frames: the tracker's still-board length.
        answer: asks the players when a reading is uncertain (None: flag and wait).
    """

    def __init__(self, journal: Journal, info: MatchInfo, *, displays: Sequence[Display] = (),
                 still_frames: int = 2, answer: Answer | None = None) -> None:
        self.journal = journal
        self.info = info
        self.options = rule_options(info.rules)
        self.displays = list(displays)
        self.game = Game()
        self.tracker = Tracker(legal_results(self.options), still_frames=still_frames,
                               answer=answer)
        self.next_frame = 0
        """The index of the next frame to feed."""
        self.status = "idle"
        """The last status shown on the displays."""
        self.shown: list[tuple[float, Marks, str]] = []
        """(frame time, marks, status) of every display update, for timing and tests."""
        self.open_question: QuestionRaised | None = None
        """The last question nobody answered yet (see :meth:`answer`)."""

    # Building -----------------------------------------------------------------------------

    @classmethod
    def start(cls, path: str | Path, info: MatchInfo, *, overwrite: bool = False,
              displays: Sequence[Display] = (), still_frames: int = 2,
              answer: Answer | None = None) -> Session:
        """Start a new match journal.

        Args:
            path: the journal to create.
            info: the header.
            overwrite: replace an existing journal.
            displays: the marker displays.
            still_frames: the tracker's still-board length.
            answer: asks the players when unsure.

        Returns:
            The session.

        Raises:
            JournalError: if the journal exists (without ``overwrite``) or cannot be written.
            SessionError: if the rule options are bad.
        """
        rule_options(info.rules)
        journal = Journal.create(path, overwrite=overwrite)
        journal.append(info.to_json())
        session = cls(journal, info, displays=displays, still_frames=still_frames,
                      answer=answer)
        session._show("idle", t=0.0)
        return session

    @classmethod
    def resume(cls, path: str | Path, *, displays: Sequence[Display] = (),
               still_frames: int = 2, answer: Answer | None = None,
               ) -> tuple[Session, Resumed]:
        """Continue a match after a crash or a power cut.

        Args:
            path: the journal.
            displays: the marker displays.
            still_frames: the tracker's still-board length.
            answer: asks the players when unsure.

        Returns:
            The session, ready for the next frame, and what was found.

        Raises:
            JournalError: if the journal is missing or corrupt before its last line.
            EmptyJournalError: if it holds no event (empty, or its first line cut off).
            SessionError: if its events do not make a match.
        """
        head = read_journal(path).events
        if not head:
            raise EmptyJournalError(f"journal {path} holds no event: start a new match")
        MatchInfo.from_json(head[0])  # refuse a file that is not a match journal, untouched
        before = 0

        def keep(events: tuple[Event, ...]) -> int:
            nonlocal before
            before = len(events)
            return committed(events)

        journal = Journal.resume(path, keep=keep)
        try:
            events = journal.events
            if not events:
                raise EmptyJournalError(f"journal {journal.path} holds no event: "
                                        "start a new match")
            info = MatchInfo.from_json(events[0])
            session = cls(journal, info, displays=displays, still_frames=still_frames,
                          answer=answer)
            session._rebuild(events[1:])
        except BaseException:
            journal.close()
            raise
        found = Resumed(events=len(events), rolled_back=before - len(events),
                        truncated=journal.truncated, next_frame=session.next_frame)
        session._show(session.status, t=0.0)
        return session, found

    def _rebuild(self, events: Sequence[Event]) -> None:
        engine_events = []
        last_seen: Event | None = None
        for e in events:
            kind = e.get("kind")
            if kind in EVENTS:
                try:
                    engine_events.append(event_from_json(e))
                except ValueError as exc:
                    raise SessionError(f"journal {self.journal.path}: {exc}") from None
            elif kind == "seen":
                last_seen = e
            elif kind == "retract":
                throws = [i for i, x in enumerate(engine_events) if x.kind == "throw"]
                if throws:
                    del engine_events[throws[-1]:]
        try:
            self.game = Game.replay(engine_events)
        except MatchError as exc:
            raise SessionError(f"journal {self.journal.path}: {exc}") from None
        if last_seen is not None:
            try:
                self.tracker.restore(last_seen["tracker"])
                self.next_frame = int(last_seen["frame"]) + 1
                self.status = str(last_seen.get("status", "idle"))
            except (KeyError, TypeError, ValueError) as exc:
                raise SessionError(f"journal {self.journal.path}: bad 'seen' line: {exc}"
                                   ) from None

    def close(self) -> None:
        """Close the journal (the displays belong to the caller).

        Raises:
            Nothing.
        """
        self.journal.close()

    # Reading -------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True once the match is won."""
        return self.game.score.winner is not None

    def marks(self) -> Marks:
        """Where every marker belongs now.

        Returns:
            The target marks of both players.

        Raises:
            Nothing.
        """
        s = self.game.score
        return Marks.from_scores(s.white, s.black, s.pavillon)

    def mover(self) -> Color:
        """Who throws next.

        Returns:
            The colour.

        Raises:
            Nothing.
        """
        return self.game.state.to_move or Color(self.info.first)

    # Driving -------------------------------------------------------------------------------

    def step(self, view: BoardView) -> list[Event]:
        """Feed one frame's view; record and show what it completes.

        Args:
            view: the frame's reading.

        Returns:
            The journal lines written (empty for most frames).

        Raises:
            JournalError: if the journal cannot be written (the match so far is kept).
        """
        self.next_frame = view.frame + 1
        if self.over:
            return []
        lines: list[Event] = []
        status = None
        for event in self.tracker.feed(view):
            got, st = self._react(event)
            lines.extend(got)
            status = st or status
            if self.over:
                break
        lines.extend(self._buttons())
        if not lines:
            return []
        return self._commit(lines, view.frame, view.t, status)

    def finish(self) -> list[Event]:
        """The frames have ended: record the play last seen beyond doubt, if one is awaited.

        Returns:
            The journal lines written.

        Raises:
            JournalError: if the journal cannot be written.
        """
        if self.over:
            return []
        frame = self.next_frame - 1
        lines: list[Event] = []
        for event in self.tracker.finish(frame):
            got, _ = self._react(event)
            lines.extend(got)
        if not lines:
            return []
        return self._commit(lines, frame, 0.0, None)

    def decide(self, choice: Choice, *, frame: int | None = None, t: float = 0.0) -> list[Event]:
        """Record the roller's tenir / s'en aller given at a button or the console.

        Args:
            choice: stay or go.
            frame: the current frame (defaults to the last one fed).
            t: its time.

        Returns:
            The journal lines written.

        Raises:
            SessionError: if no decision is open.
        """
        turn = self.game.state.turn
        if turn is None or not turn.won_hole or turn.decision is not None:
            raise SessionError("no decision is open: only after a hole won by one's own throw")
        lines = self._decision(choice)
        return self._commit(lines, self.next_frame - 1 if frame is None else frame, t, None)

    def answer(self, option: int, *, frame: int | None = None, t: float = 0.0) -> list[Event]:
        """Answer the open question with one of its options (from the console or a button).

        Args:
            option: 1 for the first option.
            frame: the current frame (defaults to the last one fed).
            t: its time.

        Returns:
            The journal lines written.

        Raises:
            SessionError: if no question is open or the option does not exist.
        """
        q = self.open_question
        if q is None:
            raise SessionError("no question is open")
        if not 1 <= option <= len(q.options):
            raise SessionError(f"answer {option!r}: choose 1..{len(q.options)}")
        chosen = q.options[option - 1]
        lines: list[Event] = []
        if q.about == "dice":
            assert chosen.dice is not None
            a, b = chosen.dice
            lines.append({"kind": "answered", "frame": q.frame,
                          "text": f"the players say the dice show {a}{b}"})
            status = self._throw(chosen.dice, self.tracker.board, lines)
            self.open_question = None
            return self._commit(lines, self.next_frame - 1 if frame is None else frame, t,
                                status)
        pending = self.game.state.turn
        if chosen.dice is not None and pending is not None and pending.dice is not None:
            read = (pending.dice.a, pending.dice.b)
            board = self.tracker.board
            got, _ = self._react(DiceMisread(read, chosen.dice, board, q.frame))
            lines.extend(got)
        lines.append({"kind": "answered", "frame": q.frame,
                      "text": f"the players chose {_play_text(chosen.play)}"})
        try:
            self.tracker.resolve(chosen)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        self.open_question = None
        return self._commit(lines, self.next_frame - 1 if frame is None else frame, t, None)

    def throw_by_hand(self, dice: tuple[int, int], *, frame: int | None = None,
                      t: float = 0.0) -> list[Event]:
        """Record a throw the camera could not read, as the players call it.

        Args:
            dice: the two dice.
            frame: the current frame (defaults to the last one fed).
            t: its time.

        Returns:
            The journal lines written.

        Raises:
            SessionError: if a play is still awaited or the dice are not 1..6.
        """
        if self.tracker.phase.value != "await_throw":
            raise SessionError("a play is still awaited: answer or correct it first")
        try:
            Dice(*dice)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        lines: list[Event] = [{"kind": "answered", "frame": self.next_frame - 1,
                               "text": f"the players call the throw {dice[0]}{dice[1]}"}]
        status = self._throw(dice, self.tracker.board, lines)
        self.open_question = None
        return self._commit(lines, self.next_frame - 1 if frame is None else frame, t, status)

    def correct(self, board: Board, *, frame: int | None = None, t: float = 0.0) -> list[Event]:
        """Set the position by hand (the players agree the board stands like this).

        Args:
            board: the 24 signed counts in White's numbering.
            frame: the current frame (defaults to the last one fed).
            t: its time.

        Returns:
            The journal lines written.

        Raises:
            SessionError: if the board is not 24 counts with at most 15 men a side.
        """
        if len(board) != 24 or sum(n for n in board if n > 0) > CHECKERS_PER_SIDE \
                or -sum(n for n in board if n < 0) > CHECKERS_PER_SIDE:
            raise SessionError(f"a board is 24 signed counts, at most 15 a side: {board!r}")
        self.tracker.correct(tuple(board))
        line = {"kind": "correction", "board": list(board), "text": "position set by hand"}
        return self._commit([line], self.next_frame - 1 if frame is None else frame, t, None)

    # Reacting ------------------------------------------------------------------------------

    def _push(self, event: Any, out: list[Event]) -> tuple[Any, ...]:
        derived = self.game.push(event)
        out.append(event.to_json())
        out.extend(d.to_json() for d in derived)
        return tuple(derived)

    def _react(self, event: TrackerEvent) -> tuple[list[Event], str | None]:
        out: list[Event] = []
        if isinstance(event, (ThrowSeen, PlaySeen, GatheredSeen)):
            self.open_question = None
        if isinstance(event, ThrowSeen):
            return out, self._throw(event.dice, self.tracker.board, out)
        if isinstance(event, DiceMisread):
            a, b = event.read
            c, d = event.dice
            out.append({"kind": "retract", "frame": event.frame,
                        "text": f"dice read as {a}{b}, but the men moved as only {c}{d} allows: "
                                f"the throw is scored again as {c}{d}"})
            self._retract()
            return out, self._throw(event.dice, event.board, out, expect=False)
        if isinstance(event, PlaySeen):
            self._play(event, out)
            return out, "idle"
        if isinstance(event, GatheredSeen):
            out.extend(self._decision(Choice.GO))
            return out, "idle"
        roller = self.game.state.turn.roller.value if self.game.state.turn else None
        if isinstance(event, FalseMoveSeen):
            alts = [[list(m) for m in c.play] for c in event.alternatives]
            out.append({"kind": "false_move", "by": roller, "frame": event.frame,
                        "alternatives": alts,
                        "text": f"no legal play fits what is seen (best is {event.board_cost:g} "
                                f"off); legal: "
                                + "; ".join(_play_text(c.play) for c in event.alternatives)})
            return out, "false move"
        if isinstance(event, QuestionRaised):
            self.open_question = event
            if event.about == "play":
                text = event.question + ": " + " or ".join(_play_text(c.play)
                                                             for c in event.options)
            else:
                text = event.question
            out.append({"kind": "question", "by": roller, "frame": event.frame,
                        "about": event.about,
                        "options": [[list(m) for m in c.play] for c in event.options],
                        "text": text})
            return out, None
        if isinstance(event, RerollSeen):
            text = {"on_die": "one die rests on the other: throw again",
                    "off_board": "a die is off the playing surface: throw again",
                    }.get(event.reason, f"bad throw ({event.reason}): throw again")
            if event.reason == "cocked":
                # WR "Dice throws": an inclined die resting on a man or the rail is good if
                # both players accept it, or if a witness die laid on it does not slide off.
                text = ("a die is cocked: throw again, unless both players accept it or a "
                        "witness die laid on it stays; then call the throw (dice NN)")
            out.append({"kind": "reroll", "frame": event.frame, "text": text})
            return out, "re-roll"
        assert isinstance(event, NoticeSeen)
        out.append({"kind": "notice", "frame": event.frame, "text": event.text})
        return out, None

    def _retract(self) -> None:
        # Take the last throw back: every input event since it, and it.
        while self.game.history:
            if self.game.pop().kind == "throw":
                return

    def _throw(self, thrown: tuple[int, int], board: Board, out: list[Event], *,
               expect: bool = True) -> str:
        mover = self.mover()
        dice = Dice(*thrown)
        position = position_of(board, mover)
        throws = self.game.state.throws_by(mover) + 1
        self._push(Throw(mover, dice), out)
        owed = jans(position, dice, rolls_so_far=throws, options=self.options)
        for j in owed:
            self._push(JanOwed(j.jan.value, j.player, j.points, j.ways), out)
        own = sum(j.points for j in owed if j.player is mover)
        other = sum(j.points for j in owed if j.player is not mover)
        won = False
        if own:
            derived = self._push(Mark(mover, own), out)
            won = any(isinstance(d, Hole) and d.player is mover for d in derived)
        if self.over:
            return "mark now"
        if other and not won:
            self._push(Mark(mover.other(), other), out)
        if expect:
            self.tracker.expect_play(thrown, mover.value, may_go=won)
        if won:
            return "tenir or go?"
        return "mark now" if own or other else "idle"

    def _decision(self, choice: Choice) -> list[Event]:
        out: list[Event] = []
        turn = self.game.state.turn
        assert turn is not None
        self._push(Decision(turn.roller, choice), out)
        if choice is Choice.GO:
            self.tracker.correct(START, cancel_play=True)
        else:
            other = sum(j.points for j in turn.owed if j.player is not turn.roller)
            if other:
                self._push(Mark(turn.roller.other(), other), out)
        return out

    def _play(self, event: PlaySeen, out: list[Event]) -> None:
        turn = self.game.state.turn
        assert turn is not None
        if event.marks is not None and event.marks != self.marks():
            out.append({"kind": "notice", "frame": event.frame,
                        "text": "the markers on the board differ from the score: "
                                + _marks_difference(event.marks, self.marks())})
        if turn.won_hole and turn.decision is None:
            out.extend(self._decision(Choice.STAY))
        mover = turn.roller
        board = event.candidate.board
        left = sum(n for n in board if (n > 0 if mover is Color.WHITE else n < 0))
        if event.asked:
            out.append({"kind": "answered", "frame": event.frame,
                        "text": f"play chosen by the players: {_play_text(event.candidate.play)}"})
        derived = self._push(Play(mover, event.candidate.play, last_off=left == 0), out)
        if any(d.kind == "releve" for d in derived):
            self.tracker.correct(START)

    def _buttons(self) -> list[Event]:
        out: list[Event] = []
        for display in self.displays:
            try:
                presses = display.poll_events()
            except Exception as exc:  # noqa: BLE001 - a display failing must not stop the match
                log.warning("display %r: %s", display, exc)
                continue
            for press in presses:
                kind = getattr(getattr(press, "kind", None), "value", None)
                choice = getattr(getattr(press, "decision", None), "value", None)
                turn = self.game.state.turn
                if kind == "correct":
                    out.append({"kind": "notice", "frame": self.next_frame - 1,
                                "text": "a player asks for a correction: set the board "
                                        "(board NOTATION) or answer the question at the "
                                        "console"})
                elif choice in ("stay", "go") and turn is not None and turn.won_hole \
                        and turn.decision is None:
                    out.extend(self._decision(Choice(choice)))
        return out

    def _commit(self, lines: list[Event], frame: int, t: float, status: str | None) -> list[Event]:
        if status is not None:
            self.status = status
        s = self.game.score
        lines.append({"kind": "seen", "frame": frame, "t": round(t, 3),
                      "score": {"white": _score_json(s.white), "black": _score_json(s.black),
                                "pavillon": s.pavillon.value,
                                "winner": None if s.winner is None else s.winner.value},
                      "board": list(self.tracker.board), "status": self.status,
                      "tracker": self.tracker.snapshot()})
        for line in lines:
            self.journal.append(line)
        self._show(self.status, t=t)
        return lines

    def _show(self, status: str, *, t: float) -> None:
        marks = self.marks()
        self.shown.append((t, marks, status))
        for display in self.displays:
            try:
                display.show(marks, status=_status(status))
            except Exception as exc:  # noqa: BLE001 - an unplugged display must not stop play
                log.warning("display %r: %s", display, exc)


def _marks_difference(seen: Marks, want: Marks) -> str:
    parts: list[str] = []
    for who in ("white", "black"):
        a, b = getattr(seen, who), getattr(want, who)
        if a.token_spot != b.token_spot:
            parts.append(f"{who}'s jeton at {a.token_spot}, should be at {b.token_spot}")
        if a.bredouille_token != b.bredouille_token:
            parts.append(f"{who}'s bredouille jeton {'out' if a.bredouille_token else 'in'}, "
                         f"should be {'out' if b.bredouille_token else 'in'}")
        if a.peg_hole != b.peg_hole:
            parts.append(f"{who}'s fichet in hole {a.peg_hole}, should be in {b.peg_hole}")
    if seen.pavillon is not want.pavillon:
        parts.append(f"pavillon {seen.pavillon.value}, should be {want.pavillon.value}")
    return "; ".join(parts) or "they differ"


def _status(name: str) -> Any:
    try:
        from tablier.hardware import Status
    except ImportError:
        return name
    for s in Status:
        if s.value == name:
            return s
    return name


def _play_text(play: Sequence[Sequence[int]]) -> str:
    if not play:
        return "(no play)"
    return " ".join(f"{a}/{'off' if b == 0 else b}" for a, b in play)


__all__ = ["COMPANION_KINDS", "Display", "JournalError", "MatchInfo", "Resumed", "Session",
           "SessionError", "committed", "legal_results", "position_of", "rule_options"]
