"""Frame sources and recognition: the board, the dames, the dice, the jetons and fichets.

The board side: :class:`Recognizer` (``recognize(frame, previous=...) -> Observation``), the
stages :func:`locate_board`, :func:`rectify`, :func:`count_checkers`, :func:`read_marks`,
:func:`detect_occlusion`, the renderer (:func:`render_frame`, :func:`render_game`) and the
errors. The dice reader lives in :mod:`tablier.vision.dice`.
"""

from tablier.vision.board import BoardQuad, VisionConfig, locate_board, rectify
from tablier.vision.checkers import FieldCounts, FieldReading, count_checkers
from tablier.vision.errors import BadFrameError, BoardNotFoundError, RecognitionError
from tablier.vision.imageio import decode_image, read_image
from tablier.vision.marks import MarksReading, read_marks
from tablier.vision.occlusion import OcclusionReading, detect_occlusion
from tablier.vision.recognizer import DieSighting, Observation, Recognizer
from tablier.vision.render import GameStep, Rendered, Scene, render_frame, render_game

__all__ = [
    "BadFrameError", "BoardNotFoundError", "BoardQuad", "DieSighting", "FieldCounts",
    "FieldReading", "GameStep", "MarksReading", "Observation", "OcclusionReading",
    "RecognitionError", "Recognizer", "Rendered", "Scene", "VisionConfig", "count_checkers",
    "decode_image", "detect_occlusion", "locate_board", "read_image", "read_marks", "rectify",
    "render_frame", "render_game",
]
