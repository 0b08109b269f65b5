"""The dice as the recogniser reads them on the whole board (rendered frames).

Most are regression tests on TUNING data (the committed ``fixtures/vision/tune`` set, seed 11,
and frames rendered here from seed 101, the seed of the 1640x1232 tuning set): the figures the
recogniser reached there when its dice stage was tuned, less one die of margin for the dice
reader's own changes. One is a floor on a slice of MEASURING frames (seed 2), at the figure
measured once the dice stage was chosen. None of them is the measured accuracy (see
docs/vision.md for that).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from tablier.calibration.calibration import Calibration
from tablier.calibration.flow import calibrate_frame
from tablier.vision import recognizer as rec_mod
from tablier.vision.dice import DiceConfig, read_dice
from tablier.vision.evaluate import frames
from tablier.vision.imageio import read_image
from tablier.vision.recognizer import STRAIGHT_VIEW_COCKED_CONTACT, Recognizer
from tablier.vision.render import (
    BoardGeometry,
    BoardStyle,
    Camera,
    DieSpec,
    Lighting,
    Scene,
    render_frame,
    render_set,
)

TUNE = Path(__file__).resolve().parents[2] / "fixtures" / "vision" / "tune"


def _dice_read(session: Path) -> tuple[int, int, int]:
    """Dice read right, dice in the truth, and sightings matching no die, over a session."""
    rec = Recognizer(Calibration.load(session / "calibration.json"))
    right = total = stray = 0
    for img, truth_path in frames(session):
        truth = json.loads(truth_path.read_text())
        if truth["occluded"]:
            continue
        obs = rec.recognize(read_image(img))
        for td in truth["dice"]:
            near = [d for d in obs.dice if math.dist(d.center_mm, td["center_mm"]) < 12]
            total += 1
            right += len(near) == 1 and near[0].value == td["value"]
        stray += sum(all(math.dist(d.center_mm, td["center_mm"]) >= 12 for td in truth["dice"])
                     for d in obs.dice)
    return right, total, stray


@pytest.fixture(scope="module")
def large_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight 1640x1232 frames with two dice each (tuning seed 101, no hands)."""
    root = tmp_path_factory.mktemp("board_dice")
    (folder,) = render_set(root, seed=101, sessions=1, frames=8, occluder_rate=0.0)
    return Path(folder)


def test_dice_on_large_frames(large_session: Path) -> None:
    right, total, stray = _dice_read(large_session)
    assert total == 16
    assert right >= total - 1, f"{right}/{total} dice read"
    assert stray == 0, f"{stray} dice seen where there is none"


@pytest.fixture(scope="module")
def measuring_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """25 1640x1232 frames of the MEASURING seed 2 (the seed of the 400-frame measuring set of
    docs/vision.md), hands as usual."""
    root = tmp_path_factory.mktemp("board_dice_measure")
    (folder,) = render_set(root, seed=2, sessions=1, frames=25)
    return Path(folder)


def test_dice_on_measuring_frames(measuring_session: Path) -> None:
    # a floor, not a tuning aid: every die was read and none was seen where there is none
    # when this was written (2026-11-24; docs/vision.md has the whole set's figures)
    right, total, stray = _dice_read(measuring_session)
    assert total >= 40
    assert right == total, f"{right}/{total} dice read"
    assert stray == 0, f"{stray} dice seen where there is none"


@pytest.mark.parametrize("session", sorted(p.name for p in TUNE.iterdir() if p.is_dir()))
def test_dice_on_small_frames(session: str) -> None:
    # 1024x768 frames: dice of about 17 px, read through upsampled, sharpened views
    right, total, stray = _dice_read(TUNE / session)
    assert total >= 16
    assert right >= total - 1, f"{right}/{total} dice read in {session}"
    assert stray <= 1, f"{stray} dice seen where there is none in {session}"


def test_the_reader_of_small_dice_takes_rougher_pip_shapes() -> None:
    # Pips drawn up from a few camera pixels have rough shapes (COARSE_SHAPE_TOLERANCE); the
    # reader of larger dice keeps the dice reader's own tolerance.
    rec = Recognizer(Calibration.load(TUNE / "s00" / "calibration.json"))
    coarse, fine = rec._dice, rec._dice_fine
    assert isinstance(coarse, rec_mod._StraightViewReader)
    assert isinstance(fine, rec_mod._StraightViewReader)
    assert coarse._cfg.shape_tolerance == rec_mod.COARSE_SHAPE_TOLERANCE
    assert fine._cfg.shape_tolerance == DiceConfig().shape_tolerance
    assert rec_mod.COARSE_SHAPE_TOLERANCE > DiceConfig().shape_tolerance


