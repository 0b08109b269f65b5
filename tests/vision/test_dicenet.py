"""The dice net: committed weights, numpy forward pass, crops, and its use in read_dice."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from tablier.vision import dicenet
from tablier.vision.dice import DiceConfig, read_dice
from tablier.vision.render_dice import render_die


def _wood(seed: int, width: int = 240, height: int = 200) -> np.ndarray:
    """A plain wooden surface: warped stripes of two tones, a little noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    ang = rng.uniform(0, math.pi)
    u = xx * math.cos(ang) + yy * math.sin(ang)
    grain = 0.5 + 0.5 * np.sin(u * 2 * math.pi / rng.uniform(12, 28))
    base = np.array((196, 160, 118), np.float32) * (1 - 0.12 * grain[..., None] ** 3)
    base += rng.normal(0, 3.0, (height, width, 1)).astype(np.float32)
    return np.clip(base, 0, 255).astype(np.uint8)


def _grey(canvas: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.cvtColor(canvas, cv2.COLOR_RGB2GRAY), dtype=np.uint8)


def test_weights_load_small_and_finite() -> None:
    assert dicenet.WEIGHTS.stat().st_size < 1_000_000
    weights = dicenet.load_weights()
    assert set(weights) >= {"conv1_w", "fc2_b"}
    assert all(np.isfinite(a).all() for a in weights.values())
    assert dicenet.load_weights() is weights  # loaded once


def test_a_net_is_loaded_once_however_its_arguments_are_spelt() -> None:
    from tablier.vision import recognizer as rec_mod

    weights = dicenet.load_weights()
    assert dicenet.load_weights(dicenet.WEIGHTS) is weights
    assert dicenet.load_weights(str(dicenet.WEIGHTS), len(dicenet.CLASSES),
                                dicenet.SIDE) is weights
    # the recogniser loads the stack net as (path, classes) when built and asks it as
    # (path, classes, side) per frame: one entry, or the frame reads the file again
    stack = dicenet.load_weights(rec_mod.STACK_NET, len(rec_mod.STACK_CLASSES))
    assert dicenet.load_weights(rec_mod.STACK_NET, len(rec_mod.STACK_CLASSES),
                                dicenet.SIDE) is stack
    nets = [dicenet.load_weights(path, outputs, side) for path, outputs, side in (
        (dicenet.WEIGHTS, len(dicenet.CLASSES), dicenet.SIDE),
        (rec_mod.BOARD_NET, len(dicenet.CLASSES), dicenet.SIDE),
        (rec_mod.STACK_NET, len(rec_mod.STACK_CLASSES), dicenet.SIDE),
        *((p, len(rec_mod.STACK_CLASSES), rec_mod.STACK_SIDE_FINE)
          for p in rec_mod.STACK_NETS_FINE))]
    # every net the recogniser asks stays loaded together, asked in any order
    again = [dicenet.load_weights(path, outputs, side) for path, outputs, side in (
        *((p, len(rec_mod.STACK_CLASSES), rec_mod.STACK_SIDE_FINE)
          for p in reversed(rec_mod.STACK_NETS_FINE)),
        (rec_mod.STACK_NET, len(rec_mod.STACK_CLASSES), dicenet.SIDE),
        (rec_mod.BOARD_NET, len(dicenet.CLASSES), dicenet.SIDE),
        (dicenet.WEIGHTS, len(dicenet.CLASSES), dicenet.SIDE))]
    assert all(a is b for a, b in zip(nets, reversed(again), strict=True))


@pytest.mark.parametrize("value", range(1, 7))
def test_rendered_die_is_read(value: int) -> None:
    for k, rotation in enumerate((0.0, 23.0, 61.0)):
        canvas = _wood(value * 10 + k)
        truth = render_die(canvas, value=value, center=(120.0, 100.0), size=48.0,
                           rotation=rotation + 7 * value, view_tilt=10.0 * k)
        for normal in (None, (0.0, 0.0, 1.0)):
            probs = dicenet.classify(_grey(canvas), [(truth.center, truth.size)],
                                     board_normal=normal)
            assert probs.shape == (1, len(dicenet.CLASSES))
            assert probs.sum() == pytest.approx(1.0, abs=1e-4)
            assert dicenet.CLASSES[int(np.argmax(probs[0]))] == str(value), (rotation, normal,
                                                                           probs)


