"""Benchmark the recogniser on 1640x1232 frames: median time per stage and peak memory.

Frames are rendered from a seed (not committed) in a child process, then read here on ONE
OpenCV thread, each several times; the figures are printed, never asserted.

    python bench/bench_vision.py [--frames 8] [--repeat 5] [--seed 42] [--no-dice] [--no-net]
                                 [--size 1640x1232] [--cocked 0.0] [--on-die 0.0]

``--cocked 1`` draws a cocked die in every frame: the dice search then runs until one die is
read and the other judged bad, the slow end of a game's frames. ``--on-die 1`` rests one die on
the other in every frame: one die is seen, and the search looks at every place before the
stack net is asked.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> int:
    # as the ``tablier`` command does (tablier/cli.py), before numpy is imported
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--size", default="1640x1232")
    parser.add_argument("--cocked", type=float, default=0.0,
                        help="share of frames with a cocked die (default: %(default)s)")
    parser.add_argument("--on-die", type=float, default=0.0,
                        help="share of frames with one die resting on the other (default: %(default)s)")
    parser.add_argument("--no-dice", action="store_true", help="leave the dice reader out")
    parser.add_argument("--no-net", action="store_true",
                        help="read the dice with the rules alone (no board net)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # render in a child so that its memory does not count
        subprocess.run([sys.executable, "-m", "tablier", "render", tmp, "--seed", str(args.seed),
                        "--sessions", "1", "--frames", str(args.frames), "--size", args.size,
                        "--occluders", "0", "--cocked", str(args.cocked),
                        "--on-die", str(args.on_die)], check=True,
                       stdout=subprocess.DEVNULL)
        import cv2
        from tablier.calibration.calibration import Calibration
        from tablier.vision.evaluate import p90
        from tablier.vision.imageio import read_image
        from tablier.vision.recognizer import Recognizer

        cv2.setNumThreads(1)
        session = Path(tmp) / "s00"
        kwargs: dict[str, object] = {"dice_net": not args.no_net}
        if args.no_dice:
            kwargs["dice_reader"] = lambda image: ()
        rec = Recognizer(Calibration.load(session / "calibration.json"), **kwargs)
        images = [read_image(p) for p in sorted(session.glob("frame_*.jpg"))]
        stages: dict[str, list[float]] = {}
        for image in images:
            rec.recognize(image)  # warm up
            for _ in range(args.repeat):
                for name, ms in rec.recognize(image).timings:
                    stages.setdefault(name, []).append(ms)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"{os.cpu_count()} cpu(s), python {platform.python_version()}, "
          f"OpenCV {cv2.__version__} on 1 thread")
    print(f"{len(images)} frames of {args.size} x {args.repeat} runs, dice reader "
          f"{'off' if args.no_dice else 'on'}{', board net off' if args.no_net else ''}"
          f"{f', a cocked die in {args.cocked:.0%} of frames' if args.cocked else ''}"
          f"{f', one die on the other in {args.on_die:.0%} of frames' if args.on_die else ''}")
    for name, values in stages.items():
        print(f"  {name:<10} median {statistics.median(values):7.2f} ms   "
              f"min {min(values):7.2f} ms   p90 {p90(values):7.2f} ms")
    print(f"peak memory (max RSS of this process): {peak_kb / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
