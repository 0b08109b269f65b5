"""Recorded serial transcripts (fixtures/serial/): the host writes exactly what they say, and the
firmware's protocol code answers exactly what they say."""

from __future__ import annotations

import pytest
from markers_support import ScriptedPort, read_transcript
from tablier.engine import Marks, Pavillon, Score
from tablier.firmware import pegproto
from tablier.hardware import PegLink, PegProtocolError, PegTimeoutError, Status, marks_to_words


@pytest.mark.parametrize("name", ["handshake", "game", "errors"])
def test_device_answers_as_recorded(name: str) -> None:
    device = pegproto.Device(1)
    got = [device.banner()]
    expected: list[str] = []
    for step in read_transcript(name):
        if step.direction == "<":
            expected.append(step.data.decode().rstrip("\n"))
        else:
            got.extend(device.feed(step.data))
    assert got == expected


def scripted(name: str) -> ScriptedPort:
    """A port that expects the host lines of a transcript and answers its device lines."""
    port = ScriptedPort()
    steps = read_transcript(name)
    banner = steps.pop(0)
    port.feed(banner.data)
    while steps:
        sent = steps.pop(0)
        assert sent.direction == ">"
        replies = []
        while steps and steps[0].direction == "<":
            replies.append(steps.pop(0).data.decode().rstrip("\n"))
        port.expect(sent.data.decode().rstrip("\n"), replies)
    return port


def test_host_handshake_matches_the_transcript() -> None:
    port = scripted("handshake")
    seen: list[tuple[str, str, str]] = []
    link = PegLink(port, on_unsolicited=lambda *line: seen.append(line))  # type: ignore[arg-type]
    link.pump()
    assert seen == [("boot", "", "tablier-pegs proto=1 fw=1.0 id=0001")]
    assert link.command("HELLO 1").startswith("HELLO tablier-pegs proto=1")
    assert link.command("GET").startswith("STATE wt=0")
    link.command("SET " + marks_to_words(Marks.from_scores(Score(), Score())))
    link.command("SET " + marks_to_words(Marks.from_scores(Score(4), Score()),
                                         status=Status.MARK))
    assert link.command("GET") == "STATE wt=4 wb=0 wh=0 bt=0 bb=0 bh=0 pav=M st=MARK id=0001"
    assert link.command("PING") == "PONG"
    port.assert_done()


def test_host_game_updates_match_the_transcript() -> None:
    port = scripted("game")
    link = PegLink(port)
    link.command("HELLO 1")
    updates = [
        (Marks.from_scores(Score(4, 0, True), Score(0, 0, True)), Status.MARK),
        (Marks.from_scores(Score(4, 0, True), Score(2, 0, False)), Status.MARK),
        (Marks.from_scores(Score(0, 2, True), Score(2, 0, False), Pavillon.WHITE),
         Status.DECIDE),
        (Marks.from_scores(Score(0, 2, True), Score(2, 0, False), Pavillon.WHITE),
         Status.DECIDE),
        (Marks.from_scores(Score(0, 2, True), Score(8, 0, False), Pavillon.WHITE),
         Status.SCHOOL),
        (Marks.from_scores(Score(0, 2, True), Score(8, 0, False), Pavillon.WHITE),
         Status.REROLL),
        (Marks.from_scores(Score(0, 2, True), Score(8, 0, False), Pavillon.WHITE),
         Status.FALSE_MOVE),
        (Marks.from_scores(Score(6, 12, False), Score(10, 11, False), Pavillon.OUT),
         Status.IDLE),
    ]
    for marks, status in updates:
        assert link.command("SET " + marks_to_words(marks, status=status)) == "SET"
    link.command("TEST 5")
    assert link.command("GET").startswith("STATE wt=6 wb=0 wh=12")
    link.command("TEST OFF")
    link.command("GET")
    port.assert_done()


def test_host_resends_after_a_corrupted_reply_and_ignores_the_late_one() -> None:
    ok1 = pegproto.frame("ok 1 PONG")
    port = ScriptedPort()
    port.expect(pegproto.frame("1 PING"), [ok1[:-1] + ("0" if ok1[-1] != "0" else "1")])
    port.expect(pegproto.frame("2 PING"), [ok1, pegproto.frame("ok 2 PONG")])
    link = PegLink(port)
    assert link.command("PING", timeout=0.05, retries=1) == "PONG"
    assert link.resends == 1
    assert link.bad_lines == 1
    port.assert_done()


def test_host_resends_when_the_device_could_not_read_the_line() -> None:
    port = ScriptedPort()
    port.expect(pegproto.frame("1 GET"), [pegproto.frame("err - 1 bad checksum")])
    port.expect(pegproto.frame("2 GET"), [pegproto.frame("ok 2 STATE wt=0")])
    assert PegLink(port).command("GET", timeout=0.05) == "STATE wt=0"
    port.assert_done()


def test_an_err_reply_to_this_command_is_raised_not_retried() -> None:
    port = ScriptedPort()
    port.expect(pegproto.frame("1 HELLO 1"),
                [pegproto.frame("err 1 6 protocol version not supported: device speaks 2")])
    with pytest.raises(PegProtocolError, match="device speaks 2"):
        PegLink(port).command("HELLO 1")
    port.assert_done()


def test_silence_times_out_after_every_retry() -> None:
    port = ScriptedPort()
    for seq in (1, 2, 3):
        port.expect(pegproto.frame(f"{seq} PING"), [])
    with pytest.raises(PegTimeoutError, match="3 attempts"):
        PegLink(port).command("PING", timeout=0.02, retries=2)
    port.assert_done()


def test_events_and_a_boot_banner_during_a_command_are_passed_on() -> None:
    port = ScriptedPort()
    seen: list[tuple[str, str, str]] = []
    port.expect(pegproto.frame("1 SET st=MARK"), [pegproto.frame("evt 4 DECIDE B GO"),
                                                 pegproto.frame("boot tablier-pegs id=0BAD")])
    port.expect(pegproto.frame("2 SET st=MARK"), [pegproto.frame("ok 2 SET")])
    link = PegLink(port, on_unsolicited=lambda *line: seen.append(line))  # type: ignore[arg-type]
    assert link.command("SET st=MARK", timeout=0.05) == "SET"
    assert seen == [("evt", "4", "DECIDE B GO"), ("boot", "", "tablier-pegs id=0BAD")]
    port.assert_done()
