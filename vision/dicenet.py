"""A small learned second opinion on each die the classical reader finds.

The classical reader (:mod:`tablier.vision.dice`) finds pips, faces and dice by hand-written
rules. This module classifies a grey crop around each die it reports with a tiny
convolutional network, in plain numpy (no runtime dependency beyond numpy and OpenCV):

* crop: the grey picture around the die's reported ``center``, a square window of
  :data:`WINDOW` times its reported ``size``, drawn at :data:`SIDE` x :data:`SIDE` pixels
  (shrunk with area averaging first when the die is large), then normalised (its own mean
  subtracted, divided by its own standard deviation). When the board's normal is known the
  crop is taken from the picture *rectified* (turned by the homography ``K R K^-1`` so that
  the camera looks along the board's normal): the top face of a flat die is then a square and
  a cocked one a leaning quad, which the net can tell apart;
* classes (:data:`CLASSES`): the top face 1..6, ``"cocked"``, ``"not_a_die"`` and
  ``"out_of_view"`` (the top face runs past the border: outside the picture the crop is
  black);
* network: three 3x3 convolutions (each ReLU and 2x2 max pooling), a hidden layer fed with
  the pooled features plus two inputs (whether the crop was rectified, and how far the ray to
  the die leans from the board's normal: a flat die far from the rectified centre shows its
  side faces as much as a cocked one does), and 9 outputs (softmax). A rectified crop is
  turned so that the die leans toward its bottom. How wide the layers are is read from the
  weights file (:func:`shapes`); both committed nets have 8, 16, 32 channels and 64 hidden
  units (:data:`WIDTHS`). The crop's side is read from the weights too (:func:`side_of`): the
  dice nets take :data:`SIDE`, the fine stack net of :mod:`tablier.vision.recognizer` larger ones.

The weights live in ``dicenet.npz`` beside this module (written by
``python -m tablier.vision.train_dicenet``); they are loaded once, when first needed.

>>> import numpy as np
>>> grey = np.full((120, 160), 90, np.uint8)
>>> crop = crop_die(grey, (80.0, 60.0), 40.0)
>>> crop.shape, crop.dtype.name
((40, 40), 'float32')
"""

from __future__ import annotations

import functools
import math
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

CLASSES = ("1", "2", "3", "4", "5", "6", "cocked", "not_a_die", "out_of_view")
"""The net's outputs, in order: the top face 1..6, a cocked die, something that is no die, a
die whose top face runs past the picture's border."""
COCKED = 6
"""Index of ``"cocked"`` in :data:`CLASSES`."""
NOT_A_DIE = 7
"""Index of ``"not_a_die"`` in :data:`CLASSES`."""
OUT_OF_VIEW = 8
"""Index of ``"out_of_view"`` in :data:`CLASSES`."""
SIDE = 40
"""Side of the crop fed to the net, pixels."""
WINDOW = 1.7
"""Side of the crop window over the die's reported size."""
WEIGHTS = Path(__file__).with_name("dicenet.npz")
"""The committed weights."""

WIDTHS = (8, 16, 32, 64)
"""Channels of the three convolutions and units of the hidden layer of the committed nets;
a weights file may hold wider ones (its arrays say how wide, :func:`shapes` checks them)."""


class WeightsError(ValueError):
    """A net's weights file cannot be used: missing, damaged, or not of the net asked for."""


