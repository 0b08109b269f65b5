"""Time the dice net: its cost per frame of 1 and 3 dice, and read_dice with and without it.

Run from the repository root::

    python bench/bench_dicenet.py [--repeat 20]

It prints the machine, then medians over ``--repeat`` runs: :func:`dicenet.classify` (crops
and forward pass) for 1 and 3 dice on a real 640x480 photograph and on a 1640x1232 rendered
frame, with and without the board's normal; then ``read_dice`` per image on the real
photographs with the net on and off. OpenCV and numpy's BLAS are limited to one thread.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2
import numpy as np
from tablier.vision import dicenet
from tablier.vision.dice import DiceConfig, load_image, read_dice
from tablier.vision.render_dice import render_scene

ROOT = Path(__file__).resolve().parents[1]


def _median_ms(fn: object, repeat: int) -> float:
    assert callable(fn)
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs)


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def main() -> None:
    """Print the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="runs (median taken)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(f"machine: {platform.machine()} {_cpu()} "
          f"python {platform.python_version()} numpy {np.__version__} "
          f"opencv {cv2.__version__} cores {os.cpu_count()} (1 thread)")
    dicenet.load_weights()
    real = load_image(ROOT / "fixtures/dice/real/two_7.jpg")
    frame = render_scene(np.random.default_rng(7000), width=1640, height=1232)[0]
    for name, image, size in (("real 640x480", real, 57.0), ("1640x1232", frame, 120.0)):
        grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), dtype=np.uint8)
        h, w = grey.shape
        for count in (1, 3):
            dice = [((w * (k + 1) / 4, h / 2), size) for k in range(count)]
            for normal in (None, (0.1, -0.3, 0.95)):
                ms = _median_ms(lambda d=dice, n=normal, g=grey:  # type: ignore[misc]
                                dicenet.classify(g, d, board_normal=n), args.repeat)
                print(f"classify {name:>12} {count} dice "
                      f"{'rectified' if normal else 'as seen  '}: median {ms:6.2f} ms")
    photos = [load_image(p) for p in sorted((ROOT / "fixtures/dice/real").glob("*.jpg"))[:40]]
    for net in (False, True):
        cfg = DiceConfig(net=net)
        per = [_median_ms(lambda im=im, c=cfg: read_dice(c, im),  # type: ignore[misc]
                          max(3, args.repeat // 5)) for im in photos]
        print(f"read_dice on {len(photos)} real photos, net {'on ' if net else 'off'}: "
              f"median {statistics.median(per):6.2f} ms per image")


if __name__ == "__main__":
    main()
