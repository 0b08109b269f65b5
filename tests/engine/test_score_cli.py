"""`tablier marks`: the design.md contract and its bad input (exit 2, one line, no stdout)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import Any

import pytest

from tablier.cli import main

DESIGN_REQUEST = {"throws": [
    {"by": "white", "gains": {"white": 8, "black": 0}},
    {"by": "black", "gains": {"white": 0, "black": 10}},
    {"by": "white", "gains": {"white": 26, "black": 12}, "decision": "stay"},
]}


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], request: Any,
         *args: str) -> tuple[int, str, str]:
    text = request if isinstance(request, str) else json.dumps(request)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code = main(["marks", *args, "-"])
    out, err = capsys.readouterr()
    return code, out, err


def test_design_request_answer_shape(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(monkeypatch, capsys, DESIGN_REQUEST, "--json")
    assert code == 0 and err == ""
    answer = json.loads(out)
    assert list(answer) == ["white", "black", "pavillon", "winner"]
    assert list(answer["white"]) == ["holes", "points", "bredouille"]
    assert answer["white"] == {"holes": 3, "points": 0, "bredouille": False}
    assert answer["black"] == {"holes": 2, "points": 0, "bredouille": False}
    assert answer["winner"] is None
    assert out.count("\n") == 1


def test_empty_request_is_the_start(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(monkeypatch, capsys, {"throws": []}, "--json")
    assert code == 0 and json.loads(out) == {
        "white": {"holes": 0, "points": 0, "bredouille": False},
        "black": {"holes": 0, "points": 0, "bredouille": False},
        "pavillon": "middle", "winner": None}


def test_human_form_and_events(monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(monkeypatch, capsys, DESIGN_REQUEST)
    assert code == 0 and out.splitlines()[0] == "white: 3 holes, 0 points (jeton by the talons)"
    code, out, _ = _run(monkeypatch, capsys, DESIGN_REQUEST, "--events")
    kinds = [json.loads(line)["kind"] for line in out.splitlines()]
    assert kinds.count("hole") == 3 and "decision" in kinds


BAD = [
    ({"throws": [{"by": "white", "gains": {"white": 3}}]}, "throws[0].gains.white", "3"),
    ({"throws": [{"by": "white", "gains": {"black": -2}}]}, "throws[0].gains.black", "-2"),
    ({"throws": [{"by": "white", "gains": {"white": 4}, "decision": "go"}]},
     "throws[0].decision", "'go'"),
    ({"throws": [{"by": "white", "gains": {"white": 4}, "decision": "later"}]},
     "throws[0].decision", '"later"'),
    ({"throws": [{"by": "red", "gains": {"white": 4}}]}, "throws[0].by", '"red"'),
    ({"throws": [{"by": "white", "gains": {"green": 4}}]}, "throws[0].gains key", '"green"'),
    ({"throws": [{"by": "white", "gains": {"white": 4}, "dice": [6, 4]}]}, "throws[0]",
     "'dice'"),
    ({"throws": [], "score": {}}, "request", "'score'"),
    ({"throws": [{"by": "white"}]}, "throws[0].gains", "missing"),
    ({"throws": [{"by": "white", "gains": {"white": True}}]}, "throws[0].gains.white", "true"),
    ({"throws": [{"by": "white", "gains": {"white": 4.0}}]}, "throws[0].gains.white", "4.0"),
    ({"throws": {"by": "white"}}, "throws", "expected a list"),
    ({"throws": [{"by": "white", "gains": {"white": 72}},
                 {"by": "black", "gains": {"black": 2}}]}, "throws[1]", "over"),
    # Seeds (Points, holes and jans): "When the peg of either player reaches the twelfth hole,
    # the match is over": no tenir / s'en aller is left to decide on the winning throw.
    ({"throws": [{"by": "white", "gains": {"white": 72}, "decision": "go"}]},
     "throws[0].decision", "'go'"),
    ({"throws": [{"by": "white", "gains": {"white": 72}, "decision": "stay"}]},
     "throws[0].decision", "'stay'"),
    ("[1, 2", "request", "not JSON"),
    ("[]", "request", "[]"),
]


@pytest.mark.parametrize("request_, field, value", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_input_one_line_exit_2(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str], request_: Any,
                                   field: str, value: str) -> None:
    code, out, err = _run(monkeypatch, capsys, request_, "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("tablier marks: ")
    assert field in err and value in err


def test_real_process_exit_status_and_streams() -> None:
    bad = json.dumps({"throws": [{"by": "white", "gains": {"white": 5}}]})
    done = subprocess.run([sys.executable, "-m", "tablier", "marks", "--json", "-"], input=bad,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr and "5 is odd" in done.stderr
    good = subprocess.run([sys.executable, "-m", "tablier", "marks", "--json", "-"],
                          input=json.dumps(DESIGN_REQUEST), capture_output=True, text=True,
                          timeout=60, check=False)
    assert good.returncode == 0 and json.loads(good.stdout)["white"]["holes"] == 3