def shapes(widths: Sequence[int] = WIDTHS, outputs: int = len(CLASSES), side: int = SIDE
           ) -> dict[str, tuple[int, ...]]:
    """The shape of every array of a net of the given widths.

    Args:
        widths: channels of conv1, conv2, conv3 and units of the hidden layer.
        outputs: how many classes the net tells apart (:data:`CLASSES` for the dice nets;
            the stack net of :mod:`tablier.vision.recognizer` has two).
        side: side of the crops the net takes, pixels (:data:`SIDE` for the dice nets).

    Returns:
        The shapes by array name.

    Raises:
        ValueError: if there are not four positive widths, or ``side`` is not a positive
            multiple of 8 (each convolution halves the crop).

    >>> shapes((8, 16, 32, 64))["fc1_w"]
    (64, 802)
    """
    if len(widths) != 4 or min(widths) < 1:
        raise ValueError(f"a net has four positive widths, got {tuple(widths)!r}")
    if side < 8 or side % 8:
        raise ValueError(f"a net's crops are a positive multiple of 8 pixels, got {side!r}")
    c1, c2, c3, hidden = (int(w) for w in widths)
    return {
        "conv1_w": (c1, 1, 3, 3), "conv1_b": (c1,),
        "conv2_w": (c2, c1, 3, 3), "conv2_b": (c2,),
        "conv3_w": (c3, c2, 3, 3), "conv3_b": (c3,),
        "fc1_w": (hidden, c3 * (side // 8) ** 2 + 2), "fc1_b": (hidden,),
        "fc2_w": (outputs, hidden), "fc2_b": (outputs,),
    }


def _rectifier(image_size: tuple[int, int], board_normal: Sequence[float],
               focal: float) -> NDArray[np.float64]:
    """The homography ``K R K^-1`` that turns the camera to look along the board's normal."""
    w, h = image_size
    f = focal * max(w, h)
    k = np.array([[f, 0.0, w / 2], [0.0, f, h / 2], [0.0, 0.0, 1.0]])
    n = np.asarray(board_normal, dtype=np.float64)
    norm = float(np.linalg.norm(n))
    if not norm > 0 or not math.isfinite(norm):
        raise ValueError(f"board_normal must be a non-zero vector, got {tuple(board_normal)!r}")
    n = n / norm
    if n[2] < 0:
        n = -n
    # Rotation taking n onto the optical axis z (Rodrigues about n x z).
    axis = np.cross(n, [0.0, 0.0, 1.0])
    s, c = float(np.linalg.norm(axis)), float(n[2])
    rot = np.eye(3)
    if s > 1e-9:
        kx = axis / s
        cross = np.array([[0.0, -kx[2], kx[1]], [kx[2], 0.0, -kx[0]], [-kx[1], kx[0], 0.0]])
        rot = np.eye(3) + s * cross + (1 - c) * (cross @ cross)
    out: NDArray[np.float64] = k @ rot @ np.linalg.inv(k)
    return out


def crop_matrix(center: tuple[float, float], size: float, image_size: tuple[int, int], *,
                board_normal: Sequence[float] | None = None, focal: float = 0.85,
                angle: float = 0.0, flip: bool = False, window: float = WINDOW,
                away: tuple[float, float] | None = None, side: int = SIDE
                ) -> NDArray[np.float64]:
    """The 3x3 homography from image pixels to crop pixels for one die.

    Args:
        center: the die's centre (x, y), image pixels.
        size: the die's size (edge), image pixels.
        image_size: (width, height) of the image.
        board_normal: the board's normal in camera coordinates, to rectify the crop; None
            crops the picture as it is.
        focal: focal length over the image's longer side (with ``board_normal``).
        angle: turn of the crop about its centre, degrees (training augmentation).
        flip: mirror the crop left-right (training augmentation).
        window: side of the crop window over ``size``.
        away: for a picture already straightened (a board's view drawn as if from straight
            above): the direction, in picture axes, in which a die there leans away from the
            camera (its side faces show on the camera's side). The crop is turned so that it
            points down, as ``board_normal`` turns a rectified crop.
        side: side of the crop, pixels.

    Returns:
        The homography (float64, 3x3).

    Raises:
        ValueError: if ``size`` is not positive or ``board_normal`` is zero.
    """
    if not size > 0:
        raise ValueError(f"die size must be positive, got {size!r}")
    pre = np.eye(3)
    if board_normal is not None:
        pre = _rectifier(image_size, board_normal, focal)
    c = pre @ np.array([center[0], center[1], 1.0])
    cx, cy = c[0] / c[2], c[1] / c[2]
    # Local magnification of the rectification at the centre (|det J|^0.5).
    d = 1e-3 * size
    pts = np.array([[center[0], center[1], 1.0], [center[0] + d, center[1], 1.0],
                    [center[0], center[1] + d, 1.0]]).T
    q = pre @ pts
    q = q[:2] / q[2]
    jac = np.stack([q[:, 1] - q[:, 0], q[:, 2] - q[:, 0]], axis=1) / d
    local = math.sqrt(abs(float(np.linalg.det(jac))))
    zoom = side / (window * size * local)
    a = math.radians(angle)
    turn = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    if board_normal is not None or away is not None:
        # Turn the crop so that the die leans (away from the rectified principal point)
        # toward the crop's bottom: flat dice then show their side faces above the top face.
        w, h = image_size
        lx, ly = away if away is not None else (cx - w / 2, cy - h / 2)
        norm = math.hypot(lx, ly)
        if norm > 1e-6:
            turn = turn @ np.array([[ly, -lx], [lx, ly]]) / norm
    if flip:
        turn[0] = -turn[0]
    half = (side - 1) / 2
    post = np.eye(3)
    post[:2, :2] = turn * zoom
    post[:2, 2] = [half, half]
    post = post @ np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    out: NDArray[np.float64] = post @ pre
    return out


def crop_die(grey: NDArray[np.uint8], center: tuple[float, float], size: float, *,
             board_normal: Sequence[float] | None = None, focal: float = 0.85,
             angle: float = 0.0, flip: bool = False,
             away: tuple[float, float] | None = None,
             window: float = WINDOW, side: int = SIDE) -> NDArray[np.float32]:
    """The normalised ``side`` x ``side`` crop of one die, as the net takes it.

    Args:
        grey: the grey picture (HxW uint8).
        center: the die's centre (x, y), pixels of ``grey``.
        size: the die's size, pixels of ``grey``.
        board_normal: the board's normal in camera coordinates (rectifies the crop) or None.
        focal: focal length over the image's longer side.
        angle: turn of the crop, degrees (augmentation).
        flip: mirror the crop (augmentation).
        away: see :func:`crop_matrix`.
        window: side of the crop window over ``size``.
        side: side of the crop, pixels (:data:`SIDE` for the dice nets).

    Returns:
        float32 ``side`` x ``side``, zero mean and unit standard deviation (or all zero if flat).

    Raises:
        ValueError: if ``grey`` is not a 2-D uint8 array or ``size`` is not positive.
    """
    if grey.ndim != 2 or grey.dtype != np.uint8:
        raise ValueError(f"grey must be an HxW uint8 array, got {grey.shape} {grey.dtype}")
    h, w = grey.shape
    mat = crop_matrix(center, size, (w, h), board_normal=board_normal, focal=focal,
                      angle=angle, flip=flip, away=away, window=window, side=side)
    src = grey
    # NOTE: a bilinear warp that shrinks more than ~1.5x aliases the pips; shrink the
    # neighbourhood with area averaging first.
    shrink = window * size / side
    if shrink > 1.5:
        reach = window * size * 1.2
        x0, y0 = max(0, int(center[0] - reach)), max(0, int(center[1] - reach))
        x1, y1 = min(w, int(center[0] + reach) + 1), min(h, int(center[1] + reach) + 1)
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            nw = max(2, round((x1 - x0) / shrink))
            nh = max(2, round((y1 - y0) / shrink))
            src = np.asarray(cv2.resize(grey[y0:y1, x0:x1], (nw, nh),
                                        interpolation=cv2.INTER_AREA), dtype=np.uint8)
            sx, sy = nw / (x1 - x0), nh / (y1 - y0)
            to_small = np.array([[sx, 0.0, -x0 * sx + 0.5 * sx - 0.5],
                                 [0.0, sy, -y0 * sy + 0.5 * sy - 0.5], [0.0, 0.0, 1.0]])
            mat = mat @ np.linalg.inv(to_small)
    # NOTE: outside the picture is black, so that the net sees where the picture ends.
    crop = np.asarray(cv2.warpPerspective(src, mat, (side, side), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_CONSTANT, borderValue=0),
                      dtype=np.float32)
    crop -= float(crop.mean())
    std = float(crop.std())
    if std > 1e-3:
        crop /= std
    return crop


def lean(center: tuple[float, float], image_size: tuple[int, int],
         board_normal: Sequence[float] | None, focal: float = 0.85) -> float:
    """How far the ray to a die leans from the board's normal: the tangent of the angle.

    Args:
        center: the die's centre (x, y), image pixels.
        image_size: (width, height) of the image.
        board_normal: the board's normal in camera coordinates, or None (then 0).
        focal: focal length over the image's longer side.

    Returns:
        tan(angle between the ray through ``center`` and the board's normal); 0 without a
        normal.

    Raises:
        ValueError: if ``board_normal`` is zero.

    >>> lean((320.0, 240.0), (640, 480), (0.0, 0.0, 1.0))
    0.0
    """
    if board_normal is None:
        return 0.0
    w, h = image_size
    c = _rectifier(image_size, board_normal, focal) @ np.array([center[0], center[1], 1.0])
    return math.hypot(c[0] / c[2] - w / 2, c[1] / c[2] - h / 2) / (focal * max(w, h))


def ray_lean(ray: Sequence[float]) -> tuple[tuple[float, float], float]:
    """For a straightened view: the way a die leans away from the camera, and how far.

    Args:
        ray: the direction from a die to the camera, in the view's axes (x right, y down,
            z up from the board).

    Returns:
        (the direction away from the camera in the view, (x, y); the tangent of the ray's
        angle from the board's normal, as :func:`lean` gives it).

    Raises:
        ValueError: if the ray does not point up from the board.

    >>> ray_lean((30.0, -40.0, 100.0))
    ((-30.0, 40.0), 0.5)
    """
    rx, ry, rz = (float(v) for v in ray)
    if not rz > 0:
        raise ValueError(f"the ray to the camera must point up from the board, got {ray!r}")
    return (-rx, -ry), math.hypot(rx, ry) / rz


def load_weights(path: Path = WEIGHTS, outputs: int = len(CLASSES), side: int = SIDE
                 ) -> dict[str, NDArray[np.float32]]:
    """Load and check the net's weights (once per path, however the arguments are spelt).

    Args:
        path: the ``.npz`` file (default: the committed weights).
        outputs: how many classes the net must have (see :func:`shapes`).
        side: side of the crops the net must take, pixels (see :func:`shapes`).

    Returns:
        The arrays by name, float32.

    Raises:
        WeightsError: if the file is missing, not an ``.npz`` (or a damaged one), or an array
            is missing, of the wrong shape or not finite.
    """
    # NOTE: the cache is keyed on all three, as given or defaulted: keyed on the call as
    # spelt, ``(p, 2)`` and ``(p, 2, SIDE)`` were two entries, and the recogniser's spellings
    # of its nets filled a cache of four.
    return _load_weights(Path(path), outputs, side)


def own_file_error(exc: WeightsError, path: Path) -> WeightsError:
    """``exc`` said of ``path``, a net file of tablier's own, with how to restore it (a
    damaged install, not the user's input)."""
    name = f"{path.parent.name}/{path.name}"
    return WeightsError(f"{exc}. It is one of tablier's own files ({name}): reinstall "
                        f"tablier, or in a clone restore it with 'git checkout -- {name}'")


@functools.lru_cache(maxsize=8)
def _load_weights(path: Path, outputs: int, side: int) -> dict[str, NDArray[np.float32]]:
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k], dtype=np.float32) for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        # NOTE: a truncated or damaged ``.npz`` raises zipfile's and zlib's own errors, which
        # are neither OSError nor ValueError
        raise WeightsError(f"net weights {path.name!r} cannot be read: {exc}") from exc
    try:
        widths = tuple(arrays[k].shape[0] for k in ("conv1_w", "conv2_w", "conv3_w", "fc1_w"))
    except KeyError as exc:
        raise WeightsError(f"net weights {path.name!r} lack the array {exc.args[0]!r}"
                           ) from None
    except IndexError:
        raise WeightsError(f"net weights {path.name!r}: a layer's array is a scalar"
                           ) from None
    for key, shape in shapes(widths, outputs, side).items():
        if key not in arrays:
            raise WeightsError(f"net weights {path.name!r} lack the array {key!r}")
        if arrays[key].shape != shape:
            raise WeightsError(f"net weights {path.name!r}: {key} has shape "
                               f"{arrays[key].shape}, expected {shape}")
        if not np.isfinite(arrays[key]).all():
            raise WeightsError(f"net weights {path.name!r}: {key} is not finite")
    return arrays


