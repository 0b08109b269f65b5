"""Toy rules so the tracker is tested without the engine (not trictrac!)."""

from __future__ import annotations

from collections.abc import Sequence

from tablier.tracker import Board, Candidate, Move


def toy_legal(board: Board, mover: str, dice: tuple[int, int]) -> Sequence[Candidate]:
    """Simplified movement: each die moves one man forward onto a field the opponent does not
    hold (both orders; no bearing off). Enough to exercise the tracker, not trictrac."""
    sign = 1 if mover == "white" else -1

    def to_white(f: int) -> int:  # mover's numbering -> White's
        return f if sign > 0 else 25 - f

    def steps(b: Board, die: int) -> list[tuple[Move, Board]]:
        out = []
        for f in range(1, 25):
            if b[to_white(f) - 1] * sign <= 0 or f + die > 24:
                continue
            t = f + die
            if b[to_white(t) - 1] * sign < 0:
                continue
            nb = list(b)
            nb[to_white(f) - 1] -= sign
            nb[to_white(t) - 1] += sign
            out.append(((f, t), tuple(nb)))
        return out

    plays: list[Candidate] = []
    for first, second in ((dice[0], dice[1]), (dice[1], dice[0])):
        for m1, b1 in steps(board, first):
            for m2, b2 in steps(b1, second):
                plays.append(Candidate((m1, m2), b2))
    if not plays:
        return [Candidate((), board)]
    return plays
