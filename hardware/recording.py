"""A display that records what it was told, for tests of the game loop.

No wiring. Tests read :attr:`RecordingMarkers.shown` and queue button presses with
:meth:`RecordingMarkers.press`.
"""

from __future__ import annotations

from tablier.engine import Marks
from tablier.hardware.base import DisplayBase, MarkerEvent, Status, check_marks, check_status


class RecordingMarkers(DisplayBase):
    """Keeps every ``show`` call in order.

    >>> from tablier.engine import Score
    >>> rec = RecordingMarkers()
    >>> rec.show(Marks.from_scores(Score(2), Score()), status=Status.MARK)
    >>> rec.last[1], rec.last[0].white.token_spot
    (<Status.MARK: 'mark now'>, 2)
    """

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[tuple[Marks, Status]] = []
        """Every (marks, status) shown, oldest first."""

    @property
    def last(self) -> tuple[Marks, Status] | None:
        """The latest (marks, status), or None before the first ``show``."""
        return self.shown[-1] if self.shown else None

    def show(self, marks: Marks, *, status: Status = Status.IDLE) -> None:
        """Record the state.

        Args:
            marks: the target state of every marker.
            status: the status.

        Raises:
            DeviceClosed: after :meth:`close`.
            MarkerValueError: if ``marks`` or ``status`` is out of range.
        """
        self._check_open()
        self.shown.append((check_marks(marks), check_status(status)))

    def press(self, event: MarkerEvent) -> None:
        """Queue an event as if a button had been pressed.

        Args:
            event: the event that :meth:`poll_events` will report.

        Raises:
            DeviceClosed: after :meth:`close`.
        """
        self._check_open()
        self._post(event)
