"""LedMarkers on gpiozero's MockFactory: what the 74HC595 chain latches, /OE, the buttons.

A small model of the shift registers listens to the mock clock and latch pins, so the tests
check the LEDs that would actually light, not just that pins toggled.
"""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory, MockPin
from tablier.engine import Color, Marks, Pavillon, Score
from tablier.hardware import (
    Decision,
    DeviceClosed,
    EventKind,
    LedMarkers,
    MarkerEvent,
    MarkerValueError,
    Status,
    led_bits,
)
from tablier.hardware.leds import OUTPUTS, ShiftRegister

DATA, CLOCK, LATCH, ENABLE = 17, 27, 22, 18


class Chain:
    """Six 74HC595 in a chain: shift on SRCLK rising edges, copy to outputs on RCLK."""

    def __init__(self, factory: MockFactory) -> None:
        self.shift = [False] * OUTPUTS
        self.outputs = [False] * OUTPUTS
        self.data = factory.pin(DATA)
        chain = self

        class ClockPin(MockPin):
            def _change_state(self, value: bool) -> bool:
                changed = bool(super()._change_state(value))
                if changed and value:
                    chain.shift = [bool(chain.data.state)] + chain.shift[:-1]
                return changed

        class LatchPin(MockPin):
            def _change_state(self, value: bool) -> bool:
                changed = bool(super()._change_state(value))
                if changed and value:
                    chain.outputs = list(chain.shift)
                return changed

        factory.pin(CLOCK, pin_class=ClockPin)
        factory.pin(LATCH, pin_class=LatchPin)

    def lit(self, *, active_high: bool = True) -> list[int]:
        return [n for n, level in enumerate(self.outputs) if level == active_high]


def marks(white: Score, black: Score, pavillon: Pavillon = Pavillon.MIDDLE) -> Marks:
    return Marks.from_scores(white, black, pavillon)


def test_show_latches_the_expected_leds(mock_factory: MockFactory) -> None:
    chain = Chain(mock_factory)
    with LedMarkers(pin_factory=mock_factory) as leds:
        # White 8 points (jeton on field 7 -> output 3), 2 holes (output 7), carries the
        # pavillon (18); Black 2 points in bredouille (19 + 0, bredouille 24), 11 holes (35).
        leds.show(marks(Score(8, 2, False), Score(2, 11, True), Pavillon.WHITE),
                  status=Status.SCHOOL)
        assert chain.lit() == [3, 7, 18, 19, 24, 35, 40]
        assert leds.bits == tuple(n in (3, 7, 18, 19, 24, 35, 40) for n in range(OUTPUTS))
        leds.show(marks(Score(), Score()))
        assert chain.lit() == [38]  # only the pavillon in the middle


def test_every_output_can_be_lit_alone(mock_factory: MockFactory) -> None:
    chain = Chain(mock_factory)
    with LedMarkers(pin_factory=mock_factory) as leds:
        for n in range(OUTPUTS):
            leds.write_bits([i == n for i in range(OUTPUTS)])
            assert chain.lit() == [n]


def test_active_low_leds_get_inverted_outputs(mock_factory: MockFactory) -> None:
    chain = Chain(mock_factory)
    with LedMarkers(active_high=False, pin_factory=mock_factory) as leds:
        leds.show(marks(Score(4), Score()), status=Status.MARK)
        assert chain.lit(active_high=False) == [1, 38, 39]
        assert sum(chain.outputs) == OUTPUTS - 3


def test_output_enable_stays_off_until_the_first_latch(mock_factory: MockFactory) -> None:
    Chain(mock_factory)
    enable = mock_factory.pin(ENABLE)
    leds = LedMarkers(pin_factory=mock_factory)
    assert enable.state is True  # /OE high: outputs disabled (random power-up contents)
    leds.show(marks(Score(), Score()))
    assert enable.state is False
    leds.close()
    enable.assert_states([False, True, False, True])


def test_shift_register_clocks_one_pulse_per_bit(mock_factory: MockFactory) -> None:
    register = ShiftRegister(DATA, CLOCK, LATCH, pin_factory=mock_factory)
    clock, data, latch = (mock_factory.pin(p) for p in (CLOCK, DATA, LATCH))
    clock.clear_states()
    data.clear_states()
    latch.clear_states()
    register.write([True, False, False])  # shifted last bit first: 0, 0, 1
    clock.assert_states([False, True, False, True, False, True, False])
    assert len(clock.states) == 7
    data.assert_states([False, True])
    assert len(data.states) == 2
    latch.assert_states([False, True, False])
    register.close()


@pytest.mark.parametrize(("pin", "event"), [
    (5, MarkerEvent(EventKind.DECISION, Color.WHITE, Decision.STAY)),
    (6, MarkerEvent(EventKind.DECISION, Color.WHITE, Decision.GO)),
    (13, MarkerEvent(EventKind.DECISION, Color.BLACK, Decision.STAY)),
    (19, MarkerEvent(EventKind.DECISION, Color.BLACK, Decision.GO)),
    (26, MarkerEvent(EventKind.CORRECT)),
])
def test_buttons_report_events(mock_factory: MockFactory, pin: int,
                               event: MarkerEvent) -> None:
    with LedMarkers(bounce_time=None, pin_factory=mock_factory) as leds:
        assert leds.poll_events() == []
        button = mock_factory.pin(pin)
        button.drive_low()
        button.drive_high()
        assert leds.poll_events() == [event]
        assert leds.poll_events() == []


def test_close_is_idempotent_and_releases_the_pins(mock_factory: MockFactory) -> None:
    leds = LedMarkers(pin_factory=mock_factory)
    leds.close()
    leds.close()
    assert leds.closed
    with pytest.raises(DeviceClosed):
        leds.show(marks(Score(), Score()))
    with pytest.raises(DeviceClosed):
        leds.poll_events()
    # The pins are free again: a second display can claim them.
    LedMarkers(pin_factory=mock_factory).close()


def test_bad_input_is_refused_before_any_pin_moves(mock_factory: MockFactory) -> None:
    chain = Chain(mock_factory)
    with LedMarkers(pin_factory=mock_factory) as leds:
        leds.show(marks(Score(4), Score()))
        before = list(chain.outputs)
        with pytest.raises(MarkerValueError, match="status"):
            leds.show(marks(Score(), Score()), status="mark now")  # type: ignore[arg-type]
        with pytest.raises(MarkerValueError, match="48"):
            leds.write_bits([True] * 3)
        assert chain.outputs == before


def test_led_bits_matches_the_firmware_pixel_layout() -> None:
    from tablier.firmware import pegproto
    from tablier.hardware.peglink import marks_to_words

    m = marks(Score(10, 4, True), Score(6, 12, True), Pavillon.BLACK)
    state = pegproto.PegState()
    for word in marks_to_words(m, status=Status.IDLE).split():
        key, _, value = word.partition("=")
        checked = state.check(key, value)
        assert checked is not None
        state.values[key] = checked
    pixels = state.pixels()
    bits = led_bits(m)
    # Rails and the pavillon use the same order on both back ends (status differs).
    assert [bool(p != pegproto.OFF) for p in pixels[:39]] == list(bits[:39])
