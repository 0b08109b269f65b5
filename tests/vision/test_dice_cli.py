"""`tablier dice IMAGE --json`: the contract of design.md, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from tablier.vision.dice import DiceConfig, load_image, read_dice
from tablier.vision.render_dice import render_die

from tablier.cli import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "dice"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["dice", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_contract_on_a_real_photo(capsys: pytest.CaptureFixture[str]) -> None:
    # two_7: one die showing two (fixtures/dice/real/two_7.txt), seen obliquely.
    code, out, err = _run(capsys, str(FIXTURES / "real" / "two_7.jpg"), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert list(data) == ["image", "dice"]
    assert data["image"] == [640, 480]
    assert len(data["dice"]) == 1
    die = data["dice"][0]
    assert list(die) == ["value", "center", "size", "confidence"]
    assert die["value"] == 2
    x, y = die["center"]
    assert abs(x - 0.684375 * 640) < 20 and abs(y - 0.522917 * 480) < 20
    assert 30 < die["size"] < 90 and 0.0 <= die["confidence"] <= 1.0


def test_contract_unread_die_has_reason(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    canvas = np.full((240, 320, 3), (190, 150, 110), np.uint8)
    render_die(canvas, value=5, center=(4.0, 120.0), size=60.0, shadow=0.0)
    render_die(canvas, value=3, center=(200.0, 120.0), size=60.0, rotation=20.0)
    path = tmp_path / "edge.png"
    cv2.imwrite(str(path), canvas[:, :, ::-1])
    code, out, _ = _run(capsys, str(path), "--json")
    assert code == 0
    dice = json.loads(out)["dice"]
    read = [d for d in dice if d["value"] is not None]
    assert [d["value"] for d in read] == [3]
    for d in dice:
        if d["value"] is None:
            assert d["reason"] == "out_of_view"
            assert list(d) == ["value", "center", "size", "confidence", "reason"]


def _truncated(tmp_path: Path) -> Path:
    data = (FIXTURES / "real" / "two_7.jpg").read_bytes()
    path = tmp_path / "cut.jpg"
    path.write_bytes(data[: len(data) // 3])
    return path


def _corrupt(tmp_path: Path) -> Path:
    data = bytearray((FIXTURES / "real" / "two_7.jpg").read_bytes())
    data[3000:3400] = b"\x55" * 400
    path = tmp_path / "corrupt.jpg"
    path.write_bytes(bytes(data))
    return path


def _text(tmp_path: Path) -> Path:
    path = tmp_path / "notes.jpg"
    path.write_text("these are not pixels\n")
    return path


def _empty(tmp_path: Path) -> Path:
    path = tmp_path / "empty.png"
    path.write_bytes(b"")
    return path


def _missing(tmp_path: Path) -> Path:
    return tmp_path / "nowhere.jpg"


def _tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.png"
    cv2.imwrite(str(path), np.full((8, 8, 3), 200, np.uint8))
    return path


def _folder(tmp_path: Path) -> Path:
    path = tmp_path / "photos"
    path.mkdir()
    return path


@pytest.mark.parametrize("make", [_truncated, _corrupt, _text, _empty, _missing, _tiny,
                                  _folder])
def test_bad_input_is_one_line_exit_2(make: object, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    code, out, err = _run(capsys, str(path), "--json")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert path.name in err


def test_a_debug_folder_that_cannot_be_made_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    code, out, err = _run(capsys, str(FIXTURES / "real" / "two_7.jpg"), "--debug",
                          str(blocker / "debug"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--debug" in err and "Traceback" not in err


def test_a_damaged_dice_net_is_one_line_naming_the_file_not_the_image(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tablier.vision import dicenet

    cut = tmp_path / "damaged" / "dicenet.npz"
    cut.parent.mkdir()
    cut.write_bytes(dicenet.WEIGHTS.read_bytes()[:1000])  # as by a failed download
    monkeypatch.setattr(dicenet, "WEIGHTS", cut)
    image = FIXTURES / "real" / "two_7.jpg"
    code, out, err = _run(capsys, str(image), "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "net weights 'dicenet.npz' cannot be read" in err and "reinstall tablier" in err
    assert image.name not in err


def test_load_image_is_rgb() -> None:
    image = load_image(FIXTURES / "real" / "two_7.jpg")
    bgr = cv2.imread(str(FIXTURES / "real" / "two_7.jpg"))
    assert image.shape == (480, 640, 3) and image.dtype == np.uint8
    assert np.array_equal(image, bgr[:, :, ::-1])


@pytest.mark.parametrize("bad", [np.zeros((10, 10, 3), np.uint8), np.zeros((50, 50, 3)),
                                 np.zeros((50, 50, 4), np.uint8)])
def test_read_dice_refuses_bad_arrays(bad: np.ndarray) -> None:
    with pytest.raises(ValueError):
        read_dice(DiceConfig(), bad)


def test_debug_entry_writes_picture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tablier.vision.dice import main as dice_main

    code = dice_main([str(FIXTURES / "real" / "two_7.jpg"), "--debug", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["dice"][0]["value"] == 2
    picture = cv2.imread(str(tmp_path / "two_7.dice.png"))
    assert picture is not None and picture.shape == (480, 640, 3)
