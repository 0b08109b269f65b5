"""The tracker: a stream of board views in, the events of each turn out.

The camera cannot count a pile (fifteen dames start stacked on a talon), so the tracker never
reads the position from one image alone. It keeps the position it knows, and when a play is
made it asks the rules for every legal result of the dice from that position and keeps the
result that best explains what the camera sees (:func:`rank_candidates`). When no legal result
fits, the play is a false move (fausse case) and the legal alternatives are shown; when two
fit about as well, it asks instead of guessing.

It only reads a *still* board: :attr:`Tracker.still_frames` identical readings in a row with no
hand over the board. The order of a turn is:

1. dice thrown and settled: :class:`ThrowSeen` at once (the jans are owed before a man is
   touched), or :class:`RerollSeen` for a bad throw (cocked, off the board, one on the other);
2. men moved: :class:`PlaySeen` when the dice are taken up (or the next throw settles), or
   :class:`GatheredSeen` when every man is back on the talons (the player went: s'en aller),
   or :class:`FalseMoveSeen` when no legal play fits, or :class:`QuestionRaised` when unsure.

The tracker holds no wall-clock state: what it does depends only on the views it is given and
on the position it is told, so a replay resumed after a crash takes the same decisions.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

Board = tuple[int, ...]
"""24 signed counts in White's numbering (field ``n`` at index ``n - 1``): White > 0, Black < 0."""

START: Board = (15,) + (0,) * 22 + (-15,)
"""Both sides on their talons: White on his field 1, Black on his field 1 (White's 24)."""


class Side(enum.Enum):
    """Whose dames occupy a field, as seen."""

    WHITE = "white"
    BLACK = "black"


@dataclass(frozen=True)
class FieldView:
    """What one frame shows on one field."""

    side: Side | None
    """Whose dames are there; None for an empty field."""
    visible: int
    """How many dames are visibly there."""
    at_least: bool = False
    """True when dames may be piled, so that ``visible`` (stacks seen) is only a lower bound."""
    confidence: float = 1.0
    """How sure the reading is, 0..1."""


@dataclass(frozen=True)
class BoardView:
    """What the tracker needs from one frame (built from the recogniser's observation)."""

    frame: int
    """Index of the frame in its source."""
    t: float
    """Time of the frame in seconds from the start of the source."""
    occluded: bool = False
    """A hand, an arm or the dice cup is over the board: nothing is read."""
    moving: bool = False
    """The board changed since the frame before: not still, so nothing is judged, but where
    dice are seen still says where the dice lie."""
    dice: tuple[int, int] | None = None
    """Both dice's top faces, when two dice lie flat and are read."""
    dice_seen: int = 0
    """How many dice are on the board (0 once they are taken up)."""
    dice_at: tuple[tuple[float, float], ...] = ()
    """Where the dice lie (pixels), to tell a new throw of the same numbers from the last."""
    die_size: float = 20.0
    """A die's size in pixels: dice moved by more than half of it were thrown again."""
    bad_throw: str | None = None
    """Why the throw does not count (``"cocked"``, ``"off board"``, ...), or None."""
    dice_confidence: float = 1.0
    """How sure the dice reading is, 0..1."""
    fields: tuple[FieldView, ...] | None = None
    """The 24 fields in White's numbering, or None when the board could not be read."""
    problem: str | None = None
    """Why the frame could not be read at all (unreadable image, no board), or None."""
    marks: Any = None
    """The markers as seen (a :class:`tablier.engine.Marks`), None when not read."""

    def reading(self) -> str:
        """The part of the view that must stay the same for the board to count as still.

        The dice and whose dames stand on each field; the number of stacks only where it is
        a true count (a pile's stacks are a lower bound, and they wobble from frame to frame).

        Returns:
            A compact text summary (JSON-safe, for snapshots).

        Raises:
            Nothing.

        >>> view_of_board(START, dice=(6, 4)).reading()[:12]
        '64/2/-|W+ . '
        """
        dice = "--" if self.dice is None else f"{self.dice[0]}{self.dice[1]}"
        head = f"{dice}/{self.dice_seen}/{self.bad_throw or '-'}|"
        if self.fields is None:
            return head + "?"
        return head + " ".join(
            "." if f.side is None else f.side.value[0].upper()
            + ("+" if f.at_least else str(f.visible)) for f in self.fields)

    def men(self) -> str:
        """The men part of :meth:`reading` (the dice left out: they may be taken up meanwhile).

        >>> view_of_board(START, dice=(6, 4)).men()[:5]
        'W+ . '
        """
        return self.reading().split("|", 1)[1]