def side_of(weights: dict[str, NDArray[np.float32]]) -> int:
    """Side of the crops a net's weights take, pixels: what its hidden layer's width says.

    Raises:
        ValueError: if no side fits that width.

    >>> side_of({"conv3_w": np.zeros((32, 16, 3, 3)), "fc1_w": np.zeros((64, 802))})
    40
    """
    c3, features = weights["conv3_w"].shape[0], weights["fc1_w"].shape[1] - 2
    cells = math.isqrt(features // c3) if features > 0 and features % c3 == 0 else 0
    if cells < 1 or cells * cells * c3 != features:
        raise ValueError(f"no crop side fits a hidden layer of {features + 2} inputs "
                         f"after {c3} channels")
    return 8 * cells


def _conv_relu_pool(x: NDArray[np.float32], w: NDArray[np.float32],
                    b: NDArray[np.float32]) -> NDArray[np.float32]:
    """3x3 convolution (zero padding 1), ReLU, 2x2 max pooling; x is (N, H, W, C), channels
    last (the windows are then gathered and pooled without turning the array about)."""
    n, h, wd, c = x.shape
    xp = np.zeros((n, h + 2, wd + 2, c), np.float32)
    xp[:, 1:-1, 1:-1] = x
    # NOTE: each input pixel's 3x3 window, channel by channel (the weights' own order), filled
    # by nine shifted copies: several times faster than numpy's pad and a copy of the sliding
    # windows, and the same numbers
    cols = np.empty((n, h, wd, c, 3, 3), np.float32)
    for dy in range(3):
        for dx in range(3):
            cols[..., dy, dx] = xp[:, dy:dy + h, dx:dx + wd]
    out = np.maximum(cols.reshape(n * h * wd, c * 9) @ w.reshape(w.shape[0], -1).T + b, 0.0)
    pooled = out.reshape(n, h // 2, 2, wd // 2, 2, -1).max(axis=(2, 4))
    return np.asarray(pooled, dtype=np.float32)


def forward(crops: NDArray[np.float32], extra: NDArray[np.float32], *,
            weights: dict[str, NDArray[np.float32]] | None = None) -> NDArray[np.float32]:
    """Class probabilities of a batch of crops.

    Args:
        crops: (N, S, S) float32, as :func:`crop_die` makes them, S the side the weights
            were taught on (:data:`SIDE` for the dice nets).
        extra: (N, 2): 1.0 where the crop was rectified by the board's normal (else 0.0), and
            the die's :func:`lean` (0.0 when not rectified).
        weights: the arrays of :func:`load_weights`; the committed ones when None.

    Returns:
        (N, len(CLASSES)) float32 probabilities (rows sum to 1).

    Raises:
        ValueError: if the crops are not (N, S, S) or the weights are bad.
    """
    p = weights if weights is not None else load_weights()
    side = side_of(p)
    if crops.ndim != 3 or crops.shape[1:] != (side, side):
        raise ValueError(f"crops must be (N, {side}, {side}), got {crops.shape}")
    if extra.shape != (len(crops), 2):
        raise ValueError(f"extra must be ({len(crops)}, 2), got {extra.shape}")
    x = np.asarray(crops, dtype=np.float32)[..., None]
    for k in (1, 2, 3):
        x = _conv_relu_pool(x, p[f"conv{k}_w"], p[f"conv{k}_b"])
    # the hidden layer reads the features channel by channel (as torch lays them out)
    flat = x.transpose(0, 3, 1, 2).reshape(len(x), -1)
    feats = np.concatenate([flat, np.asarray(extra, np.float32)], axis=1)
    hidden = np.maximum(feats @ p["fc1_w"].T + p["fc1_b"], 0.0)
    logits = hidden @ p["fc2_w"].T + p["fc2_b"]
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float32)


def classify(grey: NDArray[np.uint8], dice: Sequence[tuple[tuple[float, float], float]], *,
             board_normal: Sequence[float] | None = None, focal: float = 0.85,
             weights_path: Path | Sequence[Path] = WEIGHTS,
             ray: tuple[float, float, float] | None = None) -> NDArray[np.float32]:
    """Class probabilities of each die (centre, size) on a grey picture.

    Args:
        grey: the grey picture (HxW uint8) the centres and sizes are given in.
        dice: (center (x, y), size) of each die.
        board_normal: the board's normal in camera coordinates, or None.
        focal: focal length over the image's longer side.
        weights_path: the weights file, or several: their probabilities are averaged.
        ray: for a straightened view of a board (``board_normal`` is then not used): the
            direction from the dice to the camera, in the view's axes (x right, y down, z up
            from the board). The crops are turned by it (see ``away`` of
            :func:`crop_matrix`) and the net is told its lean.

    Returns:
        (len(dice), len(CLASSES)) float32 probabilities.

    Raises:
        ValueError: if the weights file is bad or a size is not positive.
    """
    paths = [weights_path] if isinstance(weights_path, Path) else list(weights_path)
    if not paths:
        raise ValueError("no weights file given")
    nets = [load_weights(path) for path in paths]
    if not dice:
        return np.zeros((0, len(CLASSES)), np.float32)
    if ray is not None:
        away, tilt = ray_lean(ray)
        crops = np.stack([crop_die(grey, c, s, away=away) for c, s in dice])
        extra = np.array([(1.0, tilt)] * len(dice), np.float32)
    else:
        crops = np.stack([crop_die(grey, c, s, board_normal=board_normal, focal=focal)
                          for c, s in dice])
        h, w = grey.shape
        extra = np.array([(0.0 if board_normal is None else 1.0,
                           lean(c, (w, h), board_normal, focal)) for c, _ in dice], np.float32)
    if len(nets) == 1:
        return forward(crops, extra, weights=nets[0])
    probs = np.mean([forward(crops, extra, weights=w) for w in nets], axis=0)
    return np.asarray(probs, np.float32)
