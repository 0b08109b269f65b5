"""The matching rule of ``tablier.vision.dice_eval``: dice cut by the picture's border,
reports on a die's body."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from tablier.vision.dice import Die
from tablier.vision.dice_eval import load_rendered_set, score_image


def _truth_file(tmp_path: Path) -> Path:
    # A 480x360 frame: a die whose top face lies past the right border (only its body shows,
    # x 462..479) and, near it, a readable 1.
    gone = {"value": None, "top_value": 3, "reason": "out_of_view", "center": [494.0, 200.0],
            "size": 30.0, "tilt": 0.0,
            "top_face": [[480.0, 186.0], [508.0, 186.0], [508.0, 214.0], [480.0, 214.0]],
            "outline": [[462.0, 184.0], [510.0, 184.0], [510.0, 222.0], [462.0, 222.0]],
            "pips": [[486.0, 192.0], [502.0, 208.0]]}
    one = {"value": 1, "top_value": 1, "reason": None, "center": [440.0, 200.0],
           "size": 30.0, "tilt": 0.0,
           "top_face": [[426.0, 186.0], [454.0, 186.0], [454.0, 214.0], [426.0, 214.0]],
           "outline": [[424.0, 184.0], [456.0, 184.0], [456.0, 222.0], [424.0, 222.0]],
           "pips": [[437.0, 197.0], [443.0, 203.0]]}
    data = {"width": 480, "height": 360,
            "frames": [{"image": "f.jpg", "dice": [gone, one]}]}
    path = tmp_path / "truth.json"
    path.write_text(json.dumps(data))
    return tmp_path


def _die(x: float, value: int | None, reason: str | None = None) -> Die:
    return Die(value=value, center=(x, 200.0), size=30.0, confidence=0.9, reason=reason)


def test_a_die_whose_top_face_is_outside_is_matched_by_its_body(tmp_path: Path) -> None:
    (sample,) = load_rendered_set(_truth_file(tmp_path))
    gone = sample.truth[0]
    assert gone.optional and gone.box == (462.0, 184.0, 479.0, 222.0)
    # Seen and not read: right, not an extra report.
    assert score_image(sample.truth, [_die(472.0, None, "out_of_view"), _die(441.0, 1)])[:5] == (
        2, 2, 0, 0, 0)
    # Read as a value: wrong.
    counted, correct, wrong, _missed, _extra, errors = score_image(
        sample.truth, [_die(472.0, 3), _die(441.0, 1)])
    assert (counted, correct, wrong) == (2, 1, 1) and errors == ["wrong out_of_view->3 @(470,203)"]
    # Not seen: not counted.
    assert score_image(sample.truth, [_die(441.0, 1)])[:5] == (1, 1, 0, 0, 0)


def test_a_die_outside_takes_only_the_reports_left_over(tmp_path: Path) -> None:
    (sample,) = load_rendered_set(_truth_file(tmp_path))
    # The 1's report lies within reach of the outside die's body too (the box grown by a
    # quarter of 38 px reaches x 452.5): the 1 is matched first, so it is neither missed nor
    # taken by the die it is not.
    assert score_image(sample.truth, [_die(454.0, 1)])[:5] == (1, 1, 0, 0, 0)


def test_a_report_on_a_die_s_body_matches_it(tmp_path: Path) -> None:
    # A cocked die whose uppermost face is seen nearly edge on (a strip 4 px high at the top
    # of its outline): a cocked report in the middle of its body is of that die.
    cocked = {"value": None, "top_value": 4, "reason": "cocked", "center": [115.0, 102.0],
              "size": 30.0, "tilt": 35.0,
              "top_face": [[100.0, 100.0], [130.0, 100.0], [130.0, 104.0], [100.0, 104.0]],
              "outline": [[95.0, 98.0], [135.0, 98.0], [135.0, 140.0], [95.0, 140.0]],
              "pips": [[110.0, 102.0]]}
    data = {"width": 480, "height": 360, "frames": [{"image": "f.jpg", "dice": [cocked]}]}
    (tmp_path / "truth.json").write_text(json.dumps(data))
    (sample,) = load_rendered_set(tmp_path)
    on_body = Die(value=None, center=(115.0, 130.0), size=30.0, confidence=0.9,
                  reason="cocked")
    assert score_image(sample.truth, [on_body])[:5] == (1, 1, 0, 0, 0)
    # off its body and off the grown box of its top face: another thing
    off = dataclasses.replace(on_body, center=(140.0, 130.0))
    assert score_image(sample.truth, [off])[:5] == (1, 0, 0, 1, 1)