def test_the_recogniser_s_reader_takes_no_speck_for_a_pip() -> None:
    # A straightened view draws a die some 80 px wide, its pips 6-8 px in radius. Two dark
    # specks 2 px in radius on a two's blank middle (tuning board 5131, s05/frame_019) made
    # the two no two (a pip midway) and a face of their own.
    rec = Recognizer(Calibration.load(TUNE / "s00" / "calibration.json"))
    assert isinstance(rec._dice, rec_mod._StraightViewReader)
    cfg = rec._dice._cfg
    assert cfg.pip_area[0] == rec_mod.STRAIGHT_VIEW_PIP_AREA
    view = np.full((240, 240), 90, np.uint8)
    cv2.rectangle(view, (80, 80), (160, 160), 215, -1)
    for x, y, r in ((100, 100, 7.0), (140, 140, 7.0), (121, 118, 2.0), (119, 126, 2.0)):
        cv2.circle(view, (round(x * 16), round(y * 16)), round(r * 16), 40, -1, cv2.LINE_AA,
                   shift=4)
    rgb = np.dstack([view] * 3)
    assert [d.value for d in read_dice(cfg, rgb).dice] == [2]
    assert [d.value for d in read_dice(
        dataclasses.replace(cfg, pip_area=DiceConfig().pip_area), rgb).dice] != [2]


Leaning = list[tuple[tuple[float, float], tuple[float, float], Scene, Any]]


def _board(seed: int, g: BoardGeometry, size: tuple[int, int] = (1640, 1232)
           ) -> tuple[np.random.Generator, BoardStyle, Camera, Calibration]:
    """A board of its own style and camera seen in frames of ``size``, calibrated; the rng to
    go on with."""
    w, h = size
    rng = np.random.default_rng(seed)
    style, cam = BoardStyle.random(rng), Camera.random(rng, w, h, geometry=g)
    ref = render_frame(Scene.start(), style=style, camera=cam, lighting=Lighting(), seed=1,
                       geometry=g, width=w, height=h)
    return rng, style, cam, calibrate_frame(ref.image, geometry=g)


def _leaning_boards(seeds: range, tilt: float) -> Leaning:
    """1640x1232 boards, each with a die leaning ``tilt`` degrees and a flat die:
    (leaning die's place, flat die's place, scene, observation)."""
    g = BoardGeometry()
    out = []
    for seed in seeds:
        rng, style, cam, cal = _board(seed, g)
        rec = Recognizer(cal)
        x0, y0, x1, y1 = g.surface
        lean = (float(rng.uniform(x0 + 60, x1 - 60)), float(rng.uniform(y0 + 60, y1 / 2)))
        flat = (float(rng.uniform(x0 + 60, x1 - 60)), float(rng.uniform(y1 / 2 + 30, y1 - 60)))
        scene = Scene(white={1: 15}, black={1: 15},
                      dice=(DieSpec(int(rng.integers(1, 7)), lean, 20.0, cocked=tilt),
                            DieSpec(int(rng.integers(1, 7)), flat, 35.0)))
        frame = render_frame(scene, style=style, camera=cam, seed=seed, geometry=g)
        out.append((lean, flat, scene, rec.recognize(frame.image)))
    return out


def _judged(boards: Leaning) -> int:
    """How many leaning dice were judged cocked; every flat die must be read."""
    cocked = 0
    for lean, flat, scene, obs in boards:
        near_flat = [d for d in obs.dice if math.dist(d.center_mm, flat) < 12]
        assert [d.value for d in near_flat] == [scene.dice[1].value]
        near_lean = [d for d in obs.dice if math.dist(d.center_mm, lean) < 12]
        assert len(near_lean) <= 1
        cocked += bool(near_lean) and near_lean[0].reason == "cocked"
    return cocked


@pytest.fixture(scope="module")
def leaning_frames() -> Leaning:
    """Four boards (seeds 900..903), each with a die leaning 45 degrees."""
    return _leaning_boards(range(900, 904), 45.0)


def test_a_leaning_die_is_cocked_and_a_flat_one_is_read(leaning_frames: Leaning) -> None:
    cocked = _judged(leaning_frames)
    # the straightened views' small pips give rough normals: most, not all, leaning dice are
    # caught at 45 degrees (docs/vision.md)
    assert cocked >= 3, f"{cocked} of {len(leaning_frames)} leaning dice judged cocked"


