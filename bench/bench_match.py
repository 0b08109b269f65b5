"""Benchmark the match state machine: whole matches driven through the rules engine, and
replaying their journals (JSON lines) into a Game.

Prints figures (never asserts them). Run from the repository root:

    python bench/bench_match.py            # 20 matches, 5 runs
    python bench/bench_match.py --quick    # 5 matches, 3 runs

Figures: median over the runs of (a) playing the seeded matches (dice rolled, jans judged by
the engine, honest marks, random legal plays and stay/go decisions) and (b) replaying their
events from JSON text with positions tracked; events per match and events replayed per second.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time

from tablier.engine import (
    Game,
    event_from_json,
    random_match,
)


def play_match(seed: int, *, max_throws: int = 2000) -> Game:
    """One whole match of honest players with random plays and decisions."""
    game = Game(track_position=True)
    for game in random_match(random.Random(seed), go_rate=0.3, max_throws=max_throws):
        pass
    return game


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    matches, runs = (5, 3) if args.quick else (20, 5)
    play_times, replay_times = [], []
    journals: list[list[str]] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        games = [play_match(seed) for seed in range(matches)]
        play_times.append(time.perf_counter() - t0)
        journals = [[json.dumps(e.to_json()) for e in g.history] for g in games]
        t0 = time.perf_counter()
        for lines in journals:
            Game.replay((event_from_json(json.loads(x)) for x in lines), track_position=True)
        replay_times.append(time.perf_counter() - t0)
    events = sum(len(j) for j in journals)
    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"python {platform.python_version()}, {os.cpu_count()} cpus")
    print(f"{matches} whole matches, {events} events ({events / matches:.0f} per match)")
    print(f"play (engine jans + legal plays): median {statistics.median(play_times):.3f} s "
          f"over {runs} runs ({1000 * statistics.median(play_times) / matches:.1f} ms/match)")
    replay = statistics.median(replay_times)
    print(f"replay from JSON lines: median {replay:.3f} s over {runs} runs "
          f"({events / replay:,.0f} events/s)")


if __name__ == "__main__":
    main()
