"""Fixtures of the vision tests: the dice measuring sets (read once per session) and a small
rendered board session, calibrated once."""

from __future__ import annotations

from pathlib import Path

import pytest
from tablier.calibration.calibration import Calibration
from tablier.vision.dice_eval import DiceRow, evaluate_dice, load_real_set, load_rendered_set
from tablier.vision.recognizer import Recognizer
from tablier.vision.render import render_set

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "dice"


@pytest.fixture(scope="session")
def real_measure_rows() -> list[DiceRow]:
    """The reader's result on every photograph of the real measuring split."""
    return evaluate_dice(load_real_set(FIXTURES / "real", "measure"))


@pytest.fixture(scope="session")
def rendered_measure_rows() -> list[DiceRow]:
    """The reader's result on every frame of the rendered measuring set."""
    return evaluate_dice(load_rendered_set(FIXTURES / "rendered" / "measure"))


@pytest.fixture(scope="session")
def rendered_measure_rows_uncalibrated() -> list[DiceRow]:
    """The same frames read as ``tablier dice`` reads them: without the board's normal."""
    return evaluate_dice(load_rendered_set(FIXTURES / "rendered" / "measure"), calibrated=False)


@pytest.fixture(scope="session")
def small_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One rendered board session (640x480): reference, calibration and eight frames."""
    root = tmp_path_factory.mktemp("vision_set")
    (folder,) = render_set(root, seed=7, sessions=1, frames=8, width=640, height=480,
                           occluder_rate=0.25)
    return folder


@pytest.fixture(scope="session")
def small_recognizer(small_session: Path) -> Recognizer:
    """A recogniser of the small session's calibration."""
    return Recognizer(Calibration.load(small_session / "calibration.json"))