def test_a_die_leaning_30_degrees_is_cocked_at_the_pi_resolution() -> None:
    # Dice of 26-32 camera px are judged cocked from STRAIGHT_VIEW_COCKED_FINE (26 degrees),
    # not 30 as smaller dice: a die leaning 30 degrees on a dame is then mostly caught (none of
    # these eight was at 30 degrees).
    boards = _leaning_boards(range(904, 912), 30.0)
    cocked = _judged(boards)
    assert cocked >= 4, f"{cocked} of {len(boards)} dice leaning 30 degrees judged cocked"


def test_a_die_leaning_24_degrees_is_caught_as_the_camera_saw_it() -> None:
    # Below STRAIGHT_VIEW_COCKED_FINE the straightened view lets a leaning die pass (a die
    # leaning toward the camera even looks square there). Judged along the camera's ray, its
    # side faces deciding (STRAIGHT_VIEW_COCKED_RAY, 22 degrees), 5 of these 12 are caught;
    # without that judgement, 2.
    boards = _leaning_boards(range(912, 924), 24.0)
    cocked = _judged(boards)
    assert cocked >= 4, f"{cocked} of {len(boards)} dice leaning 24 degrees judged cocked"


def _against_boards(seeds: range, tilt: float) -> list[tuple[Leaning, Leaning]]:
    """1640x1232 boards, each with a die leaning ``tilt`` degrees against a lone dame (away
    from it, toward the field's tip) and a flat die, read by the rules alone (no board net)
    with and without the contact rule."""
    g = BoardGeometry()
    out = []
    for seed in seeds:
        rng, style, cam, cal = _board(seed, g)
        field = int(rng.choice([3, 4, 5, 8, 9, 10]))
        d = g.field_axis(field)[2]
        dame = g.slot_centers(field)[0]
        phi = math.pi / 2 * d + float(rng.uniform(-0.5, 0.5))
        gap = g.checker_diameter / 2 + float(rng.uniform(3.0, 8.0))
        lean = (dame[0] + gap * math.cos(phi), dame[1] + gap * math.sin(phi))
        x0, y0, x1, _y1 = g.surface
        flat = (float(rng.uniform(x0 + 60, x1 - 60)), y0 + 150)
        scene = Scene(white={1: 14, field: 1}, black={1: 15},
                      dice=(DieSpec(int(rng.integers(1, 7)), lean, 20.0, cocked=tilt,
                                    cock_direction=math.degrees(phi)),
                            DieSpec(int(rng.integers(1, 7)), flat, 35.0)))
        frame = render_frame(scene, style=style, camera=cam, seed=seed, geometry=g)
        pair = []
        for contact in (STRAIGHT_VIEW_COCKED_CONTACT, math.inf):
            obs = Recognizer(cal, cocked_contact=contact, dice_net=False).recognize(frame.image)
            pair.append([(lean, flat, scene, obs)])
        out.append((pair[0], pair[1]))
    return out


def test_a_die_leaning_on_a_dame_is_cocked_from_a_smaller_tilt() -> None:
    # A die does not stay tilted on its own: judged more than STRAIGHT_VIEW_COCKED_CONTACT
    # (20 degrees) off the board within CONTACT die sizes of a dame's rim, it is cocked. Read
    # by the rules alone: of these twenty, 8 are caught; without the rule, 6 (OpenCV 5.0).
    # As OpenCV 4.14 draws them, 9 and 6. (Until the thirty-sixth round only the first ten
    # were read, 4 and 2; since its row cut, OpenCV 4.14's drawing of 933 is caught without
    # the rule too, 4 and 3 there. With the board net of the fourteenth round, 8 and 7 of
    # the ten: the net sees most of them on its own.)
    boards = _against_boards(range(930, 950), 24.0)
    caught = sum(_judged(with_rule) for with_rule, _ in boards)
    alone = sum(_judged(without) for _, without in boards)
    assert caught >= alone + 2, f"{caught} of {len(boards)} caught ({alone} without the rule)"


