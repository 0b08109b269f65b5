"""Read image files into RGB arrays, refusing corrupt or truncated ones with one clear reason."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from tablier.vision.errors import BadFrameError

Image = npt.NDArray[np.uint8]

_DAMAGE = ("corrupt jpeg data", "premature end of jpeg file")
"""What libjpeg prints for a damaged file it still decodes (missing parts painted grey)."""
_PADDING = re.compile(r"corrupt jpeg data: (\d+) extraneous bytes before marker")
PADDING_BYTES = 16
"""libjpeg also calls corrupt data a few bytes between the picture data and a marker, which it
skips: some webcams pad their frames so, and the picture is whole. Up to this many are let
through; damage inside the data shows as hundreds (a test JPEG with 300 bytes overwritten: 289
and 299) or as another warning."""


def decode_image(data: bytes, *, name: str = "image") -> Image:
    """Decode JPEG/PNG/BMP bytes into an HxWx3 uint8 RGB array.

    Args:
        data: the file's bytes.
        name: what to call it in messages.

    Returns:
        The image.

    Raises:
        BadFrameError: if the bytes are empty, truncated, damaged or not an image.

    >>> decode_image(b"not an image")
    Traceback (most recent call last):
    ...
    tablier.vision.errors.BadFrameError: image is not a readable image (JPEG, PNG or BMP)
    """
    if not data:
        raise BadFrameError(f"{name} is empty")
    # NOTE: a JPEG's end marker may be followed by a few padding bytes; a missing marker
    # that this misses, libjpeg reports as a premature end (below).
    if data[:3] == b"\xff\xd8\xff" and b"\xff\xd9" not in data[-64:]:
        raise BadFrameError(f"{name} is a truncated JPEG (no end-of-image marker)")
    if data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" not in data[-64:]:
        raise BadFrameError(f"{name} is a truncated PNG (no IEND chunk)")
    arr, said = _decode(np.frombuffer(data, np.uint8))
    lines = [line for line in said.splitlines(keepends=True) if not _padding(line)]
    damage = [line for line in lines if line.strip().lower().startswith(_DAMAGE)]
    if damage:
        raise BadFrameError(f"{name} is a damaged JPEG ({damage[0].strip()})")
    if arr is None or arr.ndim != 3:
        raise BadFrameError(f"{name} is not a readable image (JPEG, PNG or BMP)")
    if lines:
        # NOTE: an image refused is said to be so in one line, and what the codec printed
        # about it is dropped; for an image read, anything else printed meanwhile (another
        # thread's lines, a codec's warning) is written out again.
        sys.stderr.write("".join(lines))
        sys.stderr.flush()
    return np.ascontiguousarray(cv2.cvtColor(arr, cv2.COLOR_BGR2RGB))


def _padding(line: str) -> bool:
    """Whether a line libjpeg printed tells of a few bytes of padding, no damage."""
    found = _PADDING.search(line.lower())
    return found is not None and int(found.group(1)) <= PADDING_BYTES


def _decode(data: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8] | None, str]:
    """Decode image bytes, catching what the codec prints on stderr.

    NOTE: libjpeg reports a damaged file only by a "Corrupt JPEG data" (or "Premature end")
    line on file descriptor 2, and still returns a picture, grey where data is missing; the
    line is caught to refuse it. libpng and OpenCV print their own errors there too.
    """
    try:
        saved = os.dup(2)
    except OSError:
        return _u8(cv2.imdecode(data, cv2.IMREAD_COLOR)), ""
    with tempfile.TemporaryFile() as sink:
        try:
            sys.stderr.flush()
            os.dup2(sink.fileno(), 2)
            arr = cv2.imdecode(data, cv2.IMREAD_COLOR)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        said = sink.read().decode("utf-8", "replace")
    return _u8(arr), said


def _u8(arr: object) -> npt.NDArray[np.uint8] | None:
    return None if arr is None else np.asarray(arr, np.uint8)


def read_image(path: str | Path) -> Image:
    """Read an image file into an HxWx3 uint8 RGB array.

    Args:
        path: the file.

    Returns:
        The image.

    Raises:
        BadFrameError: if the file is missing, unreadable, truncated, damaged or not an image.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise BadFrameError(f"no image file {str(p)!r}") from None
    except OSError as exc:
        raise BadFrameError(f"cannot read image {str(p)!r}: {exc.strerror}") from None
    return decode_image(data, name=f"image {str(p)!r}")


def write_image(path: str | Path, image: npt.NDArray[np.uint8], *, rgb: bool = True) -> None:
    """Write a picture (``.jpg``, ``.png``, ``.bmp``, or another kind OpenCV writes).

    Args:
        path: the file; its folder must exist.
        image: HxWx3 (RGB, or BGR with ``rgb=False``) or HxW uint8.
        rgb: whether a colour ``image`` is RGB (tablier's order) rather than OpenCV's BGR.

    Raises:
        OSError: naming the file, if OpenCV writes no such kind of picture or the file cannot
            be written.
    """
    p = Path(path)
    if not cv2.haveImageWriter(str(p)):
        raise OSError(f"cannot write {str(p)!r}: not a kind of picture OpenCV writes "
                      "(give .jpg, .png or .bmp)")
    arr = np.asarray(image)
    if rgb and arr.ndim == 3:
        arr = np.asarray(cv2.cvtColor(arr, cv2.COLOR_RGB2BGR), np.uint8)
    try:
        written = cv2.imwrite(str(p), arr)
    except cv2.error as exc:
        raise OSError(f"cannot write {str(p)!r}: {str(exc).strip().splitlines()[-1]}") from None
    if not written:
        why = ("no such folder" if not p.parent.is_dir() else "not writable here")
        raise OSError(f"cannot write {str(p)!r}: {why}")
