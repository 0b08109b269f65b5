"""The data-driven jan cases of fixtures/engine/*.jans, one pytest id per case."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tablier.engine import Color, Dice, Jan, Position, RuleOptions, jans, legal_positions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "engine"


@dataclass
class Case:
    id: str
    file: str
    source: str = ""
    pos: str = ""
    dice: str = ""
    throws: int | None = None
    options: list[str] = field(default_factory=list)
    opening: str | None = None
    expect: list[tuple[str, str, int, int]] = field(default_factory=list)
    expect_none: bool = False
    plays: int | None = None


def load_cases() -> list[Case]:
    cases: list[Case] = []
    for path in sorted(FIXTURES.glob("*.jans")):
        case: Case | None = None
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("source") else raw
            if not line.strip():
                case = None
                continue
            key, _, value = line.strip().partition(" ")
            value = value.strip()
            if key == "id":
                case = Case(value, path.name)
                cases.append(case)
                continue
            assert case is not None, f"{path.name}:{number}: {key!r} before any id"
            if key == "source":
                case.source = value
            elif key == "pos":
                case.pos = value
            elif key == "dice":
                case.dice = value
            elif key == "throws":
                case.throws = int(value)
            elif key == "options":
                case.options = value.split()
            elif key == "opening":
                case.opening = value
            elif key == "plays":
                case.plays = int(value)
            elif key == "expect":
                if value == "none":
                    case.expect_none = True
                else:
                    jan, scorer, points, ways = value.split()
                    case.expect.append((jan, scorer, int(points), int(ways)))
            else:
                raise AssertionError(f"{path.name}:{number}: unknown key {key!r}")
    return cases


CASES = load_cases()


def test_cases_are_well_formed() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert len(CASES) >= 30
    for c in CASES:
        assert c.source and c.pos and c.dice, c.id
        assert c.expect_none != bool(c.expect), f"{c.id}: expect jans or 'none', not both"
        for jan, scorer, _, _ in c.expect:
            Jan(jan)
            Color.parse(scorer)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    position = Position.from_notation(case.pos)
    assert position.is_valid(), f"{case.id}: {position!r} is impossible"
    dice = Dice.parse(case.dice)
    options = RuleOptions(**{name: True for name in case.options})
    opening = Dice.parse(case.opening) if case.opening else None
    got = jans(position, dice, rolls_so_far=case.throws, options=options, opening_dice=opening)
    found = sorted((s.jan.value, s.player.value, s.points, s.ways) for s in got)
    reasons = "\n".join(f"  {s.jan.value}: {s.reason}" for s in got)
    assert found == sorted(case.expect), (
        f"{case.id} ({case.source})\n{position!r} dice {dice}\n{position}\n{reasons}")
    if case.plays is not None:
        assert len(legal_positions(position, dice, options=options)) == case.plays
    # the mirrored position scores the same jans for the other colour
    mirrored = jans(position.mirror(), dice, rolls_so_far=case.throws, options=options,
                    opening_dice=opening)
    assert sorted((s.jan.value, s.player.other().value, s.points, s.ways) for s in mirrored) \
        == found
