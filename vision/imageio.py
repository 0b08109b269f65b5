"""Read image files into RGB arrays, refusing corrupt or truncated ones with one clear reason."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from tablier.vision.errors import BadFrameError

Image = npt.NDArray[np.uint8]


def decode_image(data: bytes, *, name: str = "image") -> Image:
    """Decode JPEG/PNG/BMP bytes into an HxWx3 uint8 RGB array.

    Args:
        data: the file's bytes.
        name: what to call it in messages.

    Returns:
        The image.

    Raises:
        BadFrameError: if the bytes are empty, truncated or not an image.

    >>> decode_image(b"not an image")
    Traceback (most recent call last):
    ...
    tablier.vision.errors.BadFrameError: image is not a readable image (JPEG, PNG or BMP)
    """
    if not data:
        raise BadFrameError(f"{name} is empty")
    if data[:3] == b"\xff\xd8\xff" and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        raise BadFrameError(f"{name} is a truncated JPEG (no end-of-image marker)")
    if data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" not in data[-16:]:
        raise BadFrameError(f"{name} is a truncated PNG (no IEND chunk)")
    arr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if arr is None or arr.ndim != 3:
        raise BadFrameError(f"{name} is not a readable image (JPEG, PNG or BMP)")
    return np.ascontiguousarray(cv2.cvtColor(arr, cv2.COLOR_BGR2RGB))


def read_image(path: str | Path) -> Image:
    """Read an image file into an HxWx3 uint8 RGB array.

    Args:
        path: the file.

    Returns:
        The image.

    Raises:
        BadFrameError: if the file is missing, unreadable, truncated or not an image.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise BadFrameError(f"no image file {str(p)!r}") from None
    except OSError as exc:
        raise BadFrameError(f"cannot read image {str(p)!r}: {exc.strerror}") from None
    return decode_image(data, name=f"image {str(p)!r}")
