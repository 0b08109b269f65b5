"""Errors of the recogniser: one clear reason, never a traceback for the user."""

from __future__ import annotations

import sys


class RecognitionError(Exception):
    """A frame cannot be read; ``reason`` says why in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        """Why the frame cannot be read."""


class BoardNotFoundError(RecognitionError):
    """No board in the frame (no markers and nothing at the calibrated corners)."""


class BadFrameError(RecognitionError, ValueError):
    """The frame is not an image the recogniser can use (shape, type, size)."""


def stage_failed(prog: str, exc: Exception) -> int:
    """Say in one line on stderr why a stage run alone (``python -m tablier.vision.board``)
    could not read its input; return its exit status, 2.

    Args:
        prog: the program's name.
        exc: the error (its ``reason`` when it has one).

    Returns:
        2.

    Raises:
        Nothing.
    """
    print(f"{prog}: {getattr(exc, 'reason', None) or exc}", file=sys.stderr)
    return 2
