"""Errors of the recogniser: one clear reason, never a traceback for the user."""

from __future__ import annotations


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
