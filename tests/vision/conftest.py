"""Shared fixtures of the vision tests: a small rendered session, calibrated once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablier.calibration.calibration import Calibration
from tablier.vision.recognizer import Recognizer
from tablier.vision.render import render_set


@pytest.fixture(scope="session")
def small_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One rendered session (640x480): reference, calibration and eight frames."""
    root = tmp_path_factory.mktemp("vision_set")
    (folder,) = render_set(root, seed=7, sessions=1, frames=8, width=640, height=480,
                           occluder_rate=0.25)
    return folder


@pytest.fixture(scope="session")
def small_recognizer(small_session: Path) -> Recognizer:
    """A recogniser of the small session's calibration."""
    return Recognizer(Calibration.load(small_session / "calibration.json"))
