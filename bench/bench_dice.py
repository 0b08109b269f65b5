"""Time the dice reader: median per image on the real photographs and on 1640x1232 frames.

Run from the repository root::

    python bench/bench_dice.py [--repeat 5]

It prints the machine, then the median (and 90th percentile) of ``read_dice`` per image. The
rendered frames are drawn at the Raspberry Pi camera's 1640x1232 binned size with the
project's renderer (seeds 7000..7004 with large dice, 7100..7104 with dice of 40..56 px as
on a whole board seen by the Pi camera), so nothing large is committed. Last, ``read_photo``
(what ``tablier dice`` runs) on the committed board frames (``fixtures/vision/measure``,
1024x768, the first twelve of session s00): the board's recogniser on each photograph's own
calibration, which is built anew for every photograph.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from tablier.vision.dice import DiceConfig, load_image, read_dice
from tablier.vision.photo import read_photo
from tablier.vision.render_dice import render_scene

ROOT = Path(__file__).resolve().parents[1]


def _time(images: list[np.ndarray], repeat: int,
          read: Callable[[DiceConfig, np.ndarray], object] = read_dice) -> list[float]:
    cfg = DiceConfig()
    per_image = []
    for image in images:
        runs = []
        for _ in range(repeat):
            start = time.perf_counter()
            read(cfg, image)
            runs.append((time.perf_counter() - start) * 1000)
        per_image.append(statistics.median(runs))
    return per_image


def main() -> None:
    """Print the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per image (median taken)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"python {platform.python_version()} opencv {cv2.__version__} "
          f"cores {os.cpu_count()} (OpenCV limited to 1 thread)")
    real = [load_image(p) for p in sorted((ROOT / "fixtures/dice/real").glob("*.jpg"))]
    frames = [render_scene(np.random.default_rng(seed), width=1640, height=1232)[0]
              for seed in range(7000, 7005)]
    board = [render_scene(np.random.default_rng(seed), width=1640, height=1232,
                          die_px=(40, 56))[0] for seed in range(7100, 7105)]
    photos = [load_image(p) for p in
              sorted((ROOT / "fixtures/vision/measure/s00").glob("frame_*.jpg"))[:12]]
    for name, images, read in (("real 640x480", real, read_dice),
                               ("rendered 1640x1232", frames, read_dice),
                               ("1640x1232, 40-56px dice", board, read_dice),
                               ("board photo 1024x768", photos, read_photo)):
        t = _time(images, args.repeat, read)
        print(f"{name:>20}: {len(images):4d} images  median {statistics.median(t):6.2f} ms  "
              f"p90 {float(np.percentile(t, 90)):6.2f} ms  max {max(t):6.2f} ms")


if __name__ == "__main__":
    main()
