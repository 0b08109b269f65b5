"""Reading image files: corrupt and truncated files get one clear reason."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from tablier.vision.errors import BadFrameError
from tablier.vision.imageio import read_image


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
])
def test_refuses_broken_files(tmp_path: Path, cut: object, message: str) -> None:
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(cut(_jpeg(tmp_path).read_bytes()))  # type: ignore[operator]
    with pytest.raises(BadFrameError, match=message):
        read_image(bad)


def test_refuses_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BadFrameError, match="no image file"):
        read_image(tmp_path / "nope.jpg")
