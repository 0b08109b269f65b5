"""The recogniser over every committed fixture frame, one test per image.

Fields are compared with the truth frame by frame on the MEASURING set; the accuracy targets
themselves are measured with ``tablier eval`` (see docs/vision.md), not asserted here.
"""

from __future__ import annotations

import itertools
import json
from functools import cache
from pathlib import Path

import pytest
from tablier.calibration.calibration import Calibration
from tablier.engine import Color, Position
from tablier.vision.evaluate import frames, sessions
from tablier.vision.imageio import read_image
from tablier.vision.recognizer import Recognizer

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
MEASURE = ROOT / "vision" / "measure"
DEMO = ROOT / "games" / "demo"
CASES = [(s, img, truth) for s in sessions(MEASURE) for img, truth in frames(s)]


@cache
def _recognizer(session: Path) -> Recognizer:
    # NOTE: no dice reader here: these tests check the board, dames, marks and occlusion
    # (the dice reader has its own tests); dice are masked out only when read.
    return Recognizer(Calibration.load(session / "calibration.json"), dice_reader=lambda v: ())


def test_the_sets_exist_and_are_apart() -> None:
    assert len(CASES) >= 40
    tune = {json.loads(t.read_text())["seed"] for s in sessions(ROOT / "vision" / "tune")
            for _, t in frames(s)}
    cases = {json.loads(t.read_text())["seed"] for s in sessions(ROOT / "vision" / "cases")
             for _, t in frames(s)}
    measure = {json.loads(t.read_text())["seed"] for _, _, t in CASES}
    assert tune and measure and len(cases) == 5 and not (tune | cases) & measure


@pytest.mark.parametrize(("session", "image", "truth_path"), CASES,
                         ids=[str(img.relative_to(MEASURE)) for _, img, _ in CASES])
def test_measuring_frame(session: Path, image: Path, truth_path: Path) -> None:
    truth = json.loads(truth_path.read_text())
    obs = _recognizer(session).recognize(read_image(image))
    assert obs.board_source == "markers"
    assert obs.occluded == truth["occluded"]
    if truth["occluded"]:
        return
    wrong = [(f["field"], f["color"], f["visible"], r.color, r.visible)
             for f, r in zip(truth["fields"], obs.fields)
             if (f["color"], f["visible"]) != (r.color.value if r.color else None, r.visible)]
    # a die lying on a slot can still hide a dame without the dice reader: at most one field
    assert len(wrong) <= (1 if truth["dice"] else 0), wrong


def test_demo_game_manifest_is_consistent() -> None:
    manifest = json.loads((DEMO / "manifest.json").read_text())
    assert manifest["format"] == "tablier-game" and manifest["version"] == 1
    throws = manifest["throws"]
    assert 50 <= len(manifest["frames"]) <= 150
    for before, after in itertools.pairwise(throws):
        assert before["position_after"] == after["position_before"]
    for t in throws:
        from tablier.engine import Dice
        position = Position(t["position_before"])
        played = position.apply([tuple(m) for m in t["play"]], dice=Dice(*t["dice"]))
        assert played.notation() == t["position_after"]
    for f in manifest["frames"]:
        assert (DEMO / f["file"]).exists()
        truth = json.loads((DEMO / f["truth"]).read_text())
        assert truth["occluded"] == f["occluded"] == (f["phase"] in ("throw", "play"))
        pos = Position(truth["position"])
        assert {int(k): v for k, v in truth["white"].items()} == pos.men(Color.WHITE)
