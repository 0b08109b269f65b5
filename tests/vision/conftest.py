"""Fixtures of the dice tests: the measuring sets, read once per session."""

from __future__ import annotations

from pathlib import Path

import pytest
from tablier.vision.dice_eval import DiceRow, evaluate_dice, load_real_set, load_rendered_set

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
