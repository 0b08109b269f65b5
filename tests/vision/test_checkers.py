"""The dames of a field a die lies on or beside: read from what the die leaves in view."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tablier.calibration.calibration import Calibration
from tablier.calibration.flow import calibrate_frame
from tablier.vision.board import VisionConfig, locate_board, rectify
from tablier.vision.checkers import (
    FieldCounts,
    FieldReading,
    count_checkers,
    light_gain,
    light_slope,
)
from tablier.vision.imageio import read_image
from tablier.vision.render import BoardGeometry, BoardStyle, Camera, Lighting, Scene, render_frame

# the small session's first frame (seed 7, 640x480): White 3 on field 4 and 1 on field 7,
# field 5 empty (checked below against the frame's truth)
ROW, LONE, EMPTY = 4, 7, 5


@pytest.fixture(scope="module")
def board(small_session: Path) -> tuple[VisionConfig, np.ndarray]:
    cfg = VisionConfig.from_calibration(Calibration.load(small_session / "calibration.json"))
    image = read_image(small_session / "frame_000.jpg")
    truth = {f["field"]: f for f in
             json.loads((small_session / "frame_000.json").read_text())["fields"]}
    assert (truth[ROW]["color"], truth[ROW]["visible"]) == ("white", 3)
    assert (truth[LONE]["color"], truth[LONE]["visible"]) == ("white", 1)
    assert truth[EMPTY]["visible"] == 0
    return cfg, rectify(cfg, image, locate_board(cfg, image))


def _paint(cfg: VisionConfig, rect: np.ndarray, field: int, slot: int,
           rgb: tuple[float, float, float], reach: float = 0.44) -> np.ndarray:
    """A copy of ``rect`` with the slot painted ``rgb`` out to ``reach`` dames' diameters from
    its middle (0.44: its probe and its ring; 0.3: its probe only)."""
    g, s = cfg.calibration.geometry, cfg.layout.scale
    x, y = g.slot_centers(field)[slot]
    yy, xx = np.mgrid[:rect.shape[0], :rect.shape[1]]
    out = rect.copy()
    out[np.hypot(xx - x * s, yy - y * s) <= reach * g.checker_diameter * s] = rgb
    return out


def _beside(cfg: VisionConfig, field: int, slot: int) -> list[tuple[float, float]]:
    """Rectified pixels of a die 8 mm across the row from the slot's middle: it covers most of
    the slot's probe, not all (more than ``min_visible_share`` stays in view)."""
    g, s = cfg.calibration.geometry, cfg.layout.scale
    x, y = g.slot_centers(field)[slot]
    return [((x + 8.0) * s, y * s)]


def _field(cfg: VisionConfig, rect: np.ndarray, field: int,
           dice_px: list[tuple[float, float]] | None = None) -> FieldReading:
    counts = count_checkers(cfg, rect, dice_px=dice_px or ())
    (reading,) = [r for r in counts.fields if r.field == field]
    return reading


def test_the_fields_read_as_the_truth_with_no_die(board: tuple[VisionConfig, np.ndarray]) -> None:
    cfg, rect = board
    got = {f: _field(cfg, rect, f) for f in (ROW, LONE, EMPTY)}
    assert [(r.color and r.color.value, r.visible) for r in got.values()] == [
        ("white", 3), ("white", 1), (None, 0)]
    assert not any(r.covered for r in got.values())


def test_a_die_on_a_row_s_first_dame_leaves_it_counted(
        board: tuple[VisionConfig, np.ndarray]) -> None:
    cfg, rect = board
    # the die and its side faces hide the first dame: what is seen there is the point's colour
    n = cfg.layout.geometry.slots
    surface = tuple(float(v) for v in cfg.calibration.profile.slots[(ROW - 1) * n])
    hidden = _paint(cfg, rect, ROW, 0, surface)  # type: ignore[arg-type]
    assert _field(cfg, hidden, ROW).visible == 2  # not told of the die: one dame short
    r = _field(cfg, hidden, ROW, _beside(cfg, ROW, 0))
    # dames fill a row from the base: the slot the die touches is taken, as the next one is
    assert (r.color and r.color.value, r.visible, r.covered) == ("white", 3, True)


def test_a_die_s_shadow_on_an_empty_point_is_no_dame(
        board: tuple[VisionConfig, np.ndarray]) -> None:
    cfg, rect = board
    black = tuple(float(v) for v in cfg.calibration.profile.black)
    shadow = _paint(cfg, rect, EMPTY, 1, black)  # type: ignore[arg-type]
    assert _field(cfg, shadow, EMPTY).visible == 1  # not told of the die: a dark dame
    r = _field(cfg, shadow, EMPTY, _beside(cfg, EMPTY, 1))
    # taken with the slot nearer the base empty (and no die there): the row says it is not
    assert (r.color, r.visible, r.covered) == (None, 0, True)


