"""Reading image files: corrupt and truncated files get one clear reason."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest
from tablier.vision import imageio
from tablier.vision.errors import BadFrameError
from tablier.vision.imageio import read_image, write_image


def _jpeg(tmp_path: Path) -> Path:
    img = np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)
    path = tmp_path / "ok.jpg"
    cv2.imwrite(str(path), img)
    return path


def test_reads_rgb(tmp_path: Path) -> None:
    img = read_image(_jpeg(tmp_path))
    assert img.shape == (60, 80, 3) and img.dtype == np.uint8


@pytest.mark.parametrize(("cut", "message"), [
    (lambda b: b[: len(b) // 2], "truncated JPEG"),
    (lambda b: b"", "empty"),
    (lambda b: b"hello world", "not a readable image"),
    (lambda b: b[:2] + b"\x00" * 50 + b[-2:], "not a readable image"),
    # the ends whole, the picture data cut or overwritten: libjpeg would paint it grey
    (lambda b: b[: len(b) // 2] + b[-2:], "damaged JPEG"),
    (lambda b: b[:700] + b"\x55" * 300 + b[1000:], "damaged JPEG"),
])
def test_refuses_broken_files(tmp_path: Path, cut: object, message: str) -> None:
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(cut(_jpeg(tmp_path).read_bytes()))  # type: ignore[operator]
    with pytest.raises(BadFrameError, match=message):
        read_image(bad)


def test_padding_after_the_end_marker_is_no_damage(tmp_path: Path) -> None:
    path = _jpeg(tmp_path)
    padded = tmp_path / "padded.jpg"
    padded.write_bytes(path.read_bytes() + b"\x00" * 32)
    assert np.array_equal(read_image(padded), read_image(path))


def test_padding_before_the_end_marker_is_no_damage(tmp_path: Path,
                                                    capfd: pytest.CaptureFixture[str]) -> None:
    """libjpeg calls bytes before a marker corrupt data, but decodes the picture whole."""
    path = _jpeg(tmp_path)
    data = path.read_bytes()
    padded = tmp_path / "padded.jpg"
    padded.write_bytes(data[:-2] + b"\x00\x00" + data[-2:])
    assert np.array_equal(read_image(padded), read_image(path))
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("suffix", [".jpg", ".png"])
def test_a_refused_image_is_one_message(tmp_path: Path, suffix: str,
                                        capfd: pytest.CaptureFixture[str]) -> None:
    """The codec's own complaint (libjpeg's, libpng's) is not printed beside the reason."""
    img = np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)
    data = cv2.imencode(suffix, img)[1].tobytes()
    bad = tmp_path / f"bad{suffix}"
    bad.write_bytes(data[:700] + b"\x55" * 300 + data[1000:])
    with pytest.raises(BadFrameError, match="damaged JPEG|not a readable image"):
        read_image(bad)
    assert capfd.readouterr().err == ""


def test_other_stderr_output_is_written_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capfd: pytest.CaptureFixture[str]) -> None:
    path = _jpeg(tmp_path)
    decode = cv2.imdecode

    def chatty(data: np.ndarray, flags: int) -> np.ndarray:
        os.write(2, b"another thread's line\n")
        return decode(data, flags)

    monkeypatch.setattr(imageio.cv2, "imdecode", chatty)
    assert read_image(path).shape == (60, 80, 3)
    assert "another thread's line" in capfd.readouterr().err


def test_refuses_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BadFrameError, match="no image file"):
        read_image(tmp_path / "nope.jpg")


def test_write_image_round_trips_rgb(tmp_path: Path) -> None:
    img = np.zeros((20, 30, 3), np.uint8)
    img[..., 0] = 200  # red, in tablier's RGB order
    write_image(tmp_path / "red.png", img)
    assert np.array_equal(read_image(tmp_path / "red.png"), img)
    write_image(tmp_path / "bgr.png", img, rgb=False)
    assert read_image(tmp_path / "bgr.png")[0, 0].tolist() == [0, 0, 200]


@pytest.mark.parametrize(("name", "message"), [
    ("chart.pdf", "not a kind of picture OpenCV writes"),
    ("no/such/folder/x.png", "no such folder"),
])
def test_write_image_names_what_is_wrong(tmp_path: Path, name: str, message: str) -> None:
    with pytest.raises(OSError, match=message) as caught:
        write_image(tmp_path / name, np.zeros((8, 8, 3), np.uint8))
    assert name.split("/")[-1] in str(caught.value)
