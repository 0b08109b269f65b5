"""Scoring one observation against its truth (tablier eval's counts)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from tablier.vision import evaluate as evaluate_module
from tablier.vision.evaluate import Report, TruthError, evaluate, p90, score


def _obs(*dice: tuple[int | None, tuple[float, float]]) -> Any:
    quad = ((0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0))
    return SimpleNamespace(occluded=False, quad=quad, board_source="markers", fields=(),
                           marks=None,
                           dice=tuple(SimpleNamespace(value=v, center_mm=c) for v, c in dice))


TRUTH = {"occluded": False, "quad": [[0, 0], [100, 0], [100, 100], [0, 100]],
         "image": [100, 100], "fields": [],
         "dice": [{"value": 3, "center_mm": [100.0, 100.0]},
                  {"value": None, "reason": "cocked", "center_mm": [300.0, 200.0]}]}


def test_both_dice_right() -> None:
    report = Report()
    row = score(_obs((3, (105.0, 100.0)), (None, (300.0, 195.0))), TRUTH, report)
    tally = report.tallies["dice per die"]
    assert (tally.correct, tally.total) == (2, 2)
    assert (row["dice"], row["dice_errors"], row["stray_dice"]) == (2, 0, 0)
    bad = report.tallies["bad throws judged bad"]
    assert (bad.correct, bad.total) == (1, 1)


def test_a_cocked_die_read_as_a_throw_is_a_bad_throw_let_through() -> None:
    report = Report()
    score(_obs((3, (100.0, 100.0)), (5, (300.0, 200.0))), TRUTH, report)
    bad = report.tallies["bad throws judged bad"]
    assert (bad.correct, bad.total) == (0, 1)
    assert report.tallies["dice per die"].correct == 1


def test_a_wrong_value_and_a_die_too_far_away() -> None:
    # 12 mm is the reach: the cocked die's sighting 13 mm off is no sighting of it
    report = Report()
    row = score(_obs((4, (100.0, 100.0)), (None, (313.0, 200.0))), TRUTH, report)
    tally = report.tallies["dice per die"]
    assert tally.correct == 0
    assert row["stray_dice"] == 1 and tally.total == 3 and row["dice_errors"] == 3


def test_a_stray_die_counts_as_a_die_read_wrong() -> None:
    report = Report()
    row = score(_obs((3, (100.0, 100.0)), (None, (300.0, 200.0)), (None, (500.0, 300.0))),
                TRUTH, report)
    tally = report.tallies["dice per die"]
    assert (tally.correct, tally.total) == (2, 3)
    assert (row["dice"], row["dice_errors"], row["stray_dice"]) == (2, 1, 1)


# the cocked die of TRUTH as the renderer draws one leaning 43 degrees toward +x: the face
# beside its top is nearly as level, 12-14 mm from the top's centre, and still on the die
OUTLINED = {**TRUTH, "dice": [TRUTH["dice"][0],
                              {**TRUTH["dice"][1],
                               "outline_mm": [[290.0, 190.0], [318.0, 190.0], [318.0, 210.0],
                                              [290.0, 210.0]]}]}


def test_a_cocked_die_found_by_its_other_face_is_a_sighting_of_it() -> None:
    report = Report()
    row = score(_obs((3, (100.0, 100.0)), (None, (313.0, 200.0))), OUTLINED, report)
    tally = report.tallies["dice per die"]
    assert (tally.correct, tally.total) == (2, 2)
    assert (row["dice_errors"], row["stray_dice"]) == (0, 0)


def test_a_sighting_off_the_die_s_outline_and_beyond_the_reach_is_stray() -> None:
    report = Report()
    row = score(_obs((3, (100.0, 100.0)), (None, (300.0, 213.0))), OUTLINED, report)
    assert (row["dice_errors"], row["stray_dice"]) == (2, 1)
    assert report.tallies["bad throws judged bad"].correct == 0


def test_two_sightings_on_one_die_are_one_die_read_wrong() -> None:
    report = Report()
    row = score(_obs((3, (100.0, 100.0)), (None, (300.0, 200.0)), (None, (314.0, 195.0))),
                OUTLINED, report)
    assert (row["dice_errors"], row["stray_dice"]) == (1, 0)


def test_p90_is_the_value_at_nine_tenths_of_the_sorted_values() -> None:
    assert p90([5.0, 1.0, 3.0, 2.0, 4.0, 10.0, 9.0, 8.0, 7.0, 6.0]) == 10.0
    assert p90([float(v) for v in range(20, 0, -1)]) == 19.0
    assert p90([7.5]) == 7.5


def _set(tmp_path: Path, truths: dict[str, str]) -> Path:
    """A fixture set of one session: a calibration and, per frame, a picture and a truth."""
    session = tmp_path / "set" / "s00"
    session.mkdir(parents=True)
    (session / "calibration.json").write_text("{}")
    for name, text in truths.items():
        (session / f"{name}.jpg").write_bytes(b"")
        (session / f"{name}.json").write_text(text)
    return session.parent


def _never(calibration: object) -> Any:
    raise AssertionError("no frame may be read before every truth is checked")


@pytest.mark.parametrize(("text", "message"), [
    ('{"occluded": false, "dice": [', "not readable JSON"),
    ('{"occluded": false, "quad": [], "image": [1, 1], "fields": [], "dice": []}', "'marks'"),
    ("[1, 2]", "lacks"),
])
def test_a_broken_truth_is_named_before_any_frame_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str) -> None:
    good = json.dumps(TRUTH | {"marks": {}})
    root = _set(tmp_path, {"frame_000": good, "frame_001": text})
    monkeypatch.setattr(evaluate_module.Calibration, "load", staticmethod(lambda path: None))
    with pytest.raises(TruthError, match=message) as caught:
        evaluate(root, recognizer_factory=_never)
    assert "frame_001.json" in str(caught.value)


def test_a_truth_whose_parts_are_wrong_is_named_when_scored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = TRUTH | {"marks": {}, "dice": [{"value": 3}]}  # a die with no place
    root = _set(tmp_path, {"frame_000": json.dumps(bad)})
    monkeypatch.setattr(evaluate_module.Calibration, "load", staticmethod(lambda path: None))
    monkeypatch.setattr(evaluate_module, "read_image", lambda path: None)
    seen = SimpleNamespace(recognize=lambda image, previous: _obs((3, (100.0, 100.0))))
    with pytest.raises(TruthError, match="frame_000.json"):
        evaluate(root, recognizer_factory=lambda calibration: seen)
