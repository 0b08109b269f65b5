"""Properties of the renderer's ground truth."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from tablier.calibration.geometry import BoardGeometry
from tablier.engine import Color
from tablier.vision.render import Camera, Scene, random_scene, render_frame


@pytest.mark.parametrize("seed", range(6))
def test_truth_counts_fifteen_men_and_visible_stacks(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, occluder_rate=0.0)
    r = render_frame(scene, seed=seed, width=320, height=240)
    t = r.truth
    assert sum(t["white"].values()) == 15 and sum(t["black"].values()) == 15
    by_colour = {"white": 0, "black": 0}
    for f in t["fields"]:
        assert 0 <= f["visible"] <= min(f["count"], BoardGeometry().slots)
        assert (f["visible"] > 0) == (f["count"] > 0) == (f["color"] is not None)
        assert sum(f["piles"]) == f["count"]
        if f["color"]:
            by_colour[f["color"]] += f["count"]
    assert by_colour == {"white": 15, "black": 15}
    # the engine's view (own numbering) and the per-field view agree
    for color in Color:
        for field, n in t[color.value].items():
            wf = int(field) if color is Color.WHITE else 25 - int(field)
            assert t["fields"][wf - 1]["count"] == n


def test_same_seed_same_frame_and_truth() -> None:
    scene = random_scene(np.random.default_rng(3))
    a = render_frame(scene, seed=11, width=320, height=240)
    b = render_frame(scene, seed=11, width=320, height=240)
    assert a.truth == b.truth
    assert np.array_equal(a.image, b.image)


def test_markers_and_quad_are_projected_by_the_camera() -> None:
    g = BoardGeometry()
    cam = Camera.random(np.random.default_rng(1), 640, 480, geometry=g)
    r = render_frame(Scene.start(), camera=cam, seed=1, geometry=g)
    quad = np.array(r.truth["quad"])
    assert np.allclose(quad, cam.project(g, g.corners), atol=0.01)
    for corners in r.truth["markers"].values():
        pts = np.array(corners)
        assert (pts >= 0).all() and (pts[:, 0] < 640).all() and (pts[:, 1] < 480).all()
    assert r.image.shape == (480, 640, 3) and r.image.dtype == np.uint8


def test_dice_truth_lies_in_the_frame_and_on_the_surface() -> None:
    r = render_frame(random_scene(np.random.default_rng(5)), seed=5, width=640, height=480)
    x0, y0, x1, y1 = BoardGeometry().surface
    assert len(r.truth["dice"]) == 2
    for d in r.truth["dice"]:
        assert 1 <= d["value"] <= 6
        assert x0 <= d["center_mm"][0] <= x1 and y0 <= d["center_mm"][1] <= y1
        assert 0 <= d["center"][0] < 640 and 0 <= d["center"][1] < 480


def test_occluder_is_in_the_truth_and_changes_the_picture() -> None:
    scene = random_scene(np.random.default_rng(9))
    plain = render_frame(scene, seed=2, width=320, height=240)
    covered = render_frame(Scene(white=scene.white, black=scene.black, dice=scene.dice,
                                 marks=scene.marks, occluder="hand"),
                           seed=2, width=320, height=240)
    assert not plain.truth["occluded"] and covered.truth["occluded"]
    assert np.abs(plain.image.astype(int) - covered.image.astype(int)).mean() > 3


def test_both_colours_on_one_field_is_refused() -> None:
    with pytest.raises(ValueError, match="both colours"):
        render_frame(Scene(white={5: 1, 1: 14}, black={20: 1, 1: 14}), seed=0, width=160,
                     height=120)


@pytest.mark.parametrize("seed", range(20))
def test_three_jetons_are_always_drawn(seed: int) -> None:
    scene = random_scene(np.random.default_rng(seed))
    assert scene.marks is not None
    placed = 0
    for pm in (scene.marks.white, scene.marks.black):
        if pm.token_spot:
            placed += 2 if pm.bredouille_token else 1
    assert placed <= 3


def test_a_cocked_die_when_asked_and_its_truth() -> None:
    scene = random_scene(np.random.default_rng(7), cocked_rate=1.0)
    tilts = [d.cocked for d in scene.dice]
    assert len(tilts) == 2 and sorted(t > 0 for t in tilts) == [False, True]
    assert 20.0 <= max(tilts) <= 45.0
    truth = render_frame(scene, seed=7, width=640, height=480).truth["dice"]
    cocked = [d for d in truth if d["value"] is None]
    assert len(cocked) == 1 and cocked[0]["reason"] == "cocked"
    assert cocked[0]["tilt"] == pytest.approx(max(tilts), abs=0.05)
    assert all("tilt" not in d for d in truth if d["value"] is not None)
    # the whole die as seen: round the top's centre, and wider than a flat die's top
    for d in truth:
        xs, ys = zip(*d["outline_mm"])
        assert min(xs) < d["center_mm"][0] < max(xs) and min(ys) < d["center_mm"][1] < max(ys)
        assert max(max(xs) - min(xs), max(ys) - min(ys)) > 16.0
    outline = np.array(cocked[0]["outline_mm"])
    assert np.linalg.norm(outline - cocked[0]["center_mm"], axis=1).max() > 12.0


def test_a_cocked_die_rests_on_a_dame_leaning_away_or_against_the_rail_leaning_to_it() -> None:
    import math

    from tablier.vision.render import white_field
    g = BoardGeometry()
    x0, y0, x1, y1 = g.surface
    r = g.checker_diameter / 2
    kinds = {"dame": 0, "rail": 0}
    for seed in range(40):
        scene = random_scene(np.random.default_rng(seed), cocked_rate=1.0)
        (die,) = [d for d in scene.dice if d.cocked]
        other = next(d for d in scene.dice if not d.cocked)
        assert math.dist(die.center, other.center) >= 30
        firsts = [g.slot_centers(white_field(c, f))[0]
                  for c, men in ((Color.WHITE, scene.white), (Color.BLACK, scene.black))
                  for f, n in men.items() if n > 0]
        lean = (math.cos(math.radians(die.cock_direction)),
                math.sin(math.radians(die.cock_direction)))
        gaps = {(0.0, 1.0): die.center[1] - y0, (0.0, -1.0): y1 - die.center[1],
                (1.0, 0.0): die.center[0] - x0, (-1.0, 0.0): x1 - die.center[0]}
        inward, gap = min(gaps.items(), key=lambda kv: kv[1])
        if float(np.dot(inward, lean)) < -0.99:
            # leaning toward the rail, its upper edge on it: the centre half a die's
            # (cos + sin) of the tilt away, give or take its turn and a gap of up to 1 mm
            t = math.radians(die.cocked)
            reach = g.die_size / 2 * (math.cos(t) + math.sin(t))
            assert reach - 0.01 <= gap <= reach + 1.5, (seed, gap, reach)
            kinds["rail"] += 1
            continue
        # else resting on a dame, 3 to 8 mm from its rim, leaning away from it
        near = [d for d in firsts if r + 2.9 <= math.dist(die.center, d) <= r + 8.1]
        assert any(float(np.dot(np.subtract(die.center, d), lean)) > 0.99 * math.dist(
            die.center, d) for d in near), seed
        kinds["dame"] += 1
    assert kinds["dame"] >= 15 and kinds["rail"] >= 5, kinds
    # --cocked-anywhere: where it fell, any way (the older sets)
    old = random_scene(np.random.default_rng(3), cocked_rate=1.0, cocked_against=False)
    assert any(d.cocked for d in old.dice)


def test_a_die_by_the_rail_touches_it_lying_flat() -> None:
    import math
    g = BoardGeometry()
    x0, y0, x1, y1 = g.surface
    gaps = []
    for seed in range(30):
        scene = random_scene(np.random.default_rng(seed), by_rail=1.0)
        a, b = scene.dice
        assert math.dist(a.center, b.center) >= 30
        for die in scene.dice:
            assert not die.cocked
            turn = math.radians(die.rotation)
            half = g.die_size / 2 * (abs(math.cos(turn)) + abs(math.sin(turn)))
            x, y = die.center
            gap = min(x - x0, x1 - x, y - y0, y1 - y) - half
            assert gap >= -1e-9 and abs(x - g.bridge_x) >= 25
            gaps.append(gap)
    # nearly every die found a place, its side within 1.5 mm of the rail
    assert sum(gap <= 1.5 for gap in gaps) >= 55, gaps
    # before this option no die lay within 15 mm of the rail
    assert all(min(d.center[0] - x0, x1 - d.center[0], d.center[1] - y0, y1 - d.center[1]) >= 15
               for s in range(30) for d in random_scene(np.random.default_rng(s)).dice)


def _held(scene: Scene) -> dict[int, int]:
    from tablier.vision.render import white_field
    return {white_field(c, f): n for c, men in ((Color.WHITE, scene.white),
                                                 (Color.BLACK, scene.black))
            for f, n in men.items() if n > 0}


def test_a_die_crossing_a_dame_is_moved_clear_or_lies_on_top_of_it() -> None:
    import math

    from tablier.vision.render import _crosses_dames, _dame_stacks
    g = BoardGeometry()
    crossing = on_top = clear = 0
    for seed in range(60):
        old = random_scene(np.random.default_rng(seed), by_rail=0.3)
        crossing += sum(_crosses_dames(g, d, _dame_stacks(g, _held(old))) for d in old.dice)
        scene = random_scene(np.random.default_rng(seed), by_rail=0.3, on_dames=0.3)
        a, b = scene.dice
        assert math.dist(a.center, b.center) >= 30
        firsts = [g.slot_centers(wf)[0] for wf in _held(scene)]
        for die in scene.dice:
            if die.on_dame:
                # wholly on the first dame of a field: within 3 mm of the slot's centre
                assert min(math.dist(die.center, c) for c in firsts) <= 3 * math.sqrt(2)
                on_top += 1
            else:
                assert not _crosses_dames(g, die, _dame_stacks(g, _held(scene))), seed
                clear += 1
    # without the option a die is drawn through a dame about one time in six
    assert crossing >= 10, crossing
    assert on_top >= 20 and clear >= 60, (on_top, clear)


def test_a_die_on_a_dame_is_drawn_on_its_pile_raised_and_readable() -> None:
    import math
    g = BoardGeometry()
    for seed in range(40):
        scene = random_scene(np.random.default_rng(seed), on_dames=1.0)
        if any(d.on_dame for d in scene.dice):
            break
    flat = replace(scene, dice=tuple(replace(d, on_dame=False) for d in scene.dice))
    cam = Camera.random(np.random.default_rng(1), 1640, 1232, geometry=g)
    up, down = (render_frame(s, seed=5, camera=cam).truth["dice"] for s in (scene, flat))
    raised = [k for k, d in enumerate(scene.dice) if d.on_dame]
    assert raised
    for k in raised:
        assert up[k]["on_dame"] and up[k]["value"] == scene.dice[k].value
        assert up[k]["reason"] is None  # not "on_die": a flat die on a man is good
        # drawn on the pile's top (up and to the left of its slot), not where it lay
        moved = np.subtract(up[k]["center_mm"], down[k]["center_mm"])
        assert 0.5 < math.hypot(*moved) < 30, moved
    for k in set(range(len(scene.dice))) - set(raised):
        assert "on_dame" not in up[k] and up[k]["center_mm"] == down[k]["center_mm"]


def test_no_cocked_dice_draws_nothing_more() -> None:
    # sets rendered before --cocked existed must come out alike from their seeds
    a, b = np.random.default_rng(8), np.random.default_rng(8)
    assert random_scene(a) == random_scene(b, cocked_rate=0.0, by_rail=0.0, on_dames=0.0,
                                           on_die=0.0)
    assert a.bit_generator.state == b.bit_generator.state
    c = np.random.default_rng(8)
    random_scene(c, cocked_rate=1.0)
    assert c.bit_generator.state != a.bit_generator.state


def test_parallax_draws_a_die_s_top_away_from_the_camera_s_foot() -> None:
    from tablier.vision.render import DieSpec
    g = BoardGeometry()
    cam = Camera.random(np.random.default_rng(4), 1640, 1232, geometry=g, distortion=False)
    bx, by, height = cam.viewpoint(g)
    assert 500 < height < 2000 and 0 < bx < g.size[0] and 0 < by < g.size[1]
    x0, y0, _, _ = g.surface
    spot = (x0 + 20.0, y0 + 20.0)  # a corner of the playing surface, far from the foot
    scene = Scene(white={1: 15}, black={1: 15}, dice=(DieSpec(3, spot),))
    seen = {p: render_frame(scene, camera=cam, seed=1, geometry=g, parallax=p).truth["dice"][0]
            for p in (False, True)}
    assert seen[False]["value"] == seen[True]["value"] == 3
    assert np.allclose(seen[False]["center_mm"], spot, atol=0.2)
    # the top face is one die (16 mm) up: drawn 16 * (spot - foot) / height further out
    expect = np.array(spot) + g.die_size * (np.array(spot) - (bx, by)) / height
    assert np.allclose(seen[True]["center_mm"], expect, atol=0.5)


def test_a_sunk_surface_leaves_the_rails_and_is_seen_nearer_the_camera() -> None:
    import math

    from tablier.vision.render import DieSpec, Lighting
    g = BoardGeometry()
    x0, y0, x1, y1 = g.surface
    cam = Camera.random(np.random.default_rng(4), 1640, 1232, geometry=g)
    bx, by, height = cam.viewpoint(g)
    # a die far from the point below the camera, where the surface moves most
    far = (x0 + 30.0 if bx > (x0 + x1) / 2 else x1 - 30.0,
           y0 + 30.0 if by > (y0 + y1) / 2 else y1 - 30.0)
    scene = Scene(white={1: 15}, black={1: 15}, dice=(DieSpec(value=4, center=far),))
    flat, sunk = (render_frame(scene, camera=cam, lighting=Lighting(), seed=2, depth=d)
                  for d in (0.0, 30.0))
    # the rails' top stays put: the markers and the holes look the same
    for mid, corners in flat.truth["markers"].items():
        assert np.allclose(corners, sunk.truth["markers"][mid])
    pts = cam.project(g, [g.marker_center(0), g.hole_center(Color.WHITE, 6)])
    for x, y in np.round(pts).astype(int):
        a = flat.image[y - 6:y + 7, x - 6:x + 7].astype(int)
        b = sunk.image[y - 6:y + 7, x - 6:x + 7].astype(int)
        assert np.abs(a - b).mean() < 3
    # the die is seen nearer the point below the camera, by about depth / height: drawn
    # where the rails' plane shows that point ...
    (d0,), (d1,) = flat.truth["dice"], sunk.truth["dice"]
    below = cam.project(g, [(bx, by)])[0]
    r0, r1 = math.dist(d0["center"], below), math.dist(d1["center"], below)
    assert r1 < r0 and (r0 - r1) / r0 == pytest.approx(30.0 / height, rel=0.3)
    # ... while its truth in millimetres stays where it lies, on the surface's plane (the
    # top leans out a little less from 30 mm farther away)
    assert math.dist(d0["center_mm"], d1["center_mm"]) < 1.0
    # and drawn there: the die's white top lies under the truth's pixel, not the old one
    for r in (flat, sunk):
        x, y = np.round(r.truth["dice"][0]["center"]).astype(int)
        assert r.image[y - 1:y + 2, x - 1:x + 2].min() > 150
    assert math.dist(d0["center"], d1["center"]) > 8


def test_the_camera_is_a_pinhole_and_a_nudge_moves_the_board_not_the_camera() -> None:
    import cv2
    from tablier.vision.render import nudge

    g = BoardGeometry()
    obj = np.hstack([g.corners, np.zeros((4, 1))]).astype(np.float64)
    moved = []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        cam = Camera.random(rng, 1640, 1232, geometry=g)
        # a pose draws the corners exactly (random corners are no pinhole: up to 23 px off)
        *_pose, errs = cv2.solvePnPGeneric(obj, np.array(cam.corners), cam.matrix,
                                           None, flags=cv2.SOLVEPNP_IPPE)
        assert float(np.min(errs)) < 0.05
        eye = np.array(cam.viewpoint(g))
        for _ in range(10):
            # the point below the camera moves as the board does (at most ~21 mm), never to
            # the mirror pose's place (once about 1 frame in 10, up to 200 mm away)
            moved.append(float(np.hypot(*(np.array(nudge(cam, rng, geometry=g).viewpoint(g))
                                          - eye)[:2])))
    assert max(moved) < 30.0


def test_a_die_resting_on_the_other_is_drawn_raised_and_both_are_a_bad_throw() -> None:
    import math
    g = BoardGeometry()
    scene = random_scene(np.random.default_rng(3), on_die=1.0, cocked_rate=1.0)
    low, high = scene.dice
    assert high.on_die and not low.on_die and not low.cocked and not high.cocked
    assert max(abs(a - b) for a, b in zip(high.center, low.center, strict=True)) <= g.die_size / 3
    cam = Camera.random(np.random.default_rng(1), 1640, 1232, geometry=g)
    stacked = render_frame(scene, seed=5, camera=cam)
    apart = render_frame(replace(scene, dice=(low,)), seed=5, camera=cam)
    truth = stacked.truth["dice"]
    assert [(d["value"], d["reason"]) for d in truth] == [(None, "on_die")] * 2
    # the die on top is drawn where the lone die was, and over it
    assert math.dist(truth[0]["center_mm"], apart.truth["dice"][0]["center_mm"]) < 1e-6
    assert math.dist(truth[1]["center_mm"], truth[0]["center_mm"]) < g.die_size
    assert not np.array_equal(stacked.image, apart.image)


def test_on_die_reach_draws_nearly_centred_stacks_and_defaults_to_a_third() -> None:
    g = BoardGeometry()

    def offsets(**reach: float) -> list[float]:
        out = []
        for seed in range(40):
            low, high = random_scene(np.random.default_rng(seed), on_die=1.0, **reach).dice
            out.append(max(abs(a - b) for a, b in zip(high.center, low.center, strict=True)))
        return out

    near = offsets(on_die_reach=0.1)
    assert 0.05 * g.die_size < max(near) <= 0.1 * g.die_size
    # the default is the third of a die every set with stacks was rendered with
    default = offsets()
    assert 0.25 * g.die_size < max(default) <= g.die_size / 3


def test_a_die_on_the_other_may_be_drawn_hiding_the_die_below_from_the_camera() -> None:
    import math
    g = BoardGeometry()
    apart, hidden = [], []
    for seed in range(6):
        scene = random_scene(np.random.default_rng(seed), on_die=1.0, on_die_reach=0.0)
        cam = Camera.random(np.random.default_rng(seed), 640, 480, geometry=g)
        low, high = (render_frame(scene, seed=5, camera=cam, hide_below=hide).truth["dice"]
                     for hide in (False, True))
        # centred, the top die is drawn outward (parallax) by its height times the lean
        apart.append(math.dist(low[0]["center_mm"], low[1]["center_mm"]))
        hidden.append(math.dist(high[0]["center_mm"], high[1]["center_mm"]))
        assert high[0]["center_mm"] == low[0]["center_mm"]  # the die below stays
    # (the leans of these six stacks run from 0.03 to 0.31: drawn 0.6 to 5 mm apart)
    assert max(hidden) < 0.5 and max(apart) > 4.0
    assert all(h < a / 2 for h, a in zip(hidden, apart, strict=True))


def test_two_dice_may_be_drawn_touching_side_by_side() -> None:
    import math
    g = BoardGeometry()
    s = g.die_size
    touching = 0
    for seed in range(20):
        scene = random_scene(np.random.default_rng(seed), touching=1.0, cocked_rate=1.0)
        a, b = scene.dice
        gap = math.dist(a.center, b.center)
        if gap >= 30.0:
            continue  # the place beside the first die was off the surface
        touching += 1
        assert not a.cocked and not b.cocked and not a.on_die and not b.on_die
        assert abs((b.rotation - a.rotation + 45.0) % 90.0 - 45.0) <= 10.0
        # in the first die's frame, the second lies beyond one of its faces, slid along it
        # by half a die at most: the two squares cannot overlap
        t = math.radians(a.rotation)
        dx, dy = b.center[0] - a.center[0], b.center[1] - a.center[1]
        u, v = dx * math.cos(t) + dy * math.sin(t), -dx * math.sin(t) + dy * math.cos(t)
        far, near = max(abs(u), abs(v)), min(abs(u), abs(v))
        assert s < far <= s * (0.5 + 0.5 * (math.cos(math.radians(10)) + math.sin(
            math.radians(10)))) + 2.0 + 1e-6
        assert near <= s / 2 + 1e-6
    assert touching >= 10
    # at 0 nothing more is drawn from the rng (the scenes of older seeds stay alike); above 0
    # the draw is made even where it comes out "no"
    def left(touching: float) -> object:
        rng = np.random.default_rng(4)
        random_scene(rng, touching=touching)
        return rng.bit_generator.state
    assert left(0.0) != left(1e-12)


def test_look_alike_draws_brown_points_and_brown_black_dames_with_the_same_draws() -> None:
    from tablier.vision.render import _BLACKS, _FIELD_PAIRS, LOOK_ALIKE_STYLE, BoardStyle
    dark, black = _FIELD_PAIRS[LOOK_ALIKE_STYLE[0]][0], _BLACKS[LOOK_ALIKE_STYLE[1]]
    same_surface = 0
    for seed in range(20):
        plain = BoardStyle.random(np.random.default_rng(seed))
        alike = BoardStyle.random(np.random.default_rng(seed), look_alike=True)
        # the same draws: every colour but the points' and the black dames' is unchanged, and
        # the surface where it would be the new points' colour
        assert replace(alike, fields=plain.fields, black=plain.black,
                       surface=plain.surface) == plain
        same_surface += alike.surface == plain.surface
        # jittered by 10 (points) and 4 (dames) grey levels a channel
        assert min(np.abs(np.subtract(f, dark)).max() for f in alike.fields) <= 40
        assert np.abs(np.subtract(alike.black, black)).max() <= 16
    assert same_surface >= 10


@pytest.mark.parametrize(("args", "text"), [(["--size", "big"], "--size must be WxH"),
                                            (["--count", "0"], "--count at least 1")])
def test_the_module_refuses_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        args: list[str], text: str) -> None:
    from tablier.vision.render import main as render_main

    with pytest.raises(SystemExit) as done:
        render_main([str(tmp_path / "r"), *args])
    assert done.value.code == 2 and text in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
