"""The console and recording displays, and choosing a display from a URL."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from markers_support import wait_until
from tablier.engine import Color, Marks, Pavillon, PlayerMarks, Score
from tablier.hardware import (
    ConsoleMarkers,
    Decision,
    DeviceClosed,
    EventKind,
    LedMarkers,
    MarkerDisplay,
    MarkerEvent,
    MarkerValueError,
    PegLinkError,
    RecordingMarkers,
    SerialPegs,
    Status,
    markers_url,
    open_markers,
)
from tablier.hardware.console import draw


def test_console_draws_both_rails() -> None:
    out = io.StringIO()
    with ConsoleMarkers(out) as console:
        console.show(Marks.from_scores(Score(10, 11, True), Score(6, 2, True), Pavillon.BLACK),
                     status=Status.FALSE_MOVE)
        console.show(Marks.from_scores(Score(10, 11, True), Score(6, 2, True), Pavillon.BLACK),
                     status=Status.FALSE_MOVE)  # unchanged: not drawn again
    lines = out.getvalue().splitlines()
    assert lines == [
        " black  jeton  .  .  .  #  .  .   bredouille B   fichet .|.#..........|  2   pavillon P",
        " white  jeton  .  .  .  .  .  #   bredouille B   fichet .|..........#.| 11   pavillon .",
        "        spot   0  2  4  6  7 12                  hole    0 1........12",
        " pavillon: black   status: false move",
        "",
    ]


def test_console_says_where_the_pavillon_went() -> None:
    text = draw(Marks.from_scores(Score(), Score(), Pavillon.OUT))
    assert text.endswith("pavillon: laid beside the board   status: idle")


def test_recording_keeps_every_update_and_queued_events() -> None:
    rec = RecordingMarkers()
    first = Marks.from_scores(Score(2), Score())
    rec.show(first)
    rec.show(first, status=Status.SCHOOL)
    assert rec.shown == [(first, Status.IDLE), (first, Status.SCHOOL)]
    event = MarkerEvent(EventKind.DECISION, Color.BLACK, Decision.STAY)
    rec.press(event)
    assert rec.poll_events() == [event]
    assert rec.poll_events() == []
    rec.close()
    rec.close()
    with pytest.raises(DeviceClosed):
        rec.show(first)


@pytest.mark.parametrize("bad", [
    PlayerMarks(token_spot=3, bredouille_token=False, peg_hole=0, pavillon=False),
    PlayerMarks(token_spot=2, bredouille_token=False, peg_hole=13, pavillon=False),
])
def test_out_of_range_marks_are_refused_with_the_field_named(bad: PlayerMarks) -> None:
    good = Marks.from_scores(Score(), Score())
    marks = Marks(white=bad, black=good.black, pavillon=Pavillon.MIDDLE)
    for display in (RecordingMarkers(), ConsoleMarkers(io.StringIO())):
        with pytest.raises(MarkerValueError, match="white (token_spot|peg_hole)"):
            display.show(marks)
        assert isinstance(display, MarkerDisplay)


def test_both_players_cannot_carry_the_pavillon() -> None:
    one = Marks.from_scores(Score(), Score(), Pavillon.WHITE)
    both = Marks(white=one.white, black=PlayerMarks(0, False, 0, True), pavillon=Pavillon.WHITE)
    with pytest.raises(MarkerValueError, match="both"):
        RecordingMarkers().show(both)


@pytest.mark.parametrize(("url", "kind"), [
    ("console:", ConsoleMarkers),
    ("console://", ConsoleMarkers),
    ("record:", RecordingMarkers),
    ("RECORD://", RecordingMarkers),
])
def test_open_markers_picks_the_back_end(url: str, kind: type) -> None:
    with open_markers(url) as display:
        assert isinstance(display, kind)


def test_open_markers_gpio_uses_the_pin_factory(mock_factory: object) -> None:
    with open_markers("gpio:") as display:
        assert isinstance(display, LedMarkers)


def test_open_markers_default_reads_the_environment_at_call_time(
        monkeypatch: pytest.MonkeyPatch, sim_url: Callable[..., str]) -> None:
    monkeypatch.setenv("TRICTRAC_MARKERS", "record:")
    with open_markers() as display:
        assert isinstance(display, RecordingMarkers)
    monkeypatch.delenv("TRICTRAC_MARKERS")
    assert markers_url() == "pegsim://"
    url = sim_url()
    monkeypatch.setenv("TRICTRAC_MARKERS", url)
    with open_markers() as display:
        assert isinstance(display, SerialPegs)
        assert display.url == url
        display.wait_connected(5.0)


@pytest.mark.parametrize(("url", "message"), [
    ("lcd://", "unknown scheme 'lcd'"),
    ("nothing", "has no scheme"),
    ("console:extra", "takes no path"),
    ("serial://", "names no serial device"),
    ("pegsim://x?colour=red", "unknown pegsim option 'colour'"),
    ("pegsim://x?fail=melt", "fail='melt'"),
])
def test_open_markers_refuses_bad_urls(url: str, message: str) -> None:
    with pytest.raises(MarkerValueError, match=message):
        open_markers(url)


def test_serial_url_with_a_missing_device_does_not_block() -> None:
    with open_markers("serial:///dev/tablier-no-such-port") as display:
        assert isinstance(display, SerialPegs)
        display.show(Marks.from_scores(Score(), Score()))  # returns at once
        assert not display.synced
        assert wait_until(lambda: display.last_error is not None)
        assert "no-such-port" in str(display.last_error)
        with pytest.raises(PegLinkError, match="no-such-port"):
            display.wait_connected(0.1)


def test_reopening_a_simulator_with_other_options_warns(sim_url: Callable[..., str]) -> None:
    from tablier.hardware import HardwareWarning, pegsim
    url = sim_url()
    with pytest.warns(HardwareWarning, match="options .* are ignored"):
        pegsim.create(url + "?fail=drop")
    assert pegsim.device(pegsim.parse_url(url)[0]).fail is None