def view_of_board(board: Board, *, frame: int = 0, t: float = 0.0,
                  dice: tuple[int, int] | None = None, pile: int = 5) -> BoardView:
    """Build the view a perfect camera would give of a board (for tests and simulations).

    Args:
        board: the 24 signed counts.
        frame: the frame index.
        t: the frame time.
        dice: the dice lying on the board, if any.
        pile: piles taller than this show only ``pile`` dames (``at_least`` is set).

    Returns:
        The view.

    Raises:
        Nothing.

    >>> v = view_of_board(START)
    >>> v.fields[0]
    FieldView(side=<Side.WHITE: 'white'>, visible=5, at_least=True, confidence=1.0)
    """
    fields = tuple(
        FieldView(side=None if n == 0 else Side.WHITE if n > 0 else Side.BLACK,
                  visible=min(abs(n), pile), at_least=abs(n) > pile)
        for n in board)
    return BoardView(frame=frame, t=t, dice=dice, dice_seen=0 if dice is None else 2,
                     fields=fields)


# ---------------------------------------------------------------------------------------------
# Matching legal results against a view.

Move = tuple[int, int]
"""One man moved: (from field, to field) in the mover's own numbering; 0 as target = borne off."""
Play = tuple[Move, ...]
"""A whole play for one throw."""


@dataclass(frozen=True)
class Candidate:
    """One legal play and the board it leaves."""

    play: Play
    """The moves, in the mover's numbering."""
    board: Board
    """The board after the play."""
    cost: float = 0.0
    """How badly the board disagrees with the view (0 = explains it fully)."""
    dice: tuple[int, int] | None = None
    """The throw, when the candidate stands for a throw other than the dice read."""


COLOUR_COST = 10.0
"""Cost of a field seen in the wrong colour (or empty when it should hold dames)."""
COUNT_COST = 1.0
"""Cost of each dame too many or too few where the count can be seen."""
OVER_COST = 5.0
"""Cost of each stack seen beyond the dames a candidate puts there (piles never add stacks)."""
UNDER_COST = 0.1
"""Cost of each stack fewer than a row of the candidate's dames would show (piling is less
usual than rows, but happens: it breaks ties, it never makes a false move)."""
SLOTS = 5
"""Dames that fit side by side along one field."""


def field_cost(expected: int, seen: FieldView) -> float:
    """How badly one field's reading disagrees with ``expected`` signed dames.

    Args:
        expected: signed count the candidate puts on the field.
        seen: what the camera read there.

    Returns:
        The cost, weighted by the reading's confidence.

    Raises:
        Nothing.

    >>> field_cost(3, FieldView(Side.WHITE, 3))
    0.0
    >>> field_cost(15, FieldView(Side.WHITE, 5, at_least=True))
    0.0
    >>> field_cost(-2, FieldView(Side.WHITE, 2))
    10.0
    >>> field_cost(3, FieldView(Side.WHITE, 1, at_least=True))
    0.2
    """
    side = None if expected == 0 else Side.WHITE if expected > 0 else Side.BLACK
    n = abs(expected)
    if side is not seen.side:
        cost = COLOUR_COST
    elif seen.at_least:
        if seen.visible > n:
            cost = OVER_COST * (seen.visible - n)
        else:
            cost = round(UNDER_COST * max(0, min(n, SLOTS) - seen.visible), 6)
    else:
        cost = COUNT_COST * abs(n - seen.visible)
    return cost * seen.confidence