def _faint(image: np.ndarray, center: tuple[float, float], half: int,
           keep: float) -> np.ndarray:
    """The frame with the pips around ``center`` (px) kept at ``keep`` of their depth: each
    pixel brought toward the picture closed over the pips (a die's body without them)."""

    x, y = (round(v) for v in center)
    out = image.copy()
    box = out[y - half:y + half, x - half:x + half]
    closed = cv2.morphologyEx(box, cv2.MORPH_CLOSE,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    box[:] = np.clip(keep * box.astype(np.float32) + (1 - keep) * closed, 0, 255).astype(
        np.uint8)
    return out


def test_a_die_whose_pips_the_search_misses_is_found_by_its_light_body() -> None:
    # At 1024x768 a blurred two's pips may be too faint for the pip search, which then
    # gives no place near it: the light patch of the die's body is looked at too.
    g = BoardGeometry()
    for seed in (903, 905, 907):
        rng, style, cam, cal = _board(seed, g, (1024, 768))
        faint = (float(rng.uniform(150, 450)), float(rng.uniform(100, 200)))
        other = (float(rng.uniform(150, 450)), float(rng.uniform(330, 450)))
        scene = Scene(white={1: 15}, black={1: 15},
                      dice=(DieSpec(2, faint, 20.0), DieSpec(6, other, 35.0)))
        frame = render_frame(scene, style=style, camera=cam, seed=seed, geometry=g,
                             width=1024, height=768)
        image = _faint(frame.image, frame.truth["dice"][0]["center"], 14, 0.3)
        read = {}
        for body in (False, True):
            obs = Recognizer(cal, dice_bodies=body).recognize(image)
            read[body] = sorted((d.value or 0, math.dist(d.center_mm, faint) < 8)
                                for d in obs.dice)
        assert read[False] == [(6, False)], f"seed {seed}: the faint two was found anyway"
        assert read[True] == [(2, True), (6, False)], f"seed {seed}: {read[True]}"


@pytest.mark.parametrize("size", [(1024, 768), (1640, 1232)])
def test_light_patches_of_a_board_without_dice_are_no_dice(size: tuple[int, int]) -> None:
    # With no die read, every light patch of a die's size is looked at: none is a die.
    g = BoardGeometry()
    w, h = size
    scene = Scene(white={1: 4, 6: 3, 7: 2, 8: 2, 11: 2, 12: 2},
                  black={1: 5, 4: 2, 6: 2, 9: 2, 10: 2, 12: 2})
    looked = 0
    for seed in range(910, 914):
        _, style, cam, cal = _board(seed, g, size)
        rec = Recognizer(cal)
        patches: list[tuple[float, float]] = []
        body = rec._body_candidates

        def counted(surface: Any, body: Any = body, patches: Any = patches) -> Any:
            places = body(surface)
            patches.extend(places)
            return places

        rec._body_candidates = counted  # type: ignore[method-assign]
        frame = render_frame(scene, style=style, camera=cam, seed=seed, geometry=g,
                             width=w, height=h)
        obs = rec.recognize(frame.image)
        assert obs.dice == (), f"seed {seed}: {obs.dice}"
        looked += len(patches)
    assert looked >= 8  # the light patches were looked at


def test_a_die_on_a_light_point_is_a_light_patch(monkeypatch: pytest.MonkeyPatch) -> None:
    # A die lying where a light point narrows to less than the top-hat's width: at the first
    # lightness the die and the point's tip are one patch, too long for a die (tuning board
    # 5108, s02/frame_021); at a lighter one the die is a patch alone.
    rec = Recognizer(Calibration.load(TUNE / "s00" / "calibration.json"))
    die = rec.calibration.geometry.die_size
    scale, white = 2.0, 240.0
    grey = np.full((round(200 * scale), round(300 * scale)), 60, np.uint8)
    point = np.array([[40, 80], [40, 120], [260, 100]], np.float64) * scale
    cv2.fillPoly(grey, [point.round().astype(np.int32)], 132)
    at = (190.0, 100.0)
    half = die / 2 * scale
    cv2.rectangle(grey, (round(at[0] * scale - half), round(at[1] * scale - half)),
                  (round(at[0] * scale + half), round(at[1] * scale + half)), 235, -1)
    surface = rec_mod._Surface(grey, (0.0, 0.0), scale, white)

    def near() -> bool:
        return any(math.dist(at, c) < 3.0 for c in rec._body_candidates(surface))

    assert near()
    monkeypatch.setattr(rec_mod, "BODY_LIGHTER", ())
    assert not near()


def _cocked_in_the_open(monkeypatch: pytest.MonkeyPatch, *, with_rail_die: bool
                        ) -> tuple[tuple[float, float], Recognizer, Any]:
    """A 1024 px board with a four in the open (and a two by the rail), every die the dice
    stage reads forced to a cocked call: (the four's place, the recogniser, the frame)."""
    g = BoardGeometry()
    x0, y0, _, y1 = g.surface
    open_place = ((x0 + g.bridge_x) / 2, (y0 + y1) / 2)
    dice = [DieSpec(4, open_place, 25.0)]
    if with_rail_die:
        dice.append(DieSpec(2, (g.bridge_x + 80.0, y0 + 10.0), 60.0))
    rec, frame = _all_cocked(monkeypatch, Scene(white={1: 15}, black={1: 15}, dice=tuple(dice)))
    return open_place, rec, frame


def _all_cocked(monkeypatch: pytest.MonkeyPatch, scene: Scene) -> tuple[Recognizer, Any]:
    """A 1024 px board (seed 975) showing ``scene``, every die the dice stage reads forced to
    a cocked call: (the recogniser, the frame)."""
    g = BoardGeometry()
    _, style, cam, cal = _board(975, g, (1024, 768))
    frame = render_frame(scene, style=style, camera=cam, seed=975, geometry=g,
                         width=1024, height=768)
    rec = Recognizer(cal)
    read = rec._read_dice

    def all_cocked(*args: Any) -> Any:
        return tuple(dataclasses.replace(d, value=None, reason="cocked")
                     for d in read(*args))

    monkeypatch.setattr(rec, "_read_dice", all_cocked)
    return rec, frame


def test_a_die_judged_cocked_with_nothing_to_lean_on_is_read_flat(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A die does not stay tilted on its own: one judged cocked in the open (here the reader's
    # call is forced) is asked of the board net as a flat die; by the rail it stays cocked.
    open_place, rec, frame = _cocked_in_the_open(monkeypatch, with_rail_die=True)
    obs = rec.recognize(frame.image)
    seen = {math.dist(d.center_mm, open_place) < 8: d for d in obs.dice}
    assert sorted(seen) == [False, True], obs.dice
    assert min(rec._support(seen[True], obs.dice, obs.fields, obs.marks)) > rec_mod.SUPPORT_REACH
    assert (seen[True].value, seen[True].reason) == (4, None)
    assert (seen[False].value, seen[False].reason) == (None, "cocked")
    monkeypatch.setattr(rec_mod, "SUPPORT_REACH", math.inf)
    assert all(d.reason == "cocked" for d in rec.recognize(frame.image).dice)


def test_a_die_judged_cocked_on_the_top_of_a_pile_is_read_flat(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A die whose foot lies on the top of a pile of dames (its centre more than ON_PILE inside
    # the rim) lies on it, not against it: judged cocked (here the call is forced), it is
    # asked of the board net as a flat die. The die by the rail stays cocked.
    g = BoardGeometry()
    _, y0, _, _ = g.surface
    pile = g.slot_centers(8)[0]
    rail = (g.bridge_x + 80.0, y0 + 10.0)
    scene = Scene(white={1: 12, 8: 3}, black={1: 15},
                  dice=(DieSpec(5, pile, 30.0, on_dame=True), DieSpec(2, rail, 60.0)))
    rec, frame = _all_cocked(monkeypatch, scene)

    def read() -> list[tuple[int | None, str | None]]:
        obs = rec.recognize(frame.image)
        return [next(((d.value, d.reason) for d in obs.dice
                      if math.dist(d.center_mm, at) < 12), (0, None)) for at in (pile, rail)]

    assert read() == [(5, None), (None, "cocked")]
    monkeypatch.setattr(rec_mod, "ON_PILE", math.inf)
    assert read() == [(None, "cocked"), (None, "cocked")]


def test_a_die_may_lean_on_a_jeton() -> None:
    from tablier.calibration.geometry import JETON_REST
    from tablier.engine import Color
    from tablier.vision.marks import MarksReading
    from tablier.vision.recognizer import DieSighting

    g = BoardGeometry()
    _, _, _, cal = _board(976, g, (1024, 768))
    rec = Recognizer(cal)
    jx, jy = g.jeton_center(Color.BLACK, 6, 1)
    die = DieSighting(value=None, center=(0.0, 0.0), center_mm=(jx, jy + 20.0), size=16.0,
                      confidence=0.5, reason="cocked")
    marks = MarksReading(jetons_at_rest=0, white_jetons=(), black_jetons=(6,), white_pegs=(0,),
                         black_pegs=(0,), pavillon="middle", confidence=1.0)
    assert rec._support(die, (die,), (), marks)[3] == pytest.approx(20.0 - g.jeton_diameter / 2)
    assert rec._support(die, (die,), (), None)[3] == math.inf
    rest = dataclasses.replace(marks, black_jetons=(), jetons_at_rest=1)
    rx, ry = g.jeton_center(Color.WHITE, JETON_REST, 2)
    at_rest = dataclasses.replace(die, center_mm=(rx, ry + 15.0))
    assert rec._support(at_rest, (at_rest,), (), rest)[3] == pytest.approx(
        15.0 - g.jeton_diameter / 2)


def test_a_die_seen_alone_keeps_its_cocked_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # With no other die in view, the die judged cocked in the open may rest on the hidden
    # die below it: a bad throw either way, it is not read again as a flat die.
    open_place, rec, frame = _cocked_in_the_open(monkeypatch, with_rail_die=False)
    (die,) = rec.recognize(frame.image).dice
    assert math.dist(die.center_mm, open_place) < 8
    assert (die.value, die.reason) == (None, "cocked")


def _steep_rail_board(seed: int, g: BoardGeometry, size: tuple[int, int]
                      ) -> tuple[Scene, Any, Calibration, tuple[float, float],
                                 tuple[float, float]]:
    """A board with a die leaning 35-45 degrees against the rail and a flat die in the open:
    (scene, frame, calibration, leaning die's place, flat die's place)."""
    from tablier.vision.render import _rail_point, _reach

    x0, y0, x1, y1 = g.surface
    rng, style, cam, cal = _board(seed, g, size)
    side = int(rng.integers(4))
    phi = [-math.pi / 2, math.pi / 2, math.pi, 0.0][side]
    die = DieSpec(int(rng.integers(1, 7)), (0.0, 0.0), 0.0,
                  cocked=float(rng.uniform(35.0, 45.0)), cock_direction=math.degrees(phi))
    # an edge along the rail, the upper edge touching it
    reach, turn = min((_reach(g, dataclasses.replace(die, rotation=float(t)), phi),
                       float(t)) for t in range(0, 90, 3))
    u = (float(rng.uniform(0.1, 0.4)) + 0.5 * int(rng.integers(2)) if side < 2
         else float(rng.uniform(0.15, 0.85)))
    lean = _rail_point(g, side, u, reach + 0.5)
    flat = ((x0 + x1) / 2 + float(rng.uniform(-150, 150)),
            (y0 + y1) / 2 + float(rng.uniform(-60, 60)))
    if abs(flat[0] - g.bridge_x) < 30:
        flat = (flat[0] + 60, flat[1])
    scene = Scene(white={1: 15}, black={1: 15},
                  dice=(dataclasses.replace(die, center=lean, rotation=turn),
                        DieSpec(int(rng.integers(1, 7)), flat, float(rng.uniform(0, 90)))))
    frame = render_frame(scene, style=style, camera=cam, seed=seed, geometry=g,
                         width=size[0], height=size[1])
    return scene, frame, cal, lean, flat


def _asked_and_not(monkeypatch: pytest.MonkeyPatch, seeds: range, size: tuple[int, int],
                   before: Callable[[tuple[float, float]], None] = lambda lean: None,
                   question: str = "EMPTY_VIEW_COCKED", stack_net: bool = True
                   ) -> tuple[dict[bool, int], dict[bool, list[bool]]]:
    """On boards of :func:`_steep_rail_board`, with one of the board net's questions (the
    recogniser's threshold named ``question``, by default the one about empty views) as
    committed (True) and never asked (False): how many leaning dice are judged cocked, and
    whether each flat die is read right. ``before`` is called with the leaning die's place
    before each board is read; ``stack_net`` False reads without the stack nets."""
    committed = getattr(rec_mod, question)
    g = BoardGeometry()
    caught = {True: 0, False: 0}
    flats: dict[bool, list[bool]] = {True: [], False: []}
    for seed in seeds:
        scene, frame, cal, lean, flat = _steep_rail_board(seed, g, size)
        before(lean)
        for asked in (True, False):
            monkeypatch.setattr(rec_mod, question, committed if asked else math.inf)
            dice = Recognizer(cal, stack_net=stack_net).recognize(frame.image).dice
            near = [d.reason for d in dice if math.dist(d.center_mm, lean) < 12]
            caught[asked] += near == ["cocked"]
            flats[asked].append([d.value for d in dice if math.dist(d.center_mm, flat) < 12]
                                == [scene.dice[1].value])
    return caught, flats


def test_a_die_leaning_steeply_on_the_rail_is_found_by_the_board_net(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A die leaning 35-45 degrees against the rail shows a 1024 px camera mostly its side
    # faces: the rules may find no die at all there. With the other die read, the board net
    # is asked about the views where nothing was found, for a cocked die (EMPTY_VIEW_COCKED).
    # Of these twelve boards (seeds 978-989) 11 are caught, 9 without the question; 11 flat
    # dice are read right either way.
    caught, flats = _asked_and_not(monkeypatch, range(978, 990), (1024, 768))
    assert caught[True] >= caught[False] + 2, caught
    assert flats[True] == flats[False] and sum(flats[True]) >= 11, flats


def test_the_fine_readers_empty_views_are_asked_for_a_cocked_die(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # At 1640x1232 the rules see most dice leaning steeply on the rail (of seeds 990-1001,
    # 10 of 12 are judged cocked with the question and without); a few they miss (4 of the
    # cocked dice of the 1640 px tuning boards). Here the rules are made blind to the
    # leaning die (nothing in a view centred within 24 mm of it): the board net finds 10 of
    # the 12 (none without the question), and the flat dice are all read right either way.
    at: list[tuple[float, float]] = []
    reader_view = Recognizer._reader_view
    rules = rec_mod._StraightViewReader.__call__

    def remember(self: Recognizer, image: Any, quad: Any, center: tuple[float, float],
                 native: float) -> Any:
        at.append(center)
        return reader_view(self, image, quad, center, native)

    def blind(lean: tuple[float, float]) -> None:
        def read(self: Any, image: Any, ray: Any = None) -> Any:
            return () if math.dist(at[-1], lean) < 24 else rules(self, image, ray)
        monkeypatch.setattr(rec_mod._StraightViewReader, "__call__", read)

    monkeypatch.setattr(Recognizer, "_reader_view", remember)
    caught, flats = _asked_and_not(monkeypatch, range(990, 1002), (1640, 1232), blind)
    assert caught[True] >= 10 and caught[False] == 0, caught
    assert flats[True] == flats[False] and sum(flats[True]) == 12, flats


def test_a_small_die_read_as_a_value_is_looked_at_again_whole() -> None:
    # The rules' crop of a die leaning on the rail may hold its top face alone (the size they
    # report), which the board net reads as a value; shown a crop of a die's size centred
    # on it, it sees the side faces (SECOND_LOOK_COCKED). Of these eight 1024 px boards
    # (seeds 1104-1111) one leaning die (1108) is caught only with the second look (of the
    # eighty boards 1100-1179, that one); the flat dice are read alike. Read without the
    # stack nets: under OpenCV 4, whose pictures differ a level here and there, the coarse
    # stack nets of the sixty-fourth round call 1107's flat six, read before the leaning die
    # is found, a stack (0.31 sure, at STACK_THRESHOLD 0.3), and the second look is then
    # never asked there (docs/vision.md, sixty-fourth round).
    with pytest.MonkeyPatch.context() as monkeypatch:
        caught, flats = _asked_and_not(monkeypatch, range(1104, 1112), (1024, 768),
                                       question="SECOND_LOOK_COCKED", stack_net=False)
    assert caught[True] >= caught[False] + 1, caught
    assert flats[True] == flats[False] and sum(flats[True]) == 8, flats


@pytest.mark.parametrize("size", [(1024, 768), (1640, 1232)])
def test_the_second_look_takes_a_leaning_die_only(monkeypatch: pytest.MonkeyPatch,
                                                   size: tuple[int, int]) -> None:
    # The board net's answer is forced (always cocked): a small die by the rail is called
    # cocked; one in the open has nothing to lean on (SUPPORT_REACH); two dice side by side
    # (SECOND_LOOK_APART) show each other's faces in the crop; and dice of FINE_DIE_PX
    # pixels or more are not asked.
    g = BoardGeometry()
    x0, y0, _, y1 = g.surface
    in_open = ((x0 + g.bridge_x) / 2, (y0 + y1) / 2)
    by_rail = (g.bridge_x + 80.0, y0 + 10.0)
    beside = (by_rail[0] + g.die_size + 0.3, by_rail[1])
    _, style, cam, cal = _board(975, g, size)
    rec = Recognizer(cal)

    def read(*places: tuple[float, float]) -> list[tuple[int | None, str | None]]:
        dice = tuple(DieSpec(v, at, 0.0) for v, at in zip((4, 2, 5), places))
        frame = render_frame(Scene(white={1: 15}, black={1: 15}, dice=dice), style=style,
                             camera=cam, seed=975, geometry=g, width=size[0], height=size[1])
        seen = rec.recognize(frame.image).dice
        nearest = {min(places, key=lambda at: math.dist(d.center_mm, at)): (d.value, d.reason)
                   for d in seen if min(math.dist(d.center_mm, at) for at in places) < 12}
        return [nearest.get(at, (0, None)) for at in places]

    assert read(in_open, by_rail) == [(4, None), (2, None)]
    monkeypatch.setattr(rec_mod._StraightViewReader, "cocked", lambda *args: 1.0)
    small = size[0] < 1500
    assert read(in_open, by_rail) == [(4, None), (None, "cocked") if small else (2, None)]
    assert read(beside, by_rail) == [(4, None), (2, None)]


@pytest.mark.parametrize("size", [(1024, 768), (1640, 1232)])
def test_two_dice_lying_side_by_side_are_read(monkeypatch: pytest.MonkeyPatch,
                                              size: tuple[int, int]) -> None:
    # Touching face to face (seeds 1010-1015): the board net, taught on dice lying apart,
    # took the other die in its crop for a leaning die's side faces and called both cocked.
    from tablier.vision import dice as dice_mod
    g = BoardGeometry()
    boards = []
    for seed in range(1010, 1016):
        rng, style, cam, cal = _board(seed, g, size)
        x, y = float(rng.uniform(120, 220)), float(rng.uniform(120, 420))
        values = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        dice = (DieSpec(values[0], (x, y), 0.0),
                DieSpec(values[1], (x + g.die_size + 0.3, y), 0.0))
        frame = render_frame(Scene(white={1: 15}, black={1: 15}, dice=dice), style=style,
                             camera=cam, seed=seed, geometry=g, width=size[0], height=size[1])
        boards.append((cal, frame.image, sorted(values)))

    def read() -> tuple[int, int]:
        right = stacked = 0
        for cal, image, values in boards:
            seen = Recognizer(cal).recognize(image).dice
            right += sorted(d.value or 0 for d in seen) == values
            stacked += any(d.reason == "on_die" for d in seen)
        return right, stacked

    right, stacked = read()
    # at 1024x768 one pair (seed 1011) shows one die read, which the stack net calls
    # resting on the other, and one is read as faces nearer than two dice can be (ONE_DIE;
    # docs/vision.md, Limits)
    assert right >= (4 if size[0] < 1500 else 5) and stacked <= 1, (right, stacked)
    second = dice_mod._second_opinion
    monkeypatch.setattr(dice_mod, "_second_opinion", lambda cfg, grey, dice: second(
        dataclasses.replace(cfg, net_cocked_apart=0.0), grey, dice))
    assert read()[0] <= 2


@pytest.mark.parametrize("size", [(1024, 768), (1640, 1232)])
def test_a_die_read_near_its_views_border_is_read_again_centred(
        monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    # Seeds 1016-1021. The only place looked at lies 12 mm beside a lone die (as a dame's rim
    # or the die's own shadow may): the die is read within its size of the view's border,
    # and read again in a view centred on it (``REREAD_EDGE``), as a die cut by the border is.
    # Here it is read right either way: on the tuning boards, not always.
    g = BoardGeometry()
    boards = []
    for seed in range(1016, 1022):
        rng, style, cam, cal = _board(seed, g, size)
        at = (float(rng.uniform(120, 480)), float(rng.uniform(120, 420)))
        value = int(rng.integers(1, 7))
        scene = Scene(white={1: 15}, black={1: 15},
                      dice=(DieSpec(value, at, float(rng.uniform(0, 90))),))
        frame = render_frame(scene, style=style, camera=cam, seed=seed, geometry=g,
                             width=size[0], height=size[1])
        boards.append((cal, frame.image, at, value))
    place: list[tuple[float, float]] = []
    centres: list[tuple[float, float]] = []
    candidates = Recognizer._dice_candidates
    reader_view = Recognizer._reader_view

    def beside(self: Recognizer, *args: Any) -> Any:
        _, surface = candidates(self, *args)
        return [place[-1]], surface

    def remember(self: Recognizer, image: Any, quad: Any, center: tuple[float, float],
                 native: float) -> Any:
        centres.append(center)
        return reader_view(self, image, quad, center, native)

    monkeypatch.setattr(Recognizer, "_dice_candidates", beside)
    monkeypatch.setattr(Recognizer, "_body_candidates", lambda self, surface: [])
    monkeypatch.setattr(Recognizer, "_reader_view", remember)

    def read() -> tuple[int, int]:
        right = centred = 0
        for cal, image, at, value in boards:
            place.append((at[0] + 12.0, at[1]))
            centres.clear()
            seen = Recognizer(cal, stack_net=False).recognize(image).dice
            right += [d.value for d in seen] == [value]
            # (the top face's middle: the die's top lies off its foot, seen at a slant)
            centred += len(seen) == 1 and any(math.dist(c, seen[0].center_mm) < 2.0
                                              for c in centres)
        return right, centred

    right, centred = read()
    assert right == 6 and centred == 6, (right, centred)
    monkeypatch.setattr(rec_mod, "REREAD_EDGE", 0.0)
    # NOTE: the board net's doubt (``BOARD_NET_COCKED_COARSE``) may call a die cut by the
    # view's border cocked, and a die judged cocked near the border is read again centred
    # too: with OpenCV 4 the three of seed 1017 at 1024x768 was (and was read right there).
    monkeypatch.setattr(rec_mod, "BOARD_NET_COCKED_COARSE", None)
    # (the second look draws a view centred on each small die read, for the net alone)
    monkeypatch.setattr(rec_mod, "SECOND_LOOK_COCKED", math.inf)
    assert read()[1] == 0
