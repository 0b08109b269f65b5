"""The grey-level pip shape (``_Pip.fine``) recovers a small pip's foreshortening."""
from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray
from tablier.vision.dice import DiceConfig, _eigh2, _find_pips


def _pip_image(ratio: float, angle: float, radius: float, shift: float) -> NDArray[np.uint8]:
    """A dark ellipse (axes radius/sqrt(ratio), radius*sqrt(ratio)) on a light body,
    anti-aliased by 8x supersampling."""
    k, side = 8, 31
    ys, xs = np.mgrid[0:side * k, 0:side * k]
    cx = cy = (side / 2 + shift) * k
    c, s = math.cos(angle), math.sin(angle)
    u = ((xs - cx) * c + (ys - cy) * s) / (k * radius / math.sqrt(ratio))
    v = (-(xs - cx) * s + (ys - cy) * c) / (k * radius * math.sqrt(ratio))
    dark = (u * u + v * v <= 1.0).astype(np.float64)
    cover = dark.reshape(side, k, side, k).mean(axis=(1, 3))
    return np.round(200.0 - 170.0 * cover).astype(np.uint8)


def _ratio(cov: NDArray[np.float64]) -> float:
    vals, _ = _eigh2(cov)
    return math.sqrt(float(vals.min()) / float(vals.max()))


@pytest.mark.parametrize(("ratio", "angle", "shift"),
                         [(1.0, 0.0, 0.3), (0.85, 0.5, 0.1), (0.7, 1.2, 0.45)])
def test_fine_shape_beats_the_mask(ratio: float, angle: float, shift: float) -> None:
    grey = _pip_image(ratio, angle, 2.6, shift)
    pips = _find_pips(DiceConfig(), grey)
    assert len(pips) == 1
    pip = pips[0]
    fine_err = abs(_ratio(pip.fine) - ratio)
    assert fine_err < 0.05, (_ratio(pip.fine), ratio)
    assert fine_err <= abs(_ratio(pip.cov) - ratio) + 0.01


def test_fine_falls_back_at_the_border() -> None:
    grey = _pip_image(0.8, 0.3, 2.6, 0.0)[:, 11:]  # the pip's patch runs past the left edge
    pips = _find_pips(DiceConfig(), grey)
    assert len(pips) == 1
    assert pips[0].fine is pips[0].cov  # the mask's shape is kept
