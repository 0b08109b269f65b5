"""Frame sources and recognition: the board, the dames, the dice, the jetons and fichets.

The board side: :class:`Recognizer` (``recognize(frame, previous=...) -> Observation``), the
stages :func:`locate_board`, :func:`rectify`, :func:`count_checkers`, :func:`read_marks`,
:func:`detect_occlusion`, the renderer (:func:`render_frame`, :func:`render_game`) and the
errors. The dice reader lives in :mod:`tablier.vision.dice`.

The names are imported from their modules when first asked for, so that importing one module
of the package (``tablier dice`` needs only the dice reader) does not import them all, and
``python -m tablier.vision.board`` runs a module not yet imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablier.vision.board import BoardQuad, VisionConfig, locate_board, rectify
    from tablier.vision.checkers import FieldCounts, FieldReading, count_checkers
    from tablier.vision.errors import BadFrameError, BoardNotFoundError, RecognitionError
    from tablier.vision.imageio import decode_image, read_image
    from tablier.vision.marks import MarksReading, read_marks
    from tablier.vision.occlusion import OcclusionReading, detect_occlusion
    from tablier.vision.recognizer import DieSighting, Observation, Recognizer
    from tablier.vision.render import GameStep, Rendered, Scene, render_frame, render_game

_HOMES = {
    "board": ("BoardQuad", "VisionConfig", "locate_board", "rectify"),
    "checkers": ("FieldCounts", "FieldReading", "count_checkers"),
    "errors": ("BadFrameError", "BoardNotFoundError", "RecognitionError"),
    "imageio": ("decode_image", "read_image"),
    "marks": ("MarksReading", "read_marks"),
    "occlusion": ("OcclusionReading", "detect_occlusion"),
    "recognizer": ("DieSighting", "Observation", "Recognizer"),
    "render": ("GameStep", "Rendered", "Scene", "render_frame", "render_game"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "BadFrameError", "BoardNotFoundError", "BoardQuad", "DieSighting", "FieldCounts",
    "FieldReading", "GameStep", "MarksReading", "Observation", "OcclusionReading",
    "RecognitionError", "Recognizer", "Rendered", "Scene", "VisionConfig", "count_checkers",
    "decode_image", "detect_occlusion", "locate_board", "read_image", "read_marks", "rectify",
    "render_frame", "render_game",
]


def __getattr__(name: str) -> Any:
    """A re-exported name, imported from its module on first use (PEP 562)."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'tablier.vision' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"tablier.vision.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