def _tilted(tilt: float) -> np.ndarray:
    """Probabilities of 8 dice drawn ``tilt`` degrees off flat, straight under the camera."""
    out = []
    for k in range(8):
        canvas = _wood(100 + k)
        truth = render_die(canvas, value=1 + k % 6, center=(120.0, 100.0), size=50.0,
                           cocked=tilt, cock_direction=45.0 * k + 20)
        out.append(dicenet.classify(_grey(canvas), [(truth.center, truth.size)],
                                    board_normal=(0.0, 0.0, 1.0))[0])
    return np.array(out)


def test_cocked_die_with_board_normal() -> None:
    flat, leaning = _tilted(0.0), _tilted(40.0)
    values = [k % 6 for k in range(8)]
    assert list(np.argmax(flat, axis=1)) == values, flat
    assert (flat[:, dicenet.COCKED] < DiceConfig().net_threshold).all(), flat
    assert (np.argmax(leaning, axis=1) == dicenet.COCKED).sum() >= 4, leaning
    assert leaning[:, dicenet.COCKED].mean() > flat[:, dicenet.COCKED].mean() + 0.3


def test_plain_wood_is_not_a_die() -> None:
    for seed in range(5):
        grey = _grey(_wood(seed))
        probs = dicenet.classify(grey, [((120.0, 100.0), 45.0), ((60.0, 60.0), 30.0)])
        assert (np.argmax(probs, axis=1) == dicenet.NOT_A_DIE).all(), probs


