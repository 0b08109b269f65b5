"""What every marker display shares: the protocol, the status, the events and the errors.

A display is told the target state of every marker (a :class:`tablier.engine.Marks`) and a short
:class:`Status`; it returns at once. Back ends with buttons report what the players pressed
through :meth:`MarkerDisplay.poll_events`, which never blocks: the game loop calls it when it
wants to know (after a hole, to learn tenir or s'en aller).
"""

from __future__ import annotations

import enum
import queue
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tablier.engine import TOKEN_SPOTS, Color, Marks, Pavillon, PlayerMarks

if TYPE_CHECKING:
    from typing_extensions import Self

LIT_SPOTS: tuple[int, ...] = (2, 4, 6, 7, 12)
"""Jeton spots that have a light or a peg hole of their own (0, by the talons, has none)."""


class HardwareError(Exception):
    """Base class of every error raised by :mod:`tablier.hardware`."""


class DeviceClosed(HardwareError):
    """A display was used after :meth:`MarkerDisplay.close`."""


class MarkerValueError(HardwareError, ValueError):
    """A marker state or a URL is out of range or malformed."""


class HardwareWarning(UserWarning):
    """A back end fell back to something less than asked for (logged, never fatal)."""


class PegError(HardwareError):
    """Base class of the serial peg driver's errors."""


class PegTimeoutError(PegError, TimeoutError):
    """The device did not answer a command in time, after every retry."""


class PegProtocolError(PegError):
    """The device answered something the host cannot accept (wrong version, ``err`` reply)."""


class PegLinkError(PegError, ConnectionError):
    """The serial port could not be opened, or was lost (unplugged)."""


class Status(enum.Enum):
    """The short message shown beside the markers."""

    IDLE = "idle"
    """Nothing to do."""
    MARK = "mark now"
    """Points were won: move the markers to where the lights show."""
    SCHOOL = "school"
    """A player forgot to mark (école): the opponent may claim the points."""
    REROLL = "re-roll"
    """A bad throw (cocked die, off the board): throw again."""
    FALSE_MOVE = "false move"
    """The dames moved illegally (fausse case)."""
    DECIDE = "tenir or go?"
    """A hole was won by the roller's own throw: he must say tenir or s'en aller."""

    @property
    def wire(self) -> str:
        """The word used for this status on the serial protocol (``MARK``, ``FALSE``...).

        >>> Status.FALSE_MOVE.wire
        'FALSE'
        """
        return _WIRE_STATUS[self]


_WIRE_STATUS = {Status.IDLE: "IDLE", Status.MARK: "MARK", Status.SCHOOL: "SCHOOL",
                Status.REROLL: "REROLL", Status.FALSE_MOVE: "FALSE", Status.DECIDE: "DECIDE"}


class EventKind(enum.Enum):
    """What a player asked for with a button."""

    DECISION = "decision"
    """Tenir or s'en aller after winning a hole."""
    CORRECT = "correct"
    """"Correct me": the markers or the reading are wrong, take the last throw back."""


class Decision(enum.Enum):
    """A player's choice after winning a hole with his own throw (same words as ``marks``)."""

    STAY = "stay"
    """Tenir: keep playing from the position as it stands."""
    GO = "go"
    """S'en aller: gather the dames and start a new relevé."""


@dataclass(frozen=True)
class MarkerEvent:
    """One button press, as every back end reports it."""

    kind: EventKind
    """Decision or correction request."""
    player: Color | None = None
    """Who pressed (None for the shared "correct me" button)."""
    decision: Decision | None = None
    """Tenir or s'en aller, for a :attr:`EventKind.DECISION` event."""


@runtime_checkable
class MarkerDisplay(Protocol):
    """Anything that shows where the markers belong (LEDs, pegs, a console drawing).

    ``show`` returns at once; ``close`` is idempotent; use after close raises
    :class:`DeviceClosed`. Displays are context managers.
    """

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has been called."""

    def show(self, marks: Marks, *, status: Status = Status.IDLE) -> None:
        """Show the target state of every marker and a status; never blocks.

        Raises:
            DeviceClosed: after :meth:`close`.
            MarkerValueError: if ``marks`` or ``status`` is out of range.
        """

    def poll_events(self) -> list[MarkerEvent]:
        """The button presses since the last call, oldest first; never blocks.

        Raises:
            DeviceClosed: after :meth:`close`.
        """

    def close(self) -> None:
        """Release the device; later calls do nothing.

        Raises:
            Nothing.
        """

    def __enter__(self) -> Self: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...


def check_marks(marks: Marks) -> Marks:
    """Check that a Marks is within what the board can show.

    Args:
        marks: the target state.

    Returns:
        The same object.

    Raises:
        MarkerValueError: if a jeton spot, hole or pavillon is out of range, naming it.

    >>> from tablier.engine import Score
    >>> check_marks(Marks.from_scores(Score(), Score())).pavillon
    <Pavillon.MIDDLE: 'middle'>
    """
    if not isinstance(marks, Marks):
        raise MarkerValueError(f"expected a Marks, not {marks!r}")
    if not isinstance(marks.pavillon, Pavillon):
        raise MarkerValueError(f"pavillon must be a Pavillon, not {marks.pavillon!r}")
    for name, player in (("white", marks.white), ("black", marks.black)):
        if not isinstance(player, PlayerMarks):
            raise MarkerValueError(f"{name} marks must be PlayerMarks, not {player!r}")
        if player.token_spot not in TOKEN_SPOTS.values():
            raise MarkerValueError(f"{name} token_spot must be one of 0, 2, 4, 6, 7, 12, "
                                   f"not {player.token_spot!r}")
        if not (isinstance(player.peg_hole, int) and 0 <= player.peg_hole <= 12):
            raise MarkerValueError(f"{name} peg_hole must be 0..12, not {player.peg_hole!r}")
    if marks.white.pavillon and marks.black.pavillon:
        raise MarkerValueError("both players cannot carry the pavillon")
    return marks


def check_status(status: Status) -> Status:
    """Check a status argument.

    Args:
        status: the status to show.

    Returns:
        The same status.

    Raises:
        MarkerValueError: if it is not a :class:`Status`.
    """
    if not isinstance(status, Status):
        raise MarkerValueError(f"status must be a Status, not {status!r}")
    return status


class DisplayBase:
    """Lifecycle and event queue shared by the back ends (not part of the protocol)."""

    def __init__(self) -> None:
        self._closed = False
        self._events: queue.SimpleQueue[MarkerEvent] = queue.SimpleQueue()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has been called."""
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise DeviceClosed(f"{type(self).__name__} is closed")

    def _post(self, event: MarkerEvent) -> None:
        self._events.put(event)

    def poll_events(self) -> list[MarkerEvent]:
        """The button presses since the last call, oldest first; never blocks.

        Returns:
            The events, possibly none.

        Raises:
            DeviceClosed: after :meth:`close`.
        """
        self._check_open()
        out: list[MarkerEvent] = []
        while True:
            try:
                out.append(self._events.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        """Mark the display closed; subclasses release their devices first.

        Raises:
            Nothing.
        """
        self._closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
