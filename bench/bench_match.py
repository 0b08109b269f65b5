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
    Choice,
    Color,
    Decision,
    Dice,
    Game,
    Mark,
    event_from_json,
    legal_moves,
    totals,
)


def play_match(seed: int, *, max_throws: int = 2000) -> Game:
    """One whole match of honest players with random plays and decisions."""
    rng = random.Random(seed)
    game = Game(track_position=True)
    by = Color.WHITE
    for _ in range(max_throws):
        if game.score.winner is not None:
            break
        dice = Dice.roll(rng)
        owed = totals(game.throw(by, dice))
        game.push(Mark(by, owed[by]))
        go = False
        turn = game.state.turn
        if game.score.winner is None and turn is not None and turn.won_hole:
            go = rng.random() < 0.3
            game.push(Decision(by, Choice.GO if go else Choice.STAY))
        if game.score.winner is None and not go:
            assert game.state.position is not None
            plays = list(legal_moves(game.state.position, dice))
            game.play(plays[rng.randrange(len(plays))])
            if game.score.winner is None and owed[by.other()]:
                game.push(Mark(by.other(), owed[by.other()]))
        assert game.state.to_move is not None
        by = game.state.to_move
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