def test_a_lone_dame_beside_a_die_stays(board: tuple[VisionConfig, np.ndarray]) -> None:
    cfg, rect = board
    r = _field(cfg, rect, LONE, _beside(cfg, LONE, 0))
    assert (r.color and r.color.value, r.visible) == ("white", 1)


def test_a_slot_a_die_touches_is_read_by_its_ring(
        board: tuple[VisionConfig, np.ndarray]) -> None:
    cfg, rect = board
    n = cfg.layout.geometry.slots
    prof = cfg.calibration.profile
    # a die's shadow on the first slot only, a little lighter than a black dame: read as one
    # (with a middling confidence); the ring round it shows the bare point
    blend = 0.95 * np.array(prof.black) + 0.05 * np.array(prof.slots[(EMPTY - 1) * n])
    shadow = _paint(cfg, rect, EMPTY, 0, tuple(blend), reach=0.3)  # type: ignore[arg-type]
    assert _field(cfg, shadow, EMPTY).visible == 1
    r = _field(cfg, shadow, EMPTY, _beside(cfg, EMPTY, 0))
    assert (r.color, r.visible) == (None, 0)
    # the first slot has no slot nearer the base: the row cannot say, only the ring did
    assert not r.covered


# Dames for the boards drawn below, and the size they are drawn at.
SCENE = Scene(white={1: 12, 6: 3}, black={1: 11, 6: 2, 8: 2})
SIZE = {"width": 1024, "height": 768}


def _styled(seed: int, **colours: object) -> tuple[VisionConfig, BoardStyle, Camera]:
    """A board of seed ``seed``'s style with ``colours`` changed, calibrated on its start."""
    g = BoardGeometry()
    rng = np.random.default_rng(seed)
    style = dataclasses.replace(BoardStyle.random(rng), **colours)
    cam = Camera.random(rng, **SIZE, geometry=g)
    ref = render_frame(Scene.start(), style=style, camera=cam, lighting=Lighting(), seed=1,
                       geometry=g, **SIZE)
    return VisionConfig.from_calibration(calibrate_frame(ref.image, geometry=g)), style, cam


def _shot(cfg: VisionConfig, style: BoardStyle, cam: Camera, light: Lighting, seed: int,
          scene: Scene = SCENE) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """``scene`` drawn under ``light``, rectified, and its fields' truth."""
    frame = render_frame(scene, style=style, camera=cam, lighting=light, seed=seed,
                         geometry=cfg.calibration.geometry, **SIZE)
    return rectify(cfg, frame.image, locate_board(cfg, frame.image)), frame.truth["fields"]


def _wrong(counts: FieldCounts, truth: list[dict[str, Any]]) -> int:
    """How many fields read otherwise than ``truth`` (colour or visible stacks)."""
    seen = {r.field: (r.color.value if r.color else None, r.visible) for r in counts.fields}
    return sum(seen[t["field"]] != (t["color"], t["visible"]) for t in truth)


def test_a_rail_with_no_blue_leaves_the_light_gain_of_blue_alone() -> None:
    # A red rail reflects no blue: its blue channel (0-1 grey levels) says nothing of the
    # light, and a gain drawn from it turned navy points as dark as brown dames.
    cfg, style, cam = _styled(8, rail=(110, 32, 0), fields=((38, 30, 118), (200, 160, 100)),
                              black=(62, 40, 28), surface=(120, 62, 25))
    wrong = 0
    for seed in range(4):
        # sensor noise, clipped at black, lifts the rail's blue from about 0.2 to about 1
        light = Lighting(intensity=0.8 + 0.1 * seed, noise=5.0)
        rect, truth = _shot(cfg, style, cam, light, seed)
        gain = light_gain(cfg, rect.reshape(-1, 3))
        assert math.isclose(gain[2], math.sqrt(gain[0] * gain[1]), rel_tol=1e-4)
        wrong += _wrong(count_checkers(cfg, rect, gain=gain), truth)
    assert wrong == 0, f"{wrong} of 96 fields read wrong"


def _lamp(rect: np.ndarray, left: float, right: float) -> np.ndarray:
    """``rect`` lit ``left`` times as bright at the board's left edge, ``right`` at its right."""
    ramp = np.linspace(left, right, rect.shape[1], dtype=np.float32)[None, :, None]
    return np.asarray(np.clip(rect * ramp, 0, 255), np.uint8)


