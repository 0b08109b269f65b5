"""render_die draws what its truth says."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tablier.vision.render_dice import DieTruth, render_die


def _canvas() -> np.ndarray:
    return np.full((200, 240, 3), (180, 140, 100), np.uint8)


@pytest.mark.parametrize("value", range(1, 7))
def test_flat_die_truth(value: int) -> None:
    canvas = _canvas()
    truth = render_die(canvas, value=value, center=(120.0, 100.0), size=50.0, rotation=17.0)
    assert isinstance(truth, DieTruth)
    assert truth.value == value and truth.top_value == value and truth.reason is None
    assert truth.center == pytest.approx((120.0, 100.0), abs=0.01)
    # Straight from above the top face is the square of the die's edge.
    quad = np.array(truth.top_face)
    assert np.linalg.norm(quad[1] - quad[0]) == pytest.approx(50.0, abs=0.02)
    # Dark pips are drawn inside the top face, the body is bright.
    patch = canvas[80:120, 100:140].astype(int).sum(axis=2)
    assert patch.min() < 200 and patch.max() > 600


def test_pip_count_straight_down() -> None:
    import cv2

    for value in range(1, 7):
        canvas = _canvas()
        render_die(canvas, value=value, center=(120.0, 100.0), size=80.0, rotation=0.0,
                   shadow=0.0)
        grey = canvas[60:140, 80:160].astype(int).sum(axis=2)
        dark = (grey < 250).astype(np.uint8)
        count, _ = cv2.connectedComponents(dark)
        assert count - 1 == value


def test_oblique_view_moves_top_face_up() -> None:
    truth = render_die(_canvas(), value=4, center=(120.0, 120.0), size=40.0, view_tilt=30.0,
                       view_direction=90.0)
    # The camera stands below the image: the top face is seen above the ground point and
    # foreshortened along y.
    assert truth.center[1] < 120.0
    quad = np.array(truth.top_face)
    assert np.ptp(quad[:, 1]) < np.ptp(quad[:, 0])


def test_bad_throws_have_reasons() -> None:
    cocked = render_die(_canvas(), value=2, center=(120.0, 100.0), size=40.0, cocked=25.0)
    assert cocked.value is None and cocked.reason == "cocked" and cocked.top_value in range(1, 7)
    assert cocked.tilt == pytest.approx(25.0, abs=0.01)
    stacked = render_die(_canvas(), value=3, center=(120.0, 100.0), size=40.0, elevation=40.0)
    assert stacked.value is None and stacked.reason == "on_die"
    edge = render_die(_canvas(), value=5, center=(5.0, 100.0), size=40.0)
    assert edge.value is None and edge.reason == "out_of_view"
    gone = render_die(_canvas(), value=5, center=(-500.0, 100.0), size=40.0)
    assert gone.reason == "out_of_view"


@pytest.mark.parametrize(("x", "reason"), [(17.0, None), (12.0, "out_of_view")])
def test_a_die_is_out_of_view_when_a_pip_is_cut_not_a_corner(x: float,
                                                              reason: str | None) -> None:
    # A five of 40 px, square to the frame: its face runs 20 px either side of the centre,
    # its outer pips (spacing 0.27, radius 0.09) 14.4 px. At x=17 the face is cut, no pip.
    die = render_die(_canvas(), value=5, center=(x, 100.0), size=40.0)
    assert min(p[0] for p in die.top_face) < 0
    assert die.reason == reason
    assert die.value == (None if reason else 5)
    assert min(p[0] for p in die.pips) == pytest.approx(x - 14.4, abs=0.3)


def test_render_is_deterministic_and_local() -> None:
    a, b = _canvas(), _canvas()
    render_die(a, value=6, center=(60.0, 60.0), size=30.0, rotation=33.0, view_tilt=20.0)
    render_die(b, value=6, center=(60.0, 60.0), size=30.0, rotation=33.0, view_tilt=20.0)
    assert np.array_equal(a, b)
    assert np.array_equal(a[150:, 150:], _canvas()[150:, 150:])


def test_a_die_s_shadow_leaves_the_top_of_a_die_beside_it_alone() -> None:
    # Two dice side by side, the light low on the right: the second die's shadow reaches
    # across the first, whose top face is as high as the second's and stays lit.
    light = (1.0, 0.0, 0.5)

    def pair(shadow: float, bodies: bool) -> np.ndarray:
        canvas = _canvas()
        mask = np.zeros(canvas.shape[:2], np.float32) if bodies else None
        render_die(canvas, value=4, center=(80.0, 100.0), size=40.0, light_direction=light,
                   bodies=mask)
        render_die(canvas, value=2, center=(122.0, 100.0), size=40.0, light_direction=light,
                   shadow=shadow, bodies=mask)
        return canvas

    first_top = (slice(85, 115), slice(65, 95))
    unshaded = pair(0.0, True)[first_top].astype(int)
    assert np.abs(pair(0.45, True)[first_top].astype(int) - unshaded).max() <= 1
    # without the mask the shadow darkens it (the renderer before 2026-11-26)
    assert (pair(0.45, False)[first_top].astype(int) - unshaded).min() < -20


def test_the_bodies_mask_must_fit_the_canvas() -> None:
    with pytest.raises(ValueError, match="bodies"):
        render_die(_canvas(), value=3, center=(50.0, 50.0), size=30.0,
                   bodies=np.zeros((10, 10), np.float32))


@pytest.mark.parametrize("kwargs", [{"value": 0}, {"value": 7}, {"size": 1.0}])
def test_bad_arguments(kwargs: dict[str, float]) -> None:
    args: dict[str, float] = {"value": 3, "size": 30.0}
    args.update(kwargs)
    with pytest.raises(ValueError):
        render_die(_canvas(), center=(50.0, 50.0), **args)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        render_die(np.zeros((10, 10), np.uint8), value=3, center=(5.0, 5.0), size=5.0)


def test_lean_shows_the_side_facing_the_nadir() -> None:
    # A die right of the camera's nadir leans outward: its top face moves right.
    flat = render_die(_canvas(), value=3, center=(120.0, 100.0), size=40.0)
    leaning = render_die(_canvas(), value=3, center=(120.0, 100.0), size=40.0, lean=(0.4, 0.0))
    assert leaning.center[0] == pytest.approx(flat.center[0] + 0.4 * 40.0, abs=0.05)
    assert leaning.center[1] == pytest.approx(flat.center[1], abs=0.05)
    assert leaning.value == 3


def test_a_die_standing_on_a_dame_is_raised_and_good() -> None:
    # on a pile 30 px high, seen leaning 0.2 px per px of height: the top moves 6 px more
    low = render_die(_canvas(), value=4, center=(120.0, 100.0), size=40.0, lean=(0.2, 0.0))
    high = render_die(_canvas(), value=4, center=(120.0, 100.0), size=40.0, lean=(0.2, 0.0),
                      stand=30.0)
    assert high.center[0] == pytest.approx(low.center[0] + 0.2 * 30.0, abs=0.05)
    assert high.value == 4 and high.reason is None
    # seen straight down, a die on a pile looks as one on the board: its shadow falls on the
    # pile's top, not on the board below (it would reach farther from the die)
    a, b = _canvas(), _canvas()
    render_die(a, value=4, center=(120.0, 100.0), size=40.0, stand=30.0)
    render_die(b, value=4, center=(120.0, 100.0), size=40.0)
    assert np.array_equal(a, b)


def test_scene_truth_is_inside_the_frame_and_seeded() -> None:
    from tablier.vision.render_dice import render_scene

    a, ta = render_scene(np.random.default_rng(7), width=320, height=240)
    b, tb = render_scene(np.random.default_rng(7), width=320, height=240)
    assert np.array_equal(a, b) and ta == tb
    assert a.shape == (240, 320, 3) and len(ta) >= 1
    for t in ta:
        assert (t.value is None) == (t.reason is not None)
        if t.reason is None:
            assert 0 <= t.center[0] < 320 and 0 <= t.center[1] < 240


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("rotation", [0.0, 30.0, 62.0])
def test_reader_reads_rendered_die(value: int, rotation: float) -> None:
    from tablier.vision.dice import DiceConfig, read_dice

    canvas = _canvas()
    truth = render_die(canvas, value=value, center=(120.0, 100.0), size=56.0,
                       rotation=rotation, view_tilt=20.0, view_direction=80.0)
    reading = read_dice(DiceConfig(), canvas)
    assert [d.value for d in reading.dice] == [value]
    die = reading.dice[0]
    assert abs(die.center[0] - truth.center[0]) < 4 and abs(die.center[1] - truth.center[1]) < 4
    assert 0.7 * 56 < die.size < 1.3 * 56


def test_seeds_option_writes_a_tuning_set_and_refuses_measuring_seeds(tmp_path: Path) -> None:
    from tablier.vision.render_dice import main

    assert main([str(tmp_path / "t"), "--seeds", "10000:2"]) == 0
    truth = json.loads((tmp_path / "t" / "truth.json").read_text())
    assert [f["seed"] for f in truth["frames"]] == [10000, 10001]
    for bad in ("1990:20", "2159:1", "abc", "10000:0"):
        with pytest.raises(SystemExit) as info:
            main([str(tmp_path / "m"), "--seeds", bad])
        assert info.value.code == 2
    assert not (tmp_path / "m").exists()


def test_the_package_leaves_the_dice_renderer_unloaded() -> None:
    # ``python -m tablier.vision.render_dice`` (fixtures/dice/README.md) warns on stderr when
    # importing the package has loaded the module already.
    import subprocess
    import sys

    probe = "import sys, tablier.vision; print('tablier.vision.render_dice' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
