"""The board net: the dice net taught on the recogniser's straightened views of a board."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tablier.calibration.calibration import Calibration
from tablier.vision import dicenet
from tablier.vision import recognizer as rec_mod
from tablier.vision.dice import DiceConfig, read_dice
from tablier.vision.imageio import read_image
from tablier.vision.render_dice import render_die

TUNE = Path(__file__).resolve().parents[2] / "fixtures" / "vision" / "tune"


def test_board_net_weights_load_small_and_finite() -> None:
    assert rec_mod.BOARD_NET.stat().st_size < 1_000_000
    weights = dicenet.load_weights(rec_mod.BOARD_NET)
    assert all(np.isfinite(a).all() for a in weights.values())
    assert weights["conv1_w"].shape == dicenet.load_weights()["conv1_w"].shape


def test_crop_is_turned_so_the_die_leans_down() -> None:
    # A bright dot right of the middle: a die leaning right (away from a camera on its left)
    # is turned so that it leans down, and the dot with it.
    grey = np.full((100, 100), 60, np.uint8)
    grey[48:53, 68:73] = 250
    plain = dicenet.crop_die(grey, (50.0, 50.0), 30.0)
    turned = dicenet.crop_die(grey, (50.0, 50.0), 30.0, away=(1.0, 0.0))
    ys, xs = np.unravel_index(np.argmax(plain), plain.shape)
    assert xs > dicenet.SIDE * 0.7 and abs(ys - dicenet.SIDE / 2) < 3
    ys, xs = np.unravel_index(np.argmax(turned), turned.shape)
    assert ys > dicenet.SIDE * 0.7 and abs(xs - dicenet.SIDE / 2) < 3
    # leaning down already: not turned
    down = dicenet.crop_die(grey, (50.0, 50.0), 30.0, away=(0.0, 2.0))
    assert np.array_equal(down, plain)


def test_ray_lean_refuses_a_ray_from_below() -> None:
    with pytest.raises(ValueError, match="point up"):
        dicenet.ray_lean((1.0, 0.0, -5.0))


def test_second_opinion_is_given_the_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    canvas = np.full((240, 240, 3), (40, 100, 60), np.uint8)
    render_die(canvas, value=3, center=(120.0, 120.0), size=80.0, rotation=20.0)
    asked: list[dict[str, Any]] = []

    def sure_five(grey: np.ndarray, dice: list[Any], **kw: Any) -> np.ndarray:
        asked.append(kw)
        probs = np.zeros((len(dice), len(dicenet.CLASSES)), np.float32)
        probs[:, 4] = 0.95
        probs[:, 7] = 0.05
        return probs

    monkeypatch.setattr(dicenet, "classify", sure_five)
    cfg = DiceConfig(board_normal=(0.0, 0.0, 1.0), focal=50.0, net=True)
    assert [d.value for d in read_dice(cfg, canvas).dice] == [5]
    assert asked[-1]["ray"] is None
    ray = (30.0, -40.0, 900.0)
    assert [d.value for d in read_dice(dataclasses.replace(cfg, view_ray=ray),
                                        canvas).dice] == [5]
    assert asked[-1]["ray"] == ray


def test_the_net_undoes_a_cocked_call_only_as_sure_as_told(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tablier.vision import dice as dice_mod

    def sure_five(grey: np.ndarray, dice: list[Any], **kw: Any) -> np.ndarray:
        probs = np.zeros((len(dice), len(dicenet.CLASSES)), np.float32)
        probs[:, 4] = 0.95
        probs[:, 7] = 0.05
        return probs

    monkeypatch.setattr(dicenet, "classify", sure_five)
    grey = np.full((100, 100), 60, np.uint8)
    cocked = dice_mod.Die(value=None, center=(30.0, 30.0), size=20.0, confidence=0.7,
                          reason="cocked", tilt=31.0)
    flat = dice_mod.Die(value=3, center=(70.0, 70.0), size=20.0, confidence=0.7)
    cfg = DiceConfig(board_normal=(0.0, 0.0, 1.0), focal=50.0, net=True, net_threshold=0.5,
                     net_uncock_threshold=0.9)
    undone = dice_mod._second_opinion(cfg, grey, [cocked, flat])
    assert [d.value for d in undone] == [5, 5]
    strict = dataclasses.replace(cfg, net_uncock_threshold=0.99)
    kept = dice_mod._second_opinion(strict, grey, [cocked, flat])
    assert [(d.value, d.reason) for d in kept] == [(None, "cocked"), (5, None)]


def test_with_the_board_normal_the_net_never_undoes_a_cocked_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tablier.vision import dice as dice_mod

    def five(sure: float) -> Any:
        def classify(grey: np.ndarray, dice: list[Any], **kw: Any) -> np.ndarray:
            probs = np.zeros((len(dice), len(dicenet.CLASSES)), np.float32)
            probs[:, 4] = sure
            probs[:, 7] = 1.0 - sure
            return probs
        return classify

    grey = np.full((100, 100), 60, np.uint8)
    cocked = dice_mod.Die(value=None, center=(30.0, 30.0), size=20.0, confidence=0.7,
                          reason="cocked", tilt=None)
    board = DiceConfig(board_normal=(0.0, 0.0, 1.0), focal=50.0, net=True)
    loose = DiceConfig(net=True)
    assert board.net_uncock_board > board.net_threshold == loose.net_threshold
    monkeypatch.setattr(dicenet, "classify", five(0.95))
    assert [d.reason for d in dice_mod._second_opinion(board, grey, [cocked])] == ["cocked"]
    assert [d.value for d in dice_mod._second_opinion(loose, grey, [cocked])] == [5]
    monkeypatch.setattr(dicenet, "classify", five(1.0))
    assert [d.reason for d in dice_mod._second_opinion(board, grey, [cocked])] == ["cocked"]
    # The setting still holds when given.
    sure = dataclasses.replace(board, net_uncock_board=0.99)
    assert [d.value for d in dice_mod._second_opinion(sure, grey, [cocked])] == [5]


def test_the_net_calls_a_die_cocked_from_its_cocked_threshold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tablier.vision import dice as dice_mod

    def five_or_cocked(grey: np.ndarray, dice: list[Any], **kw: Any) -> np.ndarray:
        probs = np.zeros((len(dice), len(dicenet.CLASSES)), np.float32)
        probs[:, 4] = 0.7
        probs[:, dicenet.COCKED] = 0.3
        return probs

    monkeypatch.setattr(dicenet, "classify", five_or_cocked)
    grey = np.full((100, 100), 60, np.uint8)
    flat = dice_mod.Die(value=3, center=(70.0, 70.0), size=20.0, confidence=0.7)
    # (The defaults' own cocked call is turned off: this test sets it.)
    cfg = DiceConfig(board_normal=(0.0, 0.0, 1.0), focal=50.0, net=True, net_threshold=0.5,
                     net_cocked_threshold=None, net_cocked_tilt=None)
    assert [(d.value, d.reason) for d in dice_mod._second_opinion(cfg, grey, [flat])] == [
        (5, None)]
    for threshold, seen in ((0.3, (None, "cocked")), (0.31, (5, None))):
        told = dataclasses.replace(cfg, net_cocked_threshold=threshold)
        [die] = dice_mod._second_opinion(told, grey, [flat])
        assert (die.value, die.reason) == seen, threshold
    # Told a least lean, the call is made only of a die the rules judge leaning that much.
    gated = dataclasses.replace(cfg, net_cocked_threshold=0.3, net_cocked_tilt=18.0)
    for tilt, seen in ((18.0, (None, "cocked")), (17.9, (5, None)), (None, (5, None))):
        [die] = dice_mod._second_opinion(gated, grey, [dataclasses.replace(flat, tilt=tilt)])
        assert (die.value, die.reason) == seen, tilt
    # Without the board's normal the net's crop cannot show a lean: no cocked call, and its
    # value is taken as before.
    blind = dataclasses.replace(cfg, board_normal=None, net_cocked_threshold=0.1)
    [die] = dice_mod._second_opinion(blind, grey, [flat])
    assert (die.value, die.reason) == (5, None)
    # Told a least lean, the call is also made only where the net's best class is a value or
    # cocked: a die it takes for no die is left to it.
    monkeypatch.setattr(dicenet, "classify", lambda grey, dice, **kw: np.tile(
        np.array([0.0, 0.0, 0.0, 0.0, 0.15, 0.0, 0.3, 0.55, 0.0], np.float32), (len(dice), 1)))
    tilted = dataclasses.replace(flat, tilt=30.0)
    assert dice_mod._second_opinion(gated, grey, [tilted]) == []
    [die] = dice_mod._second_opinion(dataclasses.replace(gated, net_cocked_tilt=None), grey,
                                     [tilted])
    assert (die.value, die.reason) == (None, "cocked")
    monkeypatch.setattr(dicenet, "classify", lambda grey, dice, **kw: np.tile(
        np.array([0.0, 0.0, 0.0, 0.0, 0.35, 0.0, 0.45, 0.2, 0.0], np.float32), (len(dice), 1)))
    [die] = dice_mod._second_opinion(gated, grey, [tilted])
    assert (die.value, die.reason) == (None, "cocked")


_GREY = np.full((200, 200), 60, np.uint8)


def _net_says(monkeypatch: pytest.MonkeyPatch, answer: dict[int, float]) -> None:
    """Make the net give every die it is asked about the class probabilities ``answer``."""
    def classify(grey: np.ndarray, dice: list[Any], **kw: Any) -> np.ndarray:
        probs = np.zeros((len(dice), len(dicenet.CLASSES)), np.float32)
        for cls, p in answer.items():
            probs[:, cls] = p
        return probs

    monkeypatch.setattr(dicenet, "classify", classify)


def _beside(die: Any, other: tuple[int | None, str | None], apart: float) -> Any:
    """A die ``apart`` die sizes to the right of ``die``, read as ``other`` (value, reason)."""
    from tablier.vision import dice as dice_mod

    return dice_mod.Die(value=other[0], center=(die.center[0] + apart * die.size,
                                                 die.center[1]),
                        size=die.size, confidence=0.5, reason=other[1])


@pytest.mark.parametrize(("other", "apart", "held"), [
    ((4, None), 1.2, True),               # a die beside it, read
    ((None, "out_of_view"), 1.2, True),   # one beside it, cut by the view's border
    ((None, "cocked"), 1.2, False),       # no reading: may be this die's own side face
    ((4, None), 0.8, False),              # nearer than two dice can lie: one die's faces
    ((4, None), 1.7, False),              # too far for the crop to hold it
])
def test_the_net_s_cocked_call_is_held_back_beside_another_die(
        monkeypatch: pytest.MonkeyPatch, other: tuple[int | None, str | None], apart: float,
        held: bool) -> None:
    from tablier.vision import dice as dice_mod

    _net_says(monkeypatch, {dicenet.COCKED: 0.99, 0: 0.01})
    flat = dice_mod.Die(value=3, center=(50.0, 100.0), size=40.0, confidence=0.9)
    cfg = DiceConfig(board_normal=(0.0, 0.0, 1.0), focal=50.0, net=True)
    first = dice_mod._second_opinion(cfg, _GREY, [flat, _beside(flat, other, apart)])[0]
    assert (first.value, first.reason) == ((3, None) if held else (None, "cocked"))


@pytest.mark.parametrize(("keeps", "other", "apart", "kept"), [
    (True, (4, None), 1.2, True),                # a die beside it, read
    (True, (None, "out_of_view"), 1.2, True),    # one beside it, cut by the view's border
    (True, (None, "cocked"), 1.2, False),        # no reading: may be this one's side face
    (True, (4, None), 1.7, False),               # too far for the crop to hold it
    (False, (4, None), 1.2, False),              # the coarse reader: the net decides
])
def test_the_net_s_no_die_call_is_held_back_beside_another_die(
        monkeypatch: pytest.MonkeyPatch, keeps: bool, other: tuple[int | None, str | None],
        apart: float, kept: bool) -> None:
    from tablier.vision import dice as dice_mod

    _net_says(monkeypatch, {dicenet.NOT_A_DIE: 0.7, 4: 0.3})
    five = dice_mod.Die(value=5, center=(50.0, 100.0), size=40.0, confidence=0.95)
    cfg = DiceConfig(board_normal=(0.0, 0.0, 1.0), focal=50.0, net=True,
                     net_threshold=rec_mod.BOARD_NET_THRESHOLD, net_keeps_beside=keeps)
    seen = dice_mod._second_opinion(cfg, _GREY, [five, _beside(five, other, apart)])
    assert (five in seen) is kept


def test_the_readers_take_the_nets_thresholds_for_cocked_dice() -> None:
    session = TUNE / "s00"
    recognizer = rec_mod.Recognizer(Calibration.load(session / "calibration.json"))
    fine = recognizer._dice_fine._cfg  # type: ignore[attr-defined]
    coarse = recognizer._dice._cfg  # type: ignore[attr-defined]
    assert fine.net_uncock_threshold == rec_mod.BOARD_NET_UNCOCK_FINE > fine.net_threshold
    assert coarse.net_uncock_threshold == coarse.net_threshold == rec_mod.BOARD_NET_THRESHOLD
    assert fine.net_cocked_threshold == rec_mod.BOARD_NET_COCKED_FINE < fine.net_threshold
    assert fine.net_cocked_tilt is None
    assert coarse.net_cocked_threshold == rec_mod.BOARD_NET_COCKED_COARSE
    assert coarse.net_cocked_threshold is not None
    assert coarse.net_cocked_threshold < coarse.net_threshold
    assert coarse.net_cocked_tilt == rec_mod.BOARD_NET_COCKED_TILT
    assert fine.net_keeps_beside and not coarse.net_keeps_beside
    # the coarse reader asks the mean of its nets; the fine one the board net alone
    assert coarse.net_weights == tuple(str(p) for p in rec_mod.BOARD_NETS_COARSE)
    assert fine.net_weights == (str(rec_mod.BOARD_NET),)


def test_recogniser_with_board_net_reads_the_tuning_frames() -> None:
    # The committed tuning frames (1024x768, dice of 16-20 px, read by the coarse reader),
    # with the board net on by default.
    read = wrong = 0
    for session in sorted(TUNE.glob("s*")):
        recognizer = rec_mod.Recognizer(Calibration.load(session / "calibration.json"))
        assert recognizer._dice is not None and recognizer._dice._cfg.net  # type: ignore[attr-defined]
        for image in sorted(session.glob("frame_*.jpg")):
            truth = json.loads(image.with_suffix(".json").read_text())
            if truth["occluded"]:
                continue
            obs = recognizer.recognize(read_image(image))
            got = sorted(d.value or 0 for d in obs.dice)
            want = sorted(d["value"] or 0 for d in truth["dice"])
            read += len(want)
            wrong += got != want
    assert read >= 30 and wrong == 0


def test_training_crops_are_labelled_from_the_truth() -> None:
    from tablier.vision import train_boardnet

    train, val = train_boardnet.gather([TUNE], "s01", seed=1)
    values = set()
    for truth in TUNE.glob("s00/frame_*.json"):
        t = json.loads(truth.read_text())
        if not t["occluded"]:
            values |= {d["value"] - 1 for d in t["dice"] if d["value"] is not None}
    labels = set(train["y"].tolist())
    assert values and values <= labels and dicenet.NOT_A_DIE in labels
    assert len(val["y"]) > 0 and (train["extra"][:, 0] == 1.0).all()
    assert train["x"].shape[1:] == (dicenet.SIDE, dicenet.SIDE)


def test_a_sets_crops_do_not_depend_on_the_sets_read_with_it() -> None:
    from tablier.vision import train_boardnet

    alone, _ = train_boardnet.gather([TUNE], "s01", seed=1)
    twice, _ = train_boardnet.gather([TUNE, TUNE], "s01", seed=1)
    n = len(alone["y"])
    assert len(twice["y"]) == 2 * n
    for part in (twice["x"][:n], twice["x"][n:]):
        assert np.array_equal(part, alone["x"])
    assert np.array_equal(twice["y"][n:], alone["y"])
    other, _ = train_boardnet.gather([TUNE], "s01", seed=2)
    assert not np.array_equal(other["x"], alone["x"])  # the jitter follows the seed


def test_a_sets_cached_crops_are_named_by_seed_and_validation_session() -> None:
    from tablier.vision import train_boardnet

    names = {train_boardnet.cache_name(TUNE, seed, val)
             for seed in (1, 2) for val in ("s00", "s07")}
    assert len(names) == 4 and all(TUNE.name in n for n in names)


def test_a_die_the_rules_miss_is_asked_of_the_net(monkeypatch: pytest.MonkeyPatch) -> None:
    # Rules that find no die anywhere: at 1024x768 (the coarse reader) the board net is
    # asked about the middle of each view and reads the tuning frames' dice by itself.
    def blind(self: Any, image: np.ndarray, ray: Any = None) -> tuple[()]:
        return ()

    monkeypatch.setattr(rec_mod._StraightViewReader, "__call__", blind)
    session = TUNE / "s00"
    frames = [p for p in sorted(session.glob("frame_*.jpg"))
              if not json.loads(p.with_suffix(".json").read_text())["occluded"]][:6]
    calibration = Calibration.load(session / "calibration.json")
    right = wrong = 0
    for image in frames:
        truth = json.loads(image.with_suffix(".json").read_text())
        want = sorted(d["value"] for d in truth["dice"] if d["value"] is not None)
        got = sorted(d.value for d in rec_mod.Recognizer(calibration).recognize(
            read_image(image)).dice if d.value is not None)
        right += got == want
        wrong += any(v not in want for v in got)
    assert right >= 4 and wrong == 0, (right, wrong)
    # Not asked: no die at all.
    monkeypatch.setattr(rec_mod, "EMPTY_VIEW_THRESHOLD", math.inf)
    obs = rec_mod.Recognizer(calibration).recognize(read_image(frames[0]))
    assert obs.dice == ()