def _slow_forward(crops: np.ndarray, extra: np.ndarray,
                  w: dict[str, np.ndarray]) -> np.ndarray:
    """The same network written with plain loops (a reference for the vectorised one)."""
    x = crops[:, None].astype(np.float64)
    for k in (1, 2, 3):
        wk, bk = w[f"conv{k}_w"].astype(np.float64), w[f"conv{k}_b"].astype(np.float64)
        n, _, h, wd = x.shape
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        out = np.zeros((n, wk.shape[0], h, wd))
        for dy in range(3):
            for dx in range(3):
                out += np.einsum("nchw,oc->nohw", xp[:, :, dy:dy + h, dx:dx + wd],
                                 wk[:, :, dy, dx])
        out = np.maximum(out + bk[None, :, None, None], 0)
        x = out.reshape(n, -1, h // 2, 2, wd // 2, 2).max(axis=(3, 5))
    feats = np.concatenate([x.reshape(len(x), -1), extra], axis=1)
    hidden = np.maximum(feats @ w["fc1_w"].T + w["fc1_b"], 0)
    logits = hidden @ w["fc2_w"].T + w["fc2_b"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def test_forward_matches_loop_reference() -> None:
    rng = np.random.default_rng(3)
    weights = {k: rng.normal(0, 0.3, v.shape).astype(np.float32)
               for k, v in dicenet.load_weights().items()}
    crops = rng.normal(0, 1, (3, dicenet.SIDE, dicenet.SIDE)).astype(np.float32)
    extra = np.array([[0.0, 0.0], [1.0, 0.1], [1.0, 0.4]], np.float32)
    fast = dicenet.forward(crops, extra, weights=weights)
    assert fast == pytest.approx(_slow_forward(crops, extra, weights), abs=1e-4)
    with pytest.raises(ValueError, match=r"extra must be \(3, 2\)"):
        dicenet.forward(crops, extra[:2], weights=weights)


def test_a_wider_net_loads_from_its_file_and_runs(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    wide = {k: rng.normal(0, 0.2, v).astype(np.float32)
            for k, v in dicenet.shapes((12, 24, 40, 96)).items()}
    np.savez(tmp_path / "wide.npz", **wide)
    loaded = dicenet.load_weights(tmp_path / "wide.npz")
    assert loaded["fc1_w"].shape == (96, 40 * (dicenet.SIDE // 8) ** 2 + 2)
    crops = rng.normal(0, 1, (2, dicenet.SIDE, dicenet.SIDE)).astype(np.float32)
    extra = np.array([[0.0, 0.0], [1.0, 0.3]], np.float32)
    assert dicenet.forward(crops, extra, weights=loaded) == pytest.approx(
        _slow_forward(crops, extra, loaded), abs=1e-4)
    # A layer that does not fit the one before it is refused by name.
    wide["conv2_w"] = np.zeros((24, 8, 3, 3), np.float32)
    np.savez(tmp_path / "misfit.npz", **wide)
    with pytest.raises(ValueError, match=r"conv2_w has shape \(24, 8, 3, 3\), expected "
                                         r"\(24, 12, 3, 3\)"):
        dicenet.load_weights(tmp_path / "misfit.npz")
    with pytest.raises(ValueError, match="four positive widths"):
        dicenet.shapes((8, 16, 0, 64))


def test_a_net_of_larger_crops_loads_and_runs_on_crops_of_its_side(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    big = {k: rng.normal(0, 0.1, v).astype(np.float32)
           for k, v in dicenet.shapes(dicenet.WIDTHS, 2, side=64).items()}
    assert big["fc1_w"].shape == (64, 32 * 8 * 8 + 2)
    np.savez(tmp_path / "big.npz", **big)
    loaded = dicenet.load_weights(tmp_path / "big.npz", 2, 64)
    assert dicenet.side_of(loaded) == 64
    crops = np.stack([dicenet.crop_die(rng.integers(0, 256, (90, 90), dtype=np.uint8),
                                       (45.0, 45.0), 20.0 + 10 * k, side=64) for k in (0, 1)])
    assert crops.shape == (2, 64, 64)
    extra = np.array([[1.0, 0.1], [1.0, 0.3]], np.float32)
    assert dicenet.forward(crops, extra, weights=loaded) == pytest.approx(
        _slow_forward(crops, extra, loaded), abs=1e-4)
    with pytest.raises(ValueError, match=r"crops must be \(N, 64, 64\)"):
        dicenet.forward(crops[:, :40, :40], extra, weights=loaded)
    with pytest.raises(ValueError, match=r"fc1_w has shape \(64, 2050\), expected"):
        dicenet.load_weights(tmp_path / "big.npz", 2)  # the dice nets' 40 pixels
    with pytest.raises(ValueError, match="multiple of 8"):
        dicenet.shapes(dicenet.WIDTHS, 2, side=60)
    with pytest.raises(ValueError, match="no crop side fits"):
        dicenet.side_of({"conv3_w": big["conv3_w"], "fc1_w": np.zeros((64, 100))})


def test_crop_is_normalised_and_rectified_crop_squares_the_top_face() -> None:
    canvas = _wood(7, 480, 360)
    render_die(canvas, value=4, center=(240.0, 180.0), size=60.0, shadow=0.0)
    grey = _grey(canvas)
    crop = dicenet.crop_die(grey, (240.0, 180.0), 60.0)
    assert crop.shape == (dicenet.SIDE, dicenet.SIDE)
    assert float(crop.mean()) == pytest.approx(0.0, abs=1e-4)
    assert float(crop.std()) == pytest.approx(1.0, abs=1e-3)
    # The board seen tilted by 25 degrees: the rectifying homography maps the top face back
    # to a square (equal sides, right angles).
    tilt = math.radians(25)
    normal = (0.0, math.sin(tilt), math.cos(tilt))
    mat = dicenet.crop_matrix((240.0, 180.0), 60.0, (480, 360), board_normal=normal)
    rect = np.linalg.inv(dicenet._rectifier((480, 360), normal, 0.85))
    square = np.array([[230, 170, 1], [250, 170, 1], [250, 190, 1], [230, 190, 1]], float)
    quad = (mat @ rect @ square.T).T
    quad = quad[:, :2] / quad[:, 2:]
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    assert sides == pytest.approx(np.full(4, sides[0]), rel=1e-6)


def _weights_file(tmp_path: Path, name: str, **change: np.ndarray) -> Path:
    weights = dict(dicenet.load_weights())
    weights.update(change)
    path = tmp_path / name
    np.savez(path, **weights)
    return path


def test_bad_weights_files(tmp_path: Path) -> None:
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file at all")
    with pytest.raises(ValueError, match="junk.npz.*cannot be read"):
        dicenet.load_weights(junk)
    with pytest.raises(ValueError, match="cannot be read"):
        dicenet.load_weights(tmp_path / "missing.npz")
    whole = dicenet.WEIGHTS.read_bytes()
    cut = tmp_path / "cut.npz"  # a copy cut short, as by a failed download
    cut.write_bytes(whole[:1000])
    with pytest.raises(ValueError, match="cut.npz.*cannot be read"):
        dicenet.load_weights(cut)
    damaged = tmp_path / "damaged.npz"  # bytes gone bad inside one array
    damaged.write_bytes(whole[:5000] + bytes(200) + whole[5200:])
    with pytest.raises(ValueError, match="damaged.npz.*cannot be read"):
        dicenet.load_weights(damaged)
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty.npz.*cannot be read"):
        dicenet.load_weights(empty)
    short = _weights_file(tmp_path, "short.npz", fc2_b=np.zeros(5, np.float32))
    with pytest.raises(ValueError, match=r"fc2_b has shape \(5,\), expected \(9,\)"):
        dicenet.load_weights(short)
    weights = dict(dicenet.load_weights())
    del weights["conv2_w"]
    np.savez(tmp_path / "lacking.npz", **weights)
    with pytest.raises(ValueError, match="lack the array 'conv2_w'"):
        dicenet.load_weights(tmp_path / "lacking.npz")
    nan = _weights_file(tmp_path, "nan.npz", fc1_b=np.full(64, np.nan, np.float32))
    with pytest.raises(ValueError, match="fc1_b is not finite"):
        dicenet.load_weights(nan)


def _always(tmp_path: Path, cls: int) -> Path:
    """Weights whose answer is always ``cls``, surely (the last layer's bias alone)."""
    bias = np.full(len(dicenet.CLASSES), -20.0, np.float32)
    bias[cls] = 20.0
    return _weights_file(tmp_path, f"always_{cls}.npz",
                         fc2_w=np.zeros((len(dicenet.CLASSES), 64), np.float32), fc2_b=bias)


def _two_dice() -> np.ndarray:
    canvas = _wood(11, 320, 240)
    render_die(canvas, value=2, center=(100.0, 120.0), size=50.0, rotation=10.0)
    render_die(canvas, value=5, center=(220.0, 110.0), size=50.0, rotation=35.0)
    return canvas


def test_read_dice_takes_the_sure_net_answer(tmp_path: Path) -> None:
    image = _two_dice()
    plain = read_dice(DiceConfig(net=False), image)
    assert [d.value for d in plain.dice] == [2, 5]
    six = read_dice(DiceConfig(net_weights=str(_always(tmp_path, 5))), image)
    assert [d.value for d in six.dice] == [6, 6]
    assert all(d.confidence == 1.0 for d in six.dice)
    assert [d.center for d in six.dice] == [d.center for d in plain.dice]
    gone = read_dice(DiceConfig(net_weights=str(_always(tmp_path, dicenet.NOT_A_DIE))), image)
    assert gone.dice == ()
    cocked_path = str(_always(tmp_path, dicenet.COCKED))
    # Without the board's normal the net's "cocked" is not taken (unless allowed).
    assert read_dice(DiceConfig(net_weights=cocked_path), image).dice == plain.dice
    allowed = read_dice(DiceConfig(net_weights=cocked_path, net_cocked_uncalibrated=True),
                        image)
    assert [(d.value, d.reason) for d in allowed.dice] == [(None, "cocked")] * 2
    flat = read_dice(DiceConfig(net_weights=cocked_path, board_normal=(0.0, 0.0, 1.0)), image)
    assert [d.reason for d in flat.dice] == ["cocked", "cocked"]
    # The net's "out of view" is not taken: a die near the border whose pips are all in the
    # picture (a corner of its face cut off) is read; one whose pips may be cut is judged by
    # the rules alone.
    oov = str(_always(tmp_path, dicenet.OUT_OF_VIEW))
    assert read_dice(DiceConfig(net_weights=oov), image).dice == plain.dice
    edge = _wood(12, 320, 240)
    render_die(edge, value=3, center=(30.0, 120.0), size=50.0, rotation=30.0)
    render_die(edge, value=5, center=(200.0, 18.0), size=50.0, rotation=10.0)
    assert [(d.value, d.reason) for d in read_dice(DiceConfig(net=False), edge).dice] == [
        (3, None), (None, "out_of_view")]
    assert read_dice(DiceConfig(net_weights=oov), edge).dice == read_dice(
        DiceConfig(net=False), edge).dice
    # An unsure net (every class alike) changes nothing.
    unsure = _weights_file(tmp_path, "unsure.npz",
                           fc2_w=np.zeros((len(dicenet.CLASSES), 64), np.float32),
                           fc2_b=np.zeros(len(dicenet.CLASSES), np.float32))
    assert read_dice(DiceConfig(net_weights=str(unsure)), image).dice == plain.dice


def test_several_nets_asked_together_give_the_mean_of_their_answers(tmp_path: Path) -> None:
    image = np.asarray(cv2.cvtColor(_two_dice(), cv2.COLOR_RGB2GRAY), np.uint8)
    dice = [((100.0, 120.0), 50.0), ((220.0, 110.0), 50.0)]
    six, two = _always(tmp_path, 5), _always(tmp_path, 1)
    both = dicenet.classify(image, dice, weights_path=(six, two))
    assert both.shape == (2, len(dicenet.CLASSES)) and both.dtype == np.float32
    assert np.allclose(both[:, [1, 5]], 0.5) and np.allclose(both.sum(axis=1), 1.0)
    alone = dicenet.classify(image, dice, weights_path=dicenet.WEIGHTS)
    mean = (alone + dicenet.classify(image, dice, weights_path=six)) / 2
    assert np.allclose(dicenet.classify(image, dice, weights_path=[dicenet.WEIGHTS, six]), mean)
    assert np.array_equal(dicenet.classify(image, dice, weights_path=(dicenet.WEIGHTS,)), alone)
    with pytest.raises(ValueError, match="no weights file"):
        dicenet.classify(image, dice, weights_path=())
    # the reader's config names them as a tuple: a sure six and a sure two read as neither
    # surely (0.5 each, under the net's threshold), so the rules' values stand
    plain = read_dice(DiceConfig(net=False), _two_dice())
    mixed = read_dice(DiceConfig(net_weights=(str(six), str(two))), _two_dice())
    assert [d.value for d in mixed.dice] == [d.value for d in plain.dice] == [2, 5]
    sixes = read_dice(DiceConfig(net_weights=(str(six), str(six))), _two_dice())
    assert [d.value for d in sixes.dice] == [6, 6]


def test_read_dice_with_the_committed_net() -> None:
    image = _two_dice()
    reading = read_dice(DiceConfig(), image)
    assert [d.value for d in reading.dice] == [2, 5]
    assert set(reading.to_json()["dice"][0]) == {"value", "center", "size", "confidence"}
    off = read_dice(dataclasses.replace(DiceConfig(), net=False), image)
    assert [d.center for d in off.dice] == [d.center for d in reading.dice]


def test_bad_weights_path_in_config_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="nowhere.npz"):
        read_dice(DiceConfig(net_weights=str(tmp_path / "nowhere.npz")), _two_dice())


def test_lean_is_the_tangent_of_the_ray_to_the_board_normal() -> None:
    tilt = math.radians(20)
    normal = (0.0, math.sin(tilt), math.cos(tilt))
    f = 0.85 * 640
    assert dicenet.lean((320.0, 240.0), (640, 480), normal) == pytest.approx(math.tan(tilt))
    below = (320.0, 240.0 + f * math.tan(tilt))  # where the ray along the normal meets
    assert dicenet.lean(below, (640, 480), normal) == pytest.approx(0.0, abs=1e-9)
    assert dicenet.lean((0.0, 0.0), (640, 480), None) == 0.0
    with pytest.raises(ValueError, match="non-zero"):
        dicenet.lean((0.0, 0.0), (640, 480), (0.0, 0.0, 0.0))


def test_training_refuses_bad_widths_before_any_work(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from tablier.vision import train_dicenet

    with pytest.raises(SystemExit):
        train_dicenet.main([str(tmp_path / "work"), "--widths", "8,16,x"])
    assert "four positive whole numbers separated by commas, got '8,16,x'" in (
        capsys.readouterr().err)
    assert not (tmp_path / "work").exists()
