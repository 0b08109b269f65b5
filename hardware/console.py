"""A drawing of both rails in the terminal: the display to use with no hardware at all.

No wiring: it writes to a text stream (standard output by default). It has no buttons, so
:meth:`ConsoleMarkers.poll_events` only returns what :meth:`ConsoleMarkers.press` queued.
"""

from __future__ import annotations

import sys
from typing import TextIO

from tablier.engine import Marks, Pavillon, PlayerMarks
from tablier.hardware.base import (
    LIT_SPOTS,
    DisplayBase,
    MarkerEvent,
    Status,
    check_marks,
    check_status,
)


def _rail(name: str, player: PlayerMarks) -> str:
    spots = "".join(f" {'#' if player.token_spot == s else '.':>2}" for s in (0, *LIT_SPOTS))
    holes = "".join("#" if player.peg_hole == h else "." for h in range(1, 13))
    start = "#" if player.peg_hole == 0 else "."
    return (f" {name:<6} jeton{spots}   bredouille {'B' if player.bredouille_token else '.'}"
            f"   fichet {start}|{holes}| {player.peg_hole:>2}   pavillon "
            f"{'P' if player.pavillon else '.'}")


def draw(marks: Marks, *, status: Status = Status.IDLE) -> str:
    """Draw both rails as text (Black's side on top, as seen from White's chair).

    Args:
        marks: the target state of every marker.
        status: the status line.

    Returns:
        Four lines of text, no trailing newline.

    Raises:
        MarkerValueError: if ``marks`` or ``status`` is out of range.

    >>> from tablier.engine import Score
    >>> print(draw(Marks.from_scores(Score(4, 3), Score(0, 0)), status=Status.MARK))
     black  jeton  #  .  .  .  .  .   bredouille .   fichet #|............|  0   pavillon .
     white  jeton  .  .  #  .  .  .   bredouille .   fichet .|..#.........|  3   pavillon .
            spot   0  2  4  6  7 12                  hole    0 1........12
     pavillon: middle   status: mark now
    """
    check_marks(marks)
    check_status(status)
    where = "laid beside the board" if marks.pavillon is Pavillon.OUT else marks.pavillon.value
    return "\n".join([
        _rail("black", marks.black),
        _rail("white", marks.white),
        "        spot   0  2  4  6  7 12                  hole    0 1........12",
        f" pavillon: {where}   status: {status.value}",
    ])


class ConsoleMarkers(DisplayBase):
    """Draws both rails on a text stream each time the state changes.

    Args:
        stream: where to write; standard output (looked up at each write) when None.
        only_changes: skip the drawing when the state and status did not change.
    """

    def __init__(self, stream: TextIO | None = None, *, only_changes: bool = True) -> None:
        super().__init__()
        self._stream = stream
        self._only_changes = only_changes
        self._last: tuple[Marks, Status] | None = None

    def show(self, marks: Marks, *, status: Status = Status.IDLE) -> None:
        """Draw the markers (see :func:`draw`).

        Args:
            marks: the target state of every marker.
            status: the status line.

        Raises:
            DeviceClosed: after :meth:`close`.
            MarkerValueError: if ``marks`` or ``status`` is out of range.
        """
        self._check_open()
        text = draw(marks, status=status)
        if self._only_changes and self._last == (marks, status):
            return
        self._last = (marks, status)
        stream = self._stream if self._stream is not None else sys.stdout
        stream.write(text + "\n\n")
        stream.flush()

    def press(self, event: MarkerEvent) -> None:
        """Queue an event as if a button had been pressed (the console has none).

        Args:
            event: the event to report from :meth:`poll_events`.

        Raises:
            DeviceClosed: after :meth:`close`.
        """
        self._check_open()
        self._post(event)
