"""Benchmark the rules engine: legal plays plus jans for one throw, and random self-play.

Prints figures (never asserts them). Run from the repository root:

    python bench/bench_engine.py            # full run
    python bench/bench_engine.py --quick    # fewer samples

Figures: the median over several runs of the per-throw time (legal plays + jans) on a fixed,
seeded set of mid-game positions, and the time for random self-play of 1,000 relevés (random
legal plays, every jan judged on every throw).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from tablier.engine import Color, Dice, Position, jans, legal_moves
from tablier.engine.jans import judge
from tablier.engine.moves import DEFAULT_OPTIONS, generate, mover_view, result_position

MAX_THROWS = 400
"""A relevé of random play that lasts longer than this is cut (counted and reported)."""


def one_throw(position: Position, dice: Dice, rng: random.Random | None = None) -> Position:
    """Judge the jans of a throw and play a random legal play (or the first one)."""
    own, opp = mover_view(position)
    used, results = generate(own, opp, dice.a, dice.b)
    judge(position, own, opp, dice.a, dice.b, used, results, rolls_so_far=None,
          options=DEFAULT_OPTIONS, opening_dice=None)
    keys = list(results)
    key = rng.choice(keys) if rng is not None else keys[0]
    return result_position(position, key)


def relevé(rng: random.Random) -> tuple[int, bool]:
    """Play one relevé at random; return (throws, finished by a bearing off)."""
    position = Position.start(to_move=Color.WHITE if rng.random() < 0.5 else Color.BLACK)
    for n in range(1, MAX_THROWS + 1):
        position = one_throw(position, Dice.roll(rng), rng)
        if position.off_white == 15 or position.off_black == 15:
            return n, True
    return MAX_THROWS, False


def mid_game_positions(count: int, seed: int) -> list[tuple[Position, Dice]]:
    """Positions met between the 10th and the 60th throw of seeded random relevés."""
    rng = random.Random(seed)
    out: list[tuple[Position, Dice]] = []
    while len(out) < count:
        position = Position.start()
        stop = rng.randint(10, 60)
        for _ in range(stop):
            position = one_throw(position, Dice.roll(rng), rng)
            if position.off_white == 15 or position.off_black == 15:
                break
        else:
            out.append((position, Dice.roll(rng)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.system()}, {os.cpu_count()} cpus, "
          f"Python {platform.python_version()}")
    samples = mid_game_positions(100 if args.quick else 300, seed=2026)
    runs = []
    for _ in range(3 if args.quick else 7):
        start = time.perf_counter()
        for position, dice in samples:
            one_throw(position, dice)
        runs.append((time.perf_counter() - start) / len(samples))
    print(f"legal plays + jans, one throw: median {statistics.median(runs) * 1e6:.0f} µs "
          f"over {len(runs)} runs of {len(samples)} mid-game positions "
          f"(best {min(runs) * 1e6:.0f} µs)")
    runs = []
    for _ in range(3 if args.quick else 7):
        start = time.perf_counter()
        for position, dice in samples:
            list(legal_moves(position, dice))
            jans(position, dice)
        runs.append((time.perf_counter() - start) / len(samples))
    print(f"public API, list(legal_moves()) + jans(): median {statistics.median(runs) * 1e6:.0f} µs "
          f"(best {min(runs) * 1e6:.0f} µs)")
    relevés = 100 if args.quick else 1000
    rng = random.Random(7)
    start = time.perf_counter()
    throws = cut = 0
    for _ in range(relevés):
        n, finished = relevé(rng)
        throws += n
        cut += not finished
    elapsed = time.perf_counter() - start
    print(f"random self-play: {relevés} relevés, {throws} throws in {elapsed:.1f} s "
          f"({elapsed / throws * 1e6:.0f} µs per throw; {cut} relevés cut at {MAX_THROWS} "
          f"throws)")


if __name__ == "__main__":
    main()
