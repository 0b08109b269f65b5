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


def drawn_fields(drawing: str) -> dict[int, str]:
    """Read a board drawing back: each printed field number -> the cell drawn in its column."""
    lines = drawing.splitlines()
    rules = [i for i, line in enumerate(lines) if line.strip().startswith("---")]
    fields: dict[int, str] = {}
    for numbers, cells in ((lines[rules[0] - 1], lines[rules[0] + 1]),
                           (lines[rules[1] + 1], lines[rules[1] - 1])):
        printed = [t for t in numbers.split() if t != "|"][:12]
        drawn = [t for t in cells.split() if t != "|"]
        assert len(drawn) == 12, cells
        fields.update(zip(map(int, printed), drawn, strict=True))
    return fields


def test_human_form_draws_black_to_move_in_blacks_numbering(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Seen from Black's seat (the board turned round, Black's side the bottom row):
    #  24  23  22  21  20  19 | 18  17  16  15  14  13   (Black's numbering)
    # W13   .   .   .   .   . |  .   .  W1   .  W1   .
    # B12   .   .   .   .   . |  .   .   .  B1   .  B2
    #   1   2   3   4   5   6 |  7   8   9  10  11  12
    assert main(["jans", "1x13,9,11/1x12,10,12x2 b", "42"]) == 0
    out = capsys.readouterr().out
    fields = drawn_fields(out)
    # Black's man on his 10 (White's 15) is drawn on the field printed 10, next to the reason
    assert fields[10] == "B1" and fields[15] == "."
    assert fields[1] == "B12" and fields[12] == "B2"
    # White's lone men on White's 9 and 11 are Black's 16 and 14, as the reason says
    assert fields[14] == "W1" and fields[16] == "W1" and fields[24] == "W13"
    assert "black hits white's lone man on 14 (white's 11)" in out
    assert "Black's numbering" in out and "White's numbering" not in out
    assert "seen from Black's seat: B = Black's men" in out


def test_human_form_draws_white_to_move_in_whites_numbering(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["jans", "1x13,3,5/1x14,16 w", "64"]) == 0
    out = capsys.readouterr().out
    fields = drawn_fields(out)
    assert fields[1] == "W13" and fields[3] == "W1" and fields[5] == "W1"
    assert fields[9] == "B1" and fields[24] == "B14"
    assert "White's numbering" in out and "Black's numbering" not in out


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


def test_human_form_flags_apply_to_a_json_position(capsys: pytest.CaptureFixture[str]) -> None:
    # Two men on 20, 13 off: the 6 overshoots. Quick method: both go off (first off); with
    # --provincial only the exact 5 bears off and the 6 is a helpless man.
    request = '{"white": {"20": 2}, "black": {"7": 15}, "off": {"white": 13}}'
    assert main(["jans", request, "65", "--provincial"]) == 0
    out = capsys.readouterr().out
    assert "helpless_man" in out and "first_off" not in out
