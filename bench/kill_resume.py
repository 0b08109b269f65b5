"""Kill a replay with SIGKILL at random moments, resume it each time, compare the journals.

Prints how many kills landed in the middle of the replay and whether the final journal equals
an uninterrupted run's, byte for byte. Asserts nothing (tests/app/test_app_replay.py does, on a
small simulated game); this runs the whole vision pipeline on a recorded game:

    python bench/kill_resume.py [GAME] [--kills 20] [--seed 20]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cmd(game: str, journal: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "tablier", "replay", *([game] if game else []),
            "--journal", str(journal), "--quiet", "--markers", "record:",
            "--pace", "recorded", "--speed", "4", *extra]


def main() -> int:
    """Run the kills.

    Returns:
        0 when the journals match, 1 otherwise.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", default="")
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {os.cpu_count()} cpus, Python "
          f"{platform.python_version()}")
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        reference = tmp / "whole.jsonl"
        start = time.monotonic()
        subprocess.run(_cmd(args.game, reference), capture_output=True, check=False)
        duration = time.monotonic() - start
        want = reference.read_bytes()
        rng = random.Random(args.seed)
        journal = tmp / "killed.jsonl"
        kills, lengths, attempts = 0, [], 0
        while kills < args.kills and attempts < 4 * args.kills:
            attempts += 1
            resume = ("--resume",) if journal.exists() else ()
            proc = subprocess.Popen(_cmd(args.game, journal, *resume),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.0, duration))
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                data = journal.read_bytes() if journal.exists() else b""
                if data != want:
                    kills += 1
                    lengths.append(data.count(b"\n"))
            if journal.exists() and journal.read_bytes() == want:
                journal.unlink()
        subprocess.run(_cmd(args.game, journal, "--resume"), capture_output=True, check=False)
        same = journal.exists() and journal.read_bytes() == want
        total = want.count(b"\n")
        print(f"game {args.game or '(bundled demo)'}: uninterrupted run {duration:.1f} s, "
              f"{total} journal lines")
        print(f"{kills} kills in the middle of the replay ({attempts} attempts); journal lines "
              f"at each kill: {lengths}")
        print(f"final journal after --resume equals the uninterrupted one: {same}")
        return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
