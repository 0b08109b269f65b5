"""`tablier marks` against a second, independent reading of the seeds' scoring rules.

The oracle below is written straight from the seeds' sentences (trictrac-wikipedia-2021.txt:
Point scoring, Bredouille, Holding going and games, Pavilion), not from engine/score.py, and
random matches must give the same answer through both.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tablier.commands.marks import score_throws

OTHER = {"white": "black", "black": "white"}


class Oracle:
    """Points, holes, runs and the flag, as the seeds tell them."""

    def __init__(self) -> None:
        self.points = {"white": 0, "black": 0}
        self.holes = {"white": 0, "black": 0}
        self.clean = {"white": True, "black": True}  # no opponent mark since his first point
        self.first: str | None = None  # the first player to win a hole
        self.flag = "middle"
        self.winner: str | None = None

    def mark(self, who: str, gain: int) -> bool:
        """Mark ``gain``; True when it won a hole."""
        if gain == 0 or self.winner:
            return False
        other = OTHER[who]
        if self.points[other]:
            self.clean[other] = False  # "If ... the first player were to score points ..."
        if self.points[who] == 0:
            self.clean[who] = True  # "starts from the talon"
        self.points[who] += gain
        won = False
        while self.points[who] >= 12 and not self.winner:
            won = True
            self.points[who] -= 12
            if self.flag == "middle":
                if self.first is None:
                    self.first = who
                elif who != self.first:
                    self.flag = who  # "the second player replaces his peg with the flag"
            elif self.flag == other:
                self.flag = "out"  # "the first prevents the 12-hole run by scoring a hole"
            self.holes[who] = min(12, self.holes[who] + (2 if self.clean[who] else 1))
            self.points[other], self.clean[other] = 0, True  # "resets the opponent's to zero"
            self.clean[who] = True  # the jeton went by the talons; the opponent has nothing
            if self.holes[who] == 12:
                self.winner, self.points[who] = who, 0
        return won

    def throw(self, by: str, gains: dict[str, int], decision: str | None) -> None:
        won = self.mark(by, gains.get(by, 0))
        if self.winner:
            return
        if won and decision == "go":  # "giving up his remaining points ... The opponent
            self.points = {"white": 0, "black": 0}  # cannot score any points gained"
            self.clean = {"white": True, "black": True}
            return
        self.mark(OTHER[by], gains.get(OTHER[by], 0))

    def answer(self) -> dict[str, Any]:
        def one(c: str) -> dict[str, Any]:
            return {"holes": self.holes[c], "points": self.points[c],
                    "bredouille": self.points[c] > 0 and self.clean[c]}

        return {"white": one("white"), "black": one("black"), "pavillon": self.flag,
                "winner": self.winner}


gain = st.sampled_from([0, 0, 2, 2, 4, 4, 6, 8, 10, 12, 14, 20, 26, 36])
throw = st.tuples(st.sampled_from(["white", "black"]), gain, gain, st.booleans())


@settings(max_examples=300, deadline=None)
@given(st.lists(throw, max_size=60))
def test_marks_agrees_with_the_oracle(throws: list[tuple[str, int, int, bool]]) -> None:
    oracle = Oracle()
    request: list[dict[str, Any]] = []
    for by, own, given_away, go in throws:
        if oracle.winner:
            break
        gains = {by: own, OTHER[by]: given_away}
        probe = copy.deepcopy(oracle)  # does the roller's own gain make a hole?
        made_hole = probe.mark(by, own) and not probe.winner
        decision = ("go" if go else "stay") if made_hole else None
        entry: dict[str, Any] = {"by": by, "gains": gains}
        if decision:
            entry["decision"] = decision
        request.append(entry)
        oracle.throw(by, gains, decision)
    assert score_throws({"throws": request}).score.to_json() == oracle.answer()