def board_cost(board: Board, view: BoardView) -> float:
    """Total cost of explaining ``view`` by ``board`` (sum of :func:`field_cost`).

    Args:
        board: the candidate board.
        view: the reading; its ``fields`` must be set.

    Returns:
        The cost.

    Raises:
        ValueError: if the view holds no field reading.
    """
    if view.fields is None or len(view.fields) != 24:
        raise ValueError("the view holds no reading of the 24 fields")
    return sum(field_cost(n, f) for n, f in zip(board, view.fields, strict=True))


def rank_candidates(candidates: Sequence[Candidate], view: BoardView) -> list[Candidate]:
    """Cost every candidate against the view, best first; equal boards are kept once.

    Args:
        candidates: the legal plays with their resulting boards.
        view: the reading.

    Returns:
        The candidates with their cost, sorted by cost then by play (stable and deterministic).

    Raises:
        ValueError: if the view holds no field reading.
    """
    seen: set[Board] = set()
    out: list[Candidate] = []
    for cand in candidates:
        if cand.board in seen:
            continue
        seen.add(cand.board)
        out.append(replace(cand, cost=board_cost(cand.board, view)))
    out.sort(key=lambda c: (c.cost, c.play))
    return out


FIT = 1.5
"""A candidate whose cost is at most this explains the view (one miscounted dame forgiven)."""
MARGIN = 1.0
"""The best candidate must beat the next by more than this, or the tracker asks."""


class Verdict(enum.Enum):
    """What matching a view against the legal plays concluded."""

    CERTAIN = "certain"
    UNCERTAIN = "uncertain"
    FALSE_MOVE = "false_move"


def judge(ranked: Sequence[Candidate]) -> Verdict:
    """Decide from the ranked candidates whether the play is known, doubtful or illegal.

    Args:
        ranked: the output of :func:`rank_candidates`.

    Returns:
        The verdict.

    Raises:
        Nothing.

    >>> judge([Candidate((), START, 0.0), Candidate(((1, 7),), START, 12.0)]).value
    'certain'
    >>> judge([Candidate((), START, 0.5), Candidate(((1, 7),), START, 1.0)]).value
    'uncertain'
    >>> judge([Candidate((), START, 20.0)]).value
    'false_move'
    """
    if not ranked or ranked[0].cost > FIT:
        return Verdict.FALSE_MOVE
    if len(ranked) > 1 and ranked[1].cost - ranked[0].cost <= MARGIN:
        return Verdict.UNCERTAIN
    return Verdict.CERTAIN


# ---------------------------------------------------------------------------------------------
# Events.


@dataclass(frozen=True)
class ThrowSeen:
    """Two dice thrown and settled: the jans are owed now."""

    dice: tuple[int, int]
    """The top faces."""
    frame: int
    """The frame where they were read as settled."""
    t: float
    """Its time."""


@dataclass(frozen=True)
class RerollSeen:
    """A bad throw: it does not count and must be thrown again."""

    reason: str
    """Why (cocked, off the board, one die on the other)."""
    frame: int
    """The frame where it was seen."""


@dataclass(frozen=True)
class PlaySeen:
    """The play made for the last throw."""

    candidate: Candidate
    """The legal play and the board it leaves."""
    frame: int
    """The frame it was read on."""
    asked: bool = False
    """True when it was chosen by a player's answer, not by sight alone."""
    marks: Any = None
    """The markers as seen on that frame (the players have marked by then), if read."""


@dataclass(frozen=True)
class GatheredSeen:
    """Every man is back on the talons: the player went (s'en aller)."""

    frame: int
    """The frame it was seen on."""


@dataclass(frozen=True)
class FalseMoveSeen:
    """The men stand where no legal play puts them (fausse case)."""

    board_cost: float
    """How far the best legal play is from what is seen."""
    alternatives: tuple[Candidate, ...]
    """The legal plays closest to what is seen, best first."""
    frame: int
    """The frame it was seen on."""


