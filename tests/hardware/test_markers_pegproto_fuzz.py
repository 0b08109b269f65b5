"""The firmware's parser under hypothesis: nothing escapes, every reply is bounded and framed,
one reply per line, and SET is absolute (applying it twice changes nothing)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tablier.firmware import pegproto

KEY_VALUES = {
    "wt": st.sampled_from(["0", "2", "4", "6", "7", "12"]),
    "wb": st.sampled_from(["0", "1"]),
    "wh": st.integers(0, 12).map(str),
    "bt": st.sampled_from(["0", "2", "4", "6", "7", "12"]),
    "bb": st.sampled_from(["0", "1"]),
    "bh": st.integers(0, 12).map(str),
    "pav": st.sampled_from(pegproto.PAVILLON),
    "st": st.sampled_from(pegproto.STATUSES),
}

words = st.fixed_dictionaries({}, optional=KEY_VALUES).filter(bool)
seqs = st.integers(0, 65535)


def lines_of(data: bytes) -> int:
    """How many replies the protocol owes for this input: one per non-empty terminated line."""
    count = 0
    for line in data.split(b"\n")[:-1]:
        if line.replace(b"\r", b""):
            count += 1
    return count


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_never_raise_and_replies_are_bounded(data: bytes) -> None:
    device = pegproto.Device(7)
    replies = device.feed(data)
    assert len(replies) == lines_of(data)
    for reply in replies:
        assert len(reply) <= pegproto.MAX_REPLY
        parsed = pegproto.parse_reply(reply)
        assert parsed is not None and parsed[0] in ("ok", "err")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(
    st.builds(lambda s, w: pegproto.frame(f"{s} SET " + " ".join(f"{k}={v}" for k, v in w.items())),
              seqs, words),
    st.builds(lambda s, c: pegproto.frame(f"{s} {c}"), seqs,
              st.sampled_from(["GET", "PING", "HELLO", "HELLO 1", "HELLO 9", "TEST 3",
                               "TEST OFF", "TEST 99", "SET", "SET x", "NOPE"])),
    st.text(st.characters(min_codepoint=1, max_codepoint=127), max_size=150),
), max_size=20), st.integers(1, 7))
def test_command_streams_split_anywhere(lines: list[str], cut: int) -> None:
    data = ("\n".join(lines) + "\n").encode()
    whole = pegproto.Device(3)
    expected = whole.feed(data)
    pieces = pegproto.Device(3)
    got: list[str] = []
    for start in range(0, len(data), cut):
        got.extend(pieces.feed(data[start:start + cut]))
    assert got == expected
    assert pieces.state.encode() == whole.state.encode()
    for reply in got:
        assert len(reply) <= pegproto.MAX_REPLY
        parsed = pegproto.parse_reply(reply)
        assert parsed is not None
        kind, seq, _ = parsed
        assert kind in ("ok", "err") and (seq == "-" or seq.isdigit())


@settings(max_examples=200, deadline=None)
@given(words, words, seqs)
def test_set_is_absolute_and_idempotent(first: dict[str, str], second: dict[str, str],
                                        seq: int) -> None:
    device = pegproto.Device(1)
    line = pegproto.frame(f"{seq} SET " + " ".join(f"{k}={v}" for k, v in first.items()))
    assert device.feed((line + "\n").encode()) == [pegproto.frame(f"ok {seq} SET")]
    once = device.state.encode()
    device.feed((line + "\n").encode())  # a resend
    assert device.state.encode() == once
    for key, value in first.items():
        assert f"{key}={value}" in once.split()
    # A second SET only changes its own keys.
    device.feed((pegproto.frame("1 SET " + " ".join(f"{k}={v}" for k, v in second.items()))
                 + "\n").encode())
    for key, value in {**first, **second}.items():
        assert f"{key}={second.get(key, value)}" in device.state.encode().split()


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=80),
       st.integers(0, 79), st.integers(1, 127))
def test_any_single_byte_change_is_caught_by_the_checksum(body: str, where: int,
                                                          flip: int) -> None:
    line = bytearray(pegproto.frame(body).encode())
    where %= len(line)
    line[where] ^= flip
    text = line.decode("latin-1")
    assert pegproto.unframe(text) is None


def test_refused_set_leaves_the_state_alone() -> None:
    device = pegproto.Device(1)
    device.feed((pegproto.frame("1 SET wt=4 st=MARK") + "\n").encode())
    before = device.state.encode()
    replies = device.feed((pegproto.frame("2 SET wt=6 wh=13") + "\n").encode())
    assert replies == [pegproto.frame("err 2 5 bad value: wh")]
    assert device.state.encode() == before


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=6))
def test_host_link_survives_any_device_output(noise: list[bytes]) -> None:
    from markers_support import ScriptedPort
    from tablier.hardware import PegError, PegLink

    port = ScriptedPort()
    port.expect_raw(pegproto.frame("1 PING"), b"\n".join(noise))
    port.expect(pegproto.frame("2 PING"), [])
    link = PegLink(port)
    try:
        reply = link.command("PING", timeout=0.0, retries=1)
    except PegError:
        return
    assert isinstance(reply, str)


def _crc16_bitwise(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


@given(st.binary(max_size=200))
def test_table_crc_equals_the_bitwise_definition(data: bytes) -> None:
    assert pegproto.crc16(data) == _crc16_bitwise(data)