def test_the_light_s_slope_is_read_off_the_rails(small_session: Path) -> None:
    # the reference frame itself, lit evenly, then under a lamp to one side
    cfg = VisionConfig.from_calibration(Calibration.load(small_session / "calibration.json"))
    image = read_image(small_session / "reference.jpg")
    even = rectify(cfg, image, locate_board(cfg, image))
    w, h = cfg.calibration.geometry.size
    places = [(0.2 * w, 0.5 * h), (0.5 * w, 0.2 * h), (0.8 * w, 0.5 * h)]
    assert light_slope(cfg, even.reshape(-1, 3), places) == pytest.approx(1.0, abs=0.01)
    lit = _lamp(even, 0.8, 1.2)
    left, middle, right = light_slope(cfg, lit.reshape(-1, 3), places)
    # the gain undoes the lamp: 1.12 / 0.88 times more at 20 % across than at 80 %
    assert left / right == pytest.approx((0.8 + 0.4 * 0.8) / (0.8 + 0.4 * 0.2), rel=0.01)
    assert middle == pytest.approx(1.0, abs=0.01)
    # a hand over the left rail (skin, brighter than the wood) is left out of the fit
    g, s = cfg.calibration.geometry, cfg.layout.scale
    hand = lit.copy()
    hand[round(0.3 * h * s):round(0.7 * h * s), :round(g.rail * s)] = (232, 190, 160)
    assert light_slope(cfg, hand.reshape(-1, 3), places) == pytest.approx(
        [left, middle, right], rel=0.01)


def test_dark_points_the_colour_of_the_black_dames_are_read_under_a_slanting_light() -> None:
    # The brown points lie 12-20 colour levels from the brown dames (the calibration warns
    # of them). A lamp to one side darkens one end of the board by a fifth, as far as the
    # dames' brown lies from the points', when only the mean light is brought back.
    cfg, style, cam = _styled(9, fields=((82, 52, 30), (196, 160, 110)), black=(70, 44, 28))
    wrong = 0
    for seed, slant in enumerate([(0.25, 0.2), (-0.25, -0.2), (0.25, -0.2), (-0.25, 0.2)]):
        rect, truth = _shot(cfg, style, cam, Lighting(gradient=slant, noise=2.0), seed)
        wrong += _wrong(count_checkers(cfg, rect), truth)
    assert wrong == 0, f"{wrong} of 96 fields read wrong"


def test_the_dames_colours_are_taken_again_from_the_frame() -> None:
    # The calibration reads the black dames off the talon's piles, which read 8, 4 and 3
    # levels lighter than a lone dame on tuning session 5153 s13: on points of nearly the
    # dames' brown, that is enough to read black dames there as empty. The black dames on the
    # light points give their colour on the frame itself.
    cfg, style, cam = _styled(9, fields=((82, 52, 30), (196, 160, 110)), black=(74, 46, 30))
    profile = cfg.calibration.profile
    lighter = dataclasses.replace(profile, black=tuple(np.add(profile.black, (8, 4, 3))))
    cfg = VisionConfig.from_calibration(dataclasses.replace(cfg.calibration, profile=lighter))
    scene = Scene(white={1: 12, 6: 3}, black={1: 11, 6: 2, 8: 2, 11: 1, 13: 1})
    wrong = 0
    for seed in range(4):
        rect, truth = _shot(cfg, style, cam, Lighting(noise=2.0), seed, scene)
        wrong += _wrong(count_checkers(cfg, rect), truth)
    assert wrong == 0, f"{wrong} of 96 fields read wrong"


def test_masked_means_are_the_means_of_the_kept_pixels_of_each_disc() -> None:
    from tablier.calibration.layout import Probes
    rng = np.random.default_rng(1037)
    probes = Probes.build([(4, 4), (12, 5), (20, 6)], 1.0, 3.0, (16, 28))
    image = rng.integers(0, 256, (16 * 28, 3)).astype(np.uint8)
    keep = rng.random(probes.index.shape) > 0.4
    keep[2] = False  # nothing kept: the full mean
    means, share = probes.masked_means(image, keep)
    for i in range(3):
        pixels = image[probes.index[i]].astype(np.float64)
        want = pixels[keep[i]].mean(axis=0) if keep[i].any() else pixels.mean(axis=0)
        assert np.allclose(means[i], want, atol=1e-3)
        assert share[i] == pytest.approx(keep[i].mean())
