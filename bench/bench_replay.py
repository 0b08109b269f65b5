"""Benchmark the companion: dice settled -> displays updated, replay speed, watch memory.

Prints figures, asserts nothing. Run from the repository root:

    python bench/bench_replay.py [GAME] [--runs 3]

GAME defaults to the bundled demo (fixtures/games/demo); without it a game is rendered into a
temporary folder with the vision part's renderer (tablier.vision.game.write_game), and without
the vision part a simulated match (sim:1) is used.

1. Latency: ``tablier replay GAME --pace recorded`` with the console display and the simulated
   peg driver (pegsim://); for every throw, the time from the arrival of the first frame where
   the dice lie settled to the return of every display's ``show`` (median and max per run, then
   the median over runs).
2. Speed: the same replay with ``--pace fast``: frames per second through the whole pipeline.
3. Memory: ``tablier watch --camera file:FRAMES`` (the recording played as a live camera, at its
   recorded pace) in a child process; its peak resident set size.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LATENCY = re.compile(r"median ([0-9.]+) ms, max ([0-9.]+) ms over (\d+) throws")


def _game(spec: str | None, tmp: Path) -> str:
    if spec:
        return spec
    from tablier.replay import GameError, find_game

    try:
        return str(find_game(None))
    except GameError:
        pass
    try:
        from tablier.vision.game import write_game
    except ImportError:
        return "sim:1"
    write_game(tmp / "rendered", seed=5, throws=12)
    return str(tmp / "rendered")


def _replay(game: str, journal: Path, *extra: str) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "tablier", "replay", game, "--journal", str(journal),
           "--markers", "console:", "--markers", "pegsim://", *extra]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"replay failed: {done.stderr.strip()}")
    return took, done.stdout


def main() -> int:
    """Run the benchmark.

    Returns:
        0.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"{os.cpu_count()} cpus, Python {platform.python_version()}, {platform.system()}")
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        game = _game(args.game, tmp)
        print(f"game: {game}")
        medians, maxima = [], []
        for i in range(args.runs):
            _, out = _replay(game, tmp / f"lat{i}.jsonl", "--pace", "recorded")
            m = LATENCY.search(out)
            if m is None:
                print("  no throw was recorded: no latency to measure")
                break
            medians.append(float(m.group(1)))
            maxima.append(float(m.group(2)))
            verdict = next((ln for ln in out.splitlines() if ln.startswith("verdict")), "")
            print(f"  run {i + 1}: median {m.group(1)} ms, max {m.group(2)} ms over "
                  f"{m.group(3)} throws; {verdict[:60]}")
        if medians:
            print(f"dice settled -> displays updated (recorded pace): median of run medians "
                  f"{statistics.median(medians):.1f} ms, worst throw {max(maxima):.1f} ms "
                  f"(target <= 500 ms)")
        frames = 0
        times = []
        for i in range(args.runs):
            took, out = _replay(game, tmp / f"fast{i}.jsonl", "--pace", "fast")
            times.append(took)
        journal = tmp / "fast0.jsonl"
        import json

        last = [json.loads(x) for x in journal.read_text().splitlines() if '"seen"' in x]
        frames = (last[-1]["frame"] + 1) if last else 0
        med = statistics.median(times)
        print(f"replay as fast as possible: median {med:.2f} s per run, ~{frames} frames to the "
              f"last event, {frames / med:.0f} frames/s including start-up")
        if not game.startswith("sim:"):
            from tablier.replay import load_game

            g = load_game(Path(game))
            frames_dir = g.frames
            files = g.files
            if files:
                # watch reads a folder: link the listed frames into one, in order
                frames_dir = tmp / "frames"
                frames_dir.mkdir()
                for k, f in enumerate(files):
                    (frames_dir / f"{k:04d}{f.suffix}").symlink_to(f)
            code = ("import resource, sys; from tablier.cli import main; "
                    "rc = main(sys.argv[1:]); "
                    "print('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); "
                    "sys.exit(rc)")
            cmd = [sys.executable, "-c", code, "watch", "--camera", f"file:{frames_dir}",
                   "--calibration", str(g.calibration), "--journal", str(tmp / "watch.jsonl"),
                   "--markers", "pegsim://"]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False,
                                  stdin=subprocess.DEVNULL)
            peak = next((int(ln.split()[1]) for ln in done.stdout.splitlines()
                         if ln.startswith("PEAK")), None)
            if peak is None:
                print(f"watch did not run: {done.stderr.strip()[-200:]}")
            else:
                print(f"watch process peak resident memory: {peak / 1024:.0f} MB over "
                      f"{len(files) or 'all'} frames at recorded pace (target <= 300 MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