@dataclass(frozen=True)
class QuestionRaised:
    """The tracker is unsure and asks instead of guessing."""

    question: str
    """What to ask, in one line."""
    options: tuple[Candidate, ...]
    """The plays between which it hesitates."""
    frame: int
    """The frame it was asked on."""
    about: str = "play"
    """``"play"`` (which play was made), ``"dice"`` (what the unreadable dice show; the
    options then hold every throw, each with the board unchanged) or ``"misread"`` (which
    throw, other than the one read, the men's moves show)."""


@dataclass(frozen=True)
class DiceMisread:
    """The men moved as only another throw allows: the dice were misread.

    Followed at once by the :class:`PlaySeen` of that throw's play.
    """

    read: tuple[int, int]
    """What the dice were read as."""
    dice: tuple[int, int]
    """The only throw whose legal plays explain the men."""
    board: Board
    """The position at the throw."""
    frame: int
    """The frame it was found on."""


@dataclass(frozen=True)
class NoticeSeen:
    """Something the players should know (a frame could not be read, ...); no state changes."""

    text: str
    """The message."""
    frame: int
    """The frame concerned."""


TrackerEvent = (ThrowSeen | RerollSeen | PlaySeen | GatheredSeen | FalseMoveSeen
                | QuestionRaised | DiceMisread | NoticeSeen)

LegalResults = Callable[[Board, str, tuple[int, int]], Sequence[Candidate]]
"""``(board, mover, dice) -> legal candidates``; ``mover`` is ``"white"`` or ``"black"``."""

Answer = Callable[[QuestionRaised], Candidate | None]
"""Asks the players a question; returns the chosen candidate, or None when nobody answers."""


class Phase(enum.Enum):
    """Where the tracker is in a turn."""

    AWAIT_THROW = "await_throw"
    AWAIT_PLAY = "await_play"


@dataclass
class _Pending:
    dice: tuple[int, int]
    mover: str
    may_go: bool
    last_fit: Candidate | None = None
    asked: bool = False
    reported: list[str] = field(default_factory=list)
    start_key: str | None = None
    suspect: str | None = None


def _candidate_json(c: Candidate | None) -> object:
    if c is None:
        return None
    return {"play": [list(m) for m in c.play], "board": list(c.board), "cost": c.cost,
            "dice": None if c.dice is None else list(c.dice)}


def _candidate_from(data: object) -> Candidate | None:
    if data is None:
        return None
    assert isinstance(data, dict)
    dice = data.get("dice")
    return Candidate(play=tuple((int(a), int(b)) for a, b in data["play"]),
                     board=tuple(int(n) for n in data["board"]), cost=float(data["cost"]),
                     dice=None if dice is None else (int(dice[0]), int(dice[1])))


