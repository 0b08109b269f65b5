"""``tablier jans``: the JSON contract of design.md and the human dispute form."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tablier.engine import Color, Dice, jans, random_position

from tablier.cli import main
from tablier.commands.jans import answer, parse_request


def run_json(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             request: object) -> tuple[int, str, str]:
    text = request if isinstance(request, str) else json.dumps(request)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code = main(["jans", "--json", "-"])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract_true_hits(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B14
    #   .   .   .  B1   .   . |  .  W1   .  W1   . W13
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # Black's lone man on White's 9 is hit from 3 by the 6 and from 5 by the 4: 2 ways x 2.
    code, out, err = run_json(monkeypatch, capsys, {
        "white": {"1": 13, "3": 1, "5": 1}, "black": {"1": 14, "16": 1},
        "off": {"white": 0, "black": 0}, "to_move": "white", "dice": [6, 4], "throws": 3})
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "jans": [{"jan": "true_hit_grand_jan", "scorer": "white", "points": 4, "ways": 2}],
        "points": {"white": 4, "black": 0}}


def test_json_contract_defaults_and_opponent_points(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #  B2   .   .   .   .   . |  .   .   .   .   . B13
    #   .   .   .   .   .   . |  .   .   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # Black throws 6-1 with his two corner men out while White's corner is empty: mézéas for
    # Black ("white" omitted = a fresh talon; "to_move" black).
    code, out, _ = run_json(monkeypatch, capsys, {
        "black": {"1": 13, "12": 2}, "to_move": "black", "dice": [6, 1]})
    assert code == 0
    assert json.loads(out) == {
        "jans": [{"jan": "mezeas", "scorer": "black", "points": 4, "ways": 1}],
        "points": {"white": 0, "black": 4}}


@pytest.mark.parametrize(("request_text", "names"), [
    ('{"white": {"1": 15}}', "dice"),
    ('{"dice": [6, 7]}', "dice"),
    ('{"dice": "64"}', "dice"),
    ('{"white": {"25": 15}, "dice": [6, 4]}', "'25'"),
    ('{"white": {"1": -1}, "dice": [6, 4]}', "white.1"),
    ('{"to_move": "red", "dice": [6, 4]}', "to_move"),
    ('{"throws": 0, "dice": [6, 4]}', "throws"),
    ('{"off": {"white": 16}, "dice": [6, 4]}', "off.white"),
    ('{"colour": "white", "dice": [6, 4]}', "'colour'"),
    ('{"white": {"1": 16}, "dice": [6, 4]}', "TOO_MANY_WHITE"),
    ('{"white": {"1": 14, "12": 1}, "dice": [6, 4]}', "LONE_MAN_ON_CORNER"),
    ("[6, 4]", "JSON object"),
    ("{not json", "not JSON"),
])
def test_bad_requests_exit_2_with_one_line(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str],
                                           request_text: str, names: str) -> None:
    code, out, err = run_json(monkeypatch, capsys, request_text)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and names in err and "Traceback" not in err


def test_human_form_explains_every_jan(capsys: pytest.CaptureFixture[str]) -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B14
    #   .   .   .  B1   .   . |  .  W1   .  W1   . W13
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    assert main(["jans", "1x13,3,5/1x14,16 w", "64"]) == 0
    out = capsys.readouterr().out
    assert "W13" in out and "B14" in out                        # the board
    assert "true_hit_grand_jan (2 ways)" in out
    assert "directly with the 6 from 3" in out and "directly with the 4 from 5" in out
    assert out.rstrip().endswith("totals: white 4, black 0")


def test_human_form_explains_a_false_hit(capsys: pytest.CaptureFixture[str]) -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B10
    #   .  B1   .   .   .  B2 | B2  B2   .   .   . W15   (B2 on 5 and 7, B1 on 11)
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    assert main(["jans", "1x15/1x10,14,18x2,20x2 w", "6-4"]) == 0
    out = capsys.readouterr().out
    assert "false_hit_grand_jan" in out and "held by black" in out
    assert "totals: white 0, black 6" in out


def test_human_form_lists_the_plays(capsys: pytest.CaptureFixture[str]) -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .   .   . |  .   .   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    assert main(["jans", "1x15/1x15 w", "33", "--plays"]) == 0
    out = capsys.readouterr().out
    assert "2 legal plays" in out and "  1-4 1-4" in out and "  1-4 4-7" in out


def test_human_form_bad_notation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["jans", "1x15/1x15 q", "64"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "'q'" in captured.err and captured.err.count("\n") == 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31), st.integers(0, 120), st.integers(1, 6), st.integers(1, 6))
def test_the_json_answer_is_the_engine_s(seed: int, throws: int, a: int, b: int) -> None:
    position = random_position(random.Random(seed), throws)
    request = {"white": {str(f): n for f, n in position.men(Color.WHITE).items()},
               "black": {str(f): n for f, n in position.men(Color.BLACK).items()},
               "off": {"white": position.off_white, "black": position.off_black},
               "to_move": position.to_move.value, "dice": [a, b], "throws": 5}
    scores = jans(position, Dice(a, b), rolls_so_far=5)
    assert answer(parse_request(request)) == {
        "jans": [s.to_json() for s in scores],
        "points": {"white": sum(s.points for s in scores if s.player is Color.WHITE),
                   "black": sum(s.points for s in scores if s.player is Color.BLACK)}}


def test_the_console_script_reads_stdin() -> None:
    request = {"white": {"1": 13, "12": 2}, "dice": [1, 1]}
    done = subprocess.run([sys.executable, "-m", "tablier", "jans", "--json", "-"],
                          input=json.dumps(request), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["jans"] == [
        {"jan": "mezeas", "scorer": "white", "points": 6, "ways": 1}]
