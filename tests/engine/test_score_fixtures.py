"""The worked scoring examples of the seeds (fixtures/scoring/*.json), as data-driven cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tablier.engine import Color, WinningsScheme

from tablier.commands.marks import score_throws

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "scoring"


def _cases() -> list[Any]:
    params = []
    for path in sorted(FIXTURES.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            params.append(pytest.param(case, id=f"{path.stem}:{case['id']}"))
    return params


def _mirror_throws(throws: list[dict[str, Any]]) -> list[dict[str, Any]]:
    swap = {"white": "black", "black": "white"}
    out = []
    for t in throws:
        m = dict(t, by=swap[t["by"]], gains={swap[k]: v for k, v in t["gains"].items()})
        out.append(m)
    return out


def _mirror_answer(answer: dict[str, Any]) -> dict[str, Any]:
    swap = {"white": "black", "black": "white"}
    return {"white": answer["black"], "black": answer["white"],
            "pavillon": swap.get(answer["pavillon"], answer["pavillon"]),
            "winner": swap.get(answer["winner"]) if answer["winner"] else None}


def test_there_are_seed_cases() -> None:
    ids = [p.id for p in _cases()]
    assert len(ids) >= 20 and len(set(ids)) == len(ids)


@pytest.mark.parametrize("case", _cases())
def test_seed_case(case: dict[str, Any]) -> None:
    game = score_throws({"throws": case["throws"]})
    assert game.score.to_json() == case["expect"], case["note"]
    if "bredouille_token" in case:
        marks = game.score.marks()
        got = {"white": marks.white.bredouille_token, "black": marks.black.bredouille_token}
        assert got == case["bredouille_token"], case["note"]
    if "winnings" in case:
        got_w = {s.value: str(game.score.winnings(s)) for s in WinningsScheme}
        assert got_w == case["winnings"], case["note"]


@pytest.mark.parametrize("case", _cases())
def test_seed_case_mirrored(case: dict[str, Any]) -> None:
    game = score_throws({"throws": _mirror_throws(case["throws"])})
    assert game.score.to_json() == _mirror_answer(case["expect"])
    assert game.score.mirror().mirror() == game.score
    if game.score.winner is not None:
        assert game.score.winner is Color(_mirror_answer(case["expect"])["winner"])