def _near(p: tuple[float, float], q: tuple[float, float], limit: float) -> bool:
    return (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 <= limit * limit


class Tracker:
    """Turns board views into turn events, following the legal plays from a known position.

    Args:
        legal: the rules' legal results for a board, a mover and the dice.
        board: the position it starts from.
        still_frames: how many identical readings in a row make a still board.
        answer: asks a player when a reading is uncertain; None means nobody can answer, and
            the question stays raised (flagged, not guessed) until the board changes.

    Raises:
        ValueError: if ``still_frames`` is below 1.
    """

    def __init__(self, legal: LegalResults, *, board: Board = START, still_frames: int = 2,
                 answer: Answer | None = None) -> None:
        if still_frames < 1:
            raise ValueError(f"still_frames must be at least 1, not {still_frames!r}")
        self._legal = legal
        self.board: Board = board
        """The position the tracker knows."""
        self.still_frames = still_frames
        self._answer = answer
        self._pending: _Pending | None = None
        self._last_dice: tuple[int, int] | None = None
        self._last_at: tuple[tuple[float, float], ...] = ()
        self._throw_men: str | None = None
        self._bad_at: tuple[tuple[float, float], ...] = ()
        self._bad_men: str | None = None
        self._dice_cleared = True
        self._run: str | None = None
        self._run_length = 0
        self._last_problem: str | None = None

    @property
    def phase(self) -> Phase:
        """Whether a throw or a play is awaited."""
        return Phase.AWAIT_THROW if self._pending is None else Phase.AWAIT_PLAY

    # State that must survive a crash: the session stores it with every journal event.

    def snapshot(self) -> dict[str, object]:
        """Everything the tracker remembers, as JSON-safe data (see :meth:`restore`).

        Returns:
            The state.

        Raises:
            Nothing.
        """
        pending = self._pending
        return {
            "board": list(self.board),
            "pending": None if pending is None else {
                "dice": list(pending.dice), "mover": pending.mover, "may_go": pending.may_go,
                "last_fit": _candidate_json(pending.last_fit), "asked": pending.asked,
                "reported": list(pending.reported), "start_key": pending.start_key,
                "suspect": pending.suspect},
            "last_dice": None if self._last_dice is None else list(self._last_dice),
            "last_at": [list(p) for p in self._last_at],
            "throw_men": self._throw_men,
            "bad_at": [list(p) for p in self._bad_at],
            "bad_men": self._bad_men,
            "dice_cleared": self._dice_cleared,
            "run": self._run, "run_length": self._run_length,
            "last_problem": self._last_problem,
        }

    def restore(self, state: dict[str, object]) -> None:
        """Return to a state taken by :meth:`snapshot`.

        Args:
            state: the snapshot.

        Raises:
            ValueError: if the snapshot is malformed.
        """
        try:
            board = tuple(int(n) for n in state["board"])  # type: ignore[attr-defined]
            if len(board) != 24:
                raise ValueError("a board has 24 fields")
            p = state["pending"]
            pending = None
            if p is not None:
                assert isinstance(p, dict)
                a, b = p["dice"]
                pending = _Pending(dice=(int(a), int(b)), mover=str(p["mover"]),
                                   may_go=bool(p["may_go"]),
                                   last_fit=_candidate_from(p["last_fit"]),
                                   asked=bool(p["asked"]),
                                   reported=[str(k) for k in p["reported"]],
                                   start_key=None if p.get("start_key") is None
                                   else str(p["start_key"]),
                                   suspect=None if p.get("suspect") is None
                                   else str(p["suspect"]))
            last = state["last_dice"]
            last_dice = None if last is None else (int(last[0]), int(last[1]))  # type: ignore[index]
            last_at = tuple((float(p[0]), float(p[1]))
                            for p in state["last_at"])  # type: ignore[attr-defined]
            bad_at = tuple((float(p[0]), float(p[1]))
                           for p in state.get("bad_at", ()))  # type: ignore[attr-defined]
            run = state["run"]
            problem = state["last_problem"]
            run_length = int(state["run_length"])  # type: ignore[call-overload]
        except (KeyError, TypeError, ValueError, AssertionError) as exc:
            raise ValueError(f"malformed tracker state: {exc}") from None
        self.board = board
        self._pending = pending
        self._last_dice = last_dice
        self._last_at = last_at
        throw_men = state.get("throw_men")
        self._throw_men = None if throw_men is None else str(throw_men)
        self._bad_at = bad_at
        bad_men = state.get("bad_men")
        self._bad_men = None if bad_men is None else str(bad_men)
        self._dice_cleared = bool(state["dice_cleared"])
        self._run = None if run is None else str(run)
        self._run_length = run_length
        self._last_problem = None if problem is None else str(problem)

    # What the session tells the tracker.

    def expect_play(self, dice: tuple[int, int], mover: str, *, may_go: bool = False) -> None:
        """Wait for the play of a throw the session has accepted (after a :class:`ThrowSeen`).

        Args:
            dice: the throw.
            mover: ``"white"`` or ``"black"``.
            may_go: True when the throw made a hole, so the player may gather the men (go).

        Raises:
            Nothing.
        """
        if self._bad_at:
            # NOTE: a bad throw the players accept (an inclined die both hold good, or whose
            # witness die stayed), called by hand: its dice still lie where they fell, and are
            # this throw's (not the next one's) while the play is made.
            self._last_at, self._bad_at = self._bad_at, ()
            self._throw_men, self._bad_men = self._bad_men, None
        self._pending = _Pending(dice=dice, mover=mover, may_go=may_go,
                                 start_key=self._throw_men)
        self._last_dice = dice
        self._dice_cleared = False

    def correct(self, board: Board, *, cancel_play: bool = False) -> None:
        """Set the position by hand (a player's correction).

        Args:
            board: the position as the players agree it stands.
            cancel_play: also forget the throw awaiting its play (the board now stands after
                it, or the throw was void).

        Raises:
            Nothing.
        """
        self.board = board
        if self._pending is not None:
            if cancel_play:
                self._pending = None
            else:
                self._pending.reported.clear()
                self._pending.last_fit = None
        self._reset_still()

    def finish(self, frame: int) -> list[TrackerEvent]:
        """The frames have ended (a recording's end): close the play awaited if it is known.

        Args:
            frame: the last frame's index.

        Returns:
            The :class:`PlaySeen` of the play last seen beyond doubt, or nothing.

        Raises:
            Nothing.
        """
        pending = self._pending
        if pending is None or pending.last_fit is None:
            return []
        self._pending = None
        self.board = pending.last_fit.board
        return [PlaySeen(pending.last_fit, frame, asked=pending.asked)]

    def resolve(self, candidate: Candidate) -> None:
        """Take a player's answer to a question about the play awaited.

        Args:
            candidate: the option chosen; with ``dice`` set, the throw was misread as well.

        Raises:
            ValueError: if no play is awaited.
        """
        if self._pending is None:
            raise ValueError("no play is awaited")
        if candidate.dice is not None:
            self._pending.dice = candidate.dice
        self._pending.last_fit, self._pending.asked = candidate, True

    def _reset_still(self) -> None:
        self._run = None
        self._run_length = 0

    def feed(self, view: BoardView) -> list[TrackerEvent]:
        """Take one view; return the events it completes (often none).

        The session answers a :class:`ThrowSeen` with :meth:`expect_play` (telling the mover and
        whether he may go). After a :class:`PlaySeen` or :class:`GatheredSeen` the tracker waits
        for the next throw by itself.

        Args:
            view: the next frame's reading.

        Returns:
            The events, in order.

        Raises:
            Nothing: unreadable frames become :class:`NoticeSeen`.
        """
        if view.problem is not None:
            self._reset_still()
            if view.problem != self._last_problem:
                self._last_problem = view.problem
                return [NoticeSeen(f"frame {view.frame} unreadable: {view.problem}", view.frame)]
            return []
        self._last_problem = None
        if view.occluded or view.moving:
            # NOTE: while a play is awaited, hands over the board are moving men, not taking
            # the dice up; only a view without dice says the dice left.
            self._reset_still()
            if self._pending is None:
                self._dice_cleared = True
            if not view.occluded:
                self._learn_dice(view)
            return []
        if view.dice_seen == 0:
            self._dice_cleared = True
        key = view.reading()
        if key == self._run:
            self._run_length += 1
        else:
            self._run, self._run_length = key, 1
        pending = self._pending
        if (self._run_length == self.still_frames + 1 and pending is not None
                and view.fields is not None
                and pending.suspect == key.split("|", 1)[1]):
            return self._look_at_men(pending, view, confirm=True)
        if self._run_length != self.still_frames:
            return []
        return self._still(view)

    def _still(self, view: BoardView) -> list[TrackerEvent]:
        events: list[TrackerEvent] = []
        new_dice = view.dice is not None and view.bad_throw is None and self._new_throw(view)
        unread = (view.dice is None and view.bad_throw is None and view.dice_seen >= 1
                  and bool(view.dice_at) and (not self._last_at or self._all_moved(view)))
        # a bad throw landing where no die of the last throw lay: that throw's play is over
        bad = (view.bad_throw is not None and view.dice_seen > 0 and bool(view.dice_at)
               and bool(self._last_at) and self._all_moved(view))
        if not (new_dice or unread or bad):
            self._learn_dice(view)
        new_dice = new_dice or unread
        pending = self._pending
        if pending is not None:
            if view.fields is not None:
                events.extend(self._look_at_men(pending, view))
                if self._pending is None:
                    return events
            if not (view.dice_seen == 0 or new_dice or bad):
                return events
            events.extend(self._close_play(pending, view))
            if self._pending is not None:
                return events
        if view.bad_throw is not None and view.dice_seen > 0:
            self._bad_at = view.dice_at
            self._bad_men = None if view.fields is None else view.men()
            events.append(RerollSeen(view.bad_throw, view.frame))
            return events
        self._bad_at, self._bad_men = (), None
        if unread:
            # Dice thrown anew but their faces cannot be read: ask, never guess.
            self._last_at = view.dice_at
            self._dice_cleared = False
            options = tuple(Candidate(play=(), board=self.board, dice=(a, b))
                            for a in range(1, 7) for b in range(a, 7))
            # NOTE: a die resting squarely on the other hides it from the camera: the players
            # see the bad throw and throw again, which sets this question aside.
            question = QuestionRaised("the dice cannot be read: what was thrown? (a bad "
                                      "throw: throw again)", options,
                                      view.frame, about="dice")
            events.append(question)
            chosen = self._answer(question) if self._answer is not None else None
            if chosen is None or chosen.dice is None:
                return events
            view = replace(view, dice=chosen.dice)
        if (new_dice or unread) and view.dice is not None:
            self._last_dice = view.dice
            self._last_at = view.dice_at
            self._throw_men = None if view.fields is None else view.men()
            self._dice_cleared = False
            events.append(ThrowSeen(view.dice, view.frame, view.t))
        return events

    def _new_throw(self, view: BoardView) -> bool:
        if view.dice_at and self._last_at:
            # NOTE: thrown dice never land where they lay: where they are says more than what
            # they show (a die misread once must not make a second throw) or than a frame where
            # the reader missed one or both. One die may land where one lay: then the numbers
            # must differ too.
            if self._all_moved(view):
                return True
            far = view.die_size / 2
            one_moved = any(not any(_near(p, q, far) for q in self._last_at)
                            for p in view.dice_at)
            return (one_moved and view.dice is not None and self._last_dice is not None
                    and sorted(view.dice) != sorted(self._last_dice))
        return self._dice_cleared or view.dice != self._last_dice

    def _all_moved(self, view: BoardView) -> bool:
        # No die seen lies where a die of the last throw was seen.
        far = view.die_size / 2
        return not any(_near(p, q, far) for p in view.dice_at for q in self._last_at)

    def _learn_dice(self, view: BoardView) -> None:
        # Dice of the last throw seen again, some where they had not been seen (the reader
        # missed them before): remember those places too.
        if not view.dice_at or not self._last_at or self._all_moved(view):
            return
        far = view.die_size / 2
        extra = tuple(p for p in view.dice_at
                      if not any(_near(p, q, far) for q in self._last_at))
        self._last_at = (self._last_at + extra)[:4]

    def _look_at_men(self, pending: _Pending, view: BoardView, *,
                     confirm: bool = False) -> list[TrackerEvent]:
        if pending.may_go and board_cost(START, view) <= FIT and self.board != START:
            # Every man back on the talons: the player went.
            self._pending = None
            self.board = START
            return [GatheredSeen(view.frame)]
        ranked = rank_candidates(self._legal(self.board, pending.mover, pending.dice), view)
        verdict = judge(ranked)
        if verdict is Verdict.CERTAIN:
            pending.last_fit, pending.asked = ranked[0], False
            return []
        men = view.men()
        if men in pending.reported:
            return []  # already flagged or answered for these very men
        if men == pending.start_key or board_cost(self.board, view) < COUNT_COST:
            pending.last_fit = None
            return []  # nothing seen to move yet: wait (decided when the dice are taken up)
        if verdict is Verdict.FALSE_MOVE and not confirm:
            # NOTE: one frame may show a hand or the cup that the occlusion check missed; a
            # false move is only called when the next frame shows the same men.
            pending.suspect = men
            return []
        pending.last_fit = None
        return self._doubt(pending, ranked, verdict, view)

    def _doubt(self, pending: _Pending, ranked: list[Candidate], verdict: Verdict,
               view: BoardView) -> list[TrackerEvent]:
        assert view.fields is not None
        key = view.men()  # the men only: the dice may go meanwhile
        if key in pending.reported:
            return []
        pending.reported.append(key)
        if verdict is Verdict.FALSE_MOVE:
            best = ranked[0].cost if ranked else float("inf")
            return [FalseMoveSeen(best, tuple(ranked[:3]), view.frame)]
        options = tuple(c for c in ranked if c.cost - ranked[0].cost <= MARGIN)
        question = QuestionRaised(
            f"which play was made with {pending.dice[0]}{pending.dice[1]}? "
            f"{len(options)} legal plays fit what is seen", options, view.frame)
        chosen = self._answer(question) if self._answer is not None else None
        pending.last_fit, pending.asked = chosen, chosen is not None
        return [question]

    def _other_dice(self, pending: _Pending, view: BoardView) -> list[Candidate]:
        # The throws other than the dice read whose legal plays explain the men beyond doubt
        # (and not by leaving them where they were), best first, each with its dice.
        found: list[Candidate] = []
        for a in range(1, 7):
            for b in range(a, 7):
                if sorted((a, b)) == sorted(pending.dice):
                    continue
                ranked = rank_candidates(self._legal(self.board, pending.mover, (a, b)), view)
                if ranked and ranked[0].cost <= FIT and ranked[0].board != self.board:
                    found.append(replace(ranked[0], dice=(a, b)))
        found.sort(key=lambda c: (c.cost, c.dice or (0, 0)))
        return found

    def _misread(self, pending: _Pending, view: BoardView) -> list[TrackerEvent]:
        others = self._other_dice(pending, view)
        if not others:
            return []
        chosen: Candidate | None = None
        events: list[TrackerEvent] = []
        if len(others) == 1:
            chosen = others[0]
        else:
            key = "dice:" + view.men()
            if key in pending.reported:
                return []
            pending.reported.append(key)
            read = f"{pending.dice[0]}{pending.dice[1]}"
            question = QuestionRaised(
                f"the men moved as no play of {read} allows: which throw was it? "
                + " or ".join(f"{c.dice[0]}{c.dice[1]}" for c in others if c.dice),
                tuple(others), view.frame, about="misread")
            events.append(question)
            chosen = self._answer(question) if self._answer is not None else None
            if chosen is None or chosen.dice is None:
                return events
            pending.asked = True
        assert chosen.dice is not None
        events.append(DiceMisread(pending.dice, chosen.dice, self.board, view.frame))
        pending.dice, pending.last_fit = chosen.dice, chosen
        return events

    def _close_play(self, pending: _Pending, view: BoardView) -> list[TrackerEvent]:
        events: list[TrackerEvent] = []
        if pending.last_fit is None and view.fields is not None:
            # Nothing certain was seen while the dice lay: judge the board as it stands now.
            ranked = rank_candidates(self._legal(self.board, pending.mover, pending.dice), view)
            verdict = judge(ranked)
            if verdict is Verdict.CERTAIN:
                pending.last_fit, pending.asked = ranked[0], False
            elif verdict is Verdict.FALSE_MOVE and (misread := self._misread(pending, view)):
                events.extend(misread)
            else:
                events.extend(self._doubt(pending, ranked, verdict, view))
        fit = pending.last_fit
        if fit is None:
            return events  # flagged, not guessed: the play stays open until corrected
        self._pending = None
        self.board = fit.board
        self._reset_still()
        return [*events, PlaySeen(fit, view.frame, asked=pending.asked, marks=view.marks)]
