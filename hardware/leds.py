"""Marker LEDs on the Pi's header: six 74HC595 shift registers and five buttons (gpiozero).

Wiring (BCM numbering; full parts list and drawing in ``docs/hardware.md``):

- GPIO17 -> SER (pin 14) of the first 74HC595; each chip's QH' (pin 9) -> SER of the next.
- GPIO27 -> SRCLK (pin 11) of every chip; GPIO22 -> RCLK (pin 12, latch) of every chip.
- GPIO18 -> /OE (pin 13) of every chip, with a 10 kOhm pull-up to 3V3 so the LEDs stay dark
  from power-up until the first state is latched (the 595's registers power up random).
- /SRCLR (pin 10) to 3V3, VCC to 3V3, GND to GND, 100 nF across each chip's supply.
- Each output -> 1 kOhm -> LED anode, cathode to GND: active-high (pass ``active_high=False``
  when the LEDs are wired from 3V3 into the outputs instead).
- Buttons between the GPIO and GND, internal pull-ups: GPIO5 white tenir, GPIO6 white s'en
  aller, GPIO13 black tenir, GPIO19 black s'en aller, GPIO26 "correct me".

Output layout (bit n = chip n // 8, output QA + n % 8), the same order as the peg driver's
pixels: 0..18 White's rail (jeton spots 2, 4, 6, 7, 12; bredouille; holes 1..12; pavillon),
19..37 Black's rail, 38 the pavillon in the middle, 39..43 status (mark, school, re-roll,
false move, decide), 44..47 spare.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpiozero import Button, DigitalOutputDevice
from gpiozero.pins import Factory
from tablier.engine import Color, Marks, Pavillon
from tablier.hardware.base import (
    LIT_SPOTS,
    Decision,
    DisplayBase,
    EventKind,
    MarkerEvent,
    MarkerValueError,
    Status,
    check_marks,
    check_status,
)

RAIL = 19
"""Outputs per player: 5 jeton spots, the bredouille jeton, 12 holes, the pavillon."""
CHIPS = 6
"""74HC595 chips in the chain."""
OUTPUTS = 8 * CHIPS
BIT_MIDDLE = 2 * RAIL
STATUS_BITS: dict[Status, int] = {Status.MARK: 39, Status.SCHOOL: 40, Status.REROLL: 41,
                                  Status.FALSE_MOVE: 42, Status.DECIDE: 43}


def led_bits(marks: Marks, *, status: Status = Status.IDLE) -> tuple[bool, ...]:
    """Which of the 48 outputs are lit for a state (True = lit, before any inversion).

    Args:
        marks: the target state of every marker.
        status: the status LED to light (none for IDLE).

    Returns:
        48 booleans, output 0 first.

    Raises:
        MarkerValueError: if ``marks`` or ``status`` is out of range.

    >>> from tablier.engine import Score
    >>> bits = led_bits(Marks.from_scores(Score(4, 1), Score()), status=Status.MARK)
    >>> [n for n, lit in enumerate(bits) if lit]
    [1, 6, 38, 39]
    """
    check_marks(marks)
    check_status(status)
    bits = [False] * OUTPUTS
    for base, player in ((0, marks.white), (RAIL, marks.black)):
        if player.token_spot in LIT_SPOTS:
            bits[base + LIT_SPOTS.index(player.token_spot)] = True
        bits[base + 5] = player.bredouille_token
        if player.peg_hole > 0:
            bits[base + 5 + player.peg_hole] = True
        bits[base + 18] = player.pavillon
    bits[BIT_MIDDLE] = marks.pavillon is Pavillon.MIDDLE
    if status in STATUS_BITS:
        bits[STATUS_BITS[status]] = True
    return tuple(bits)


class ShiftRegister:
    """A chain of 74HC595 driven by three gpiozero :class:`DigitalOutputDevice`.

    Wiring: ``data_pin`` -> SER, ``clock_pin`` -> SRCLK, ``latch_pin`` -> RCLK (all chips),
    active-high logic, no resistors needed on these lines.

    Args:
        data_pin: BCM pin to SER.
        clock_pin: BCM pin to SRCLK.
        latch_pin: BCM pin to RCLK.
        pin_factory: passed to every gpiozero device (None = gpiozero's default).
    """

    def __init__(self, data_pin: int, clock_pin: int, latch_pin: int, *,
                 pin_factory: Factory | None = None) -> None:
        self._devices: list[DigitalOutputDevice] = []
        try:
            self.data = self._add(DigitalOutputDevice(data_pin, pin_factory=pin_factory))
            self.clock = self._add(DigitalOutputDevice(clock_pin, pin_factory=pin_factory))
            self.latch = self._add(DigitalOutputDevice(latch_pin, pin_factory=pin_factory))
        except Exception:
            self.close()
            raise

    def _add(self, device: DigitalOutputDevice) -> DigitalOutputDevice:
        self._devices.append(device)
        return device

    def write(self, bits: Sequence[bool]) -> None:
        """Shift ``bits`` out (last bit first) and latch them onto the outputs.

        Args:
            bits: output 0 first; output n ends on chip n // 8, pin QA + n % 8.

        Raises:
            gpiozero.GPIODeviceClosed: after :meth:`close`.
        """
        self.latch.off()
        for bit in reversed(bits):
            self.data.value = bool(bit)
            self.clock.on()
            self.clock.off()
        self.latch.on()
        self.latch.off()

    def close(self) -> None:
        """Release the three pins (idempotent).

        Raises:
            Nothing.
        """
        for device in self._devices:
            device.close()


class LedMarkers(DisplayBase):
    """Markers as LEDs behind six 74HC595, and five buttons, on a Raspberry Pi.

    Wiring: see the module docstring (GPIO17 SER, GPIO27 SRCLK, GPIO22 RCLK, GPIO18 /OE with a
    10 kOhm pull-up; 1 kOhm per LED; buttons to GND on GPIO5, 6, 13, 19, 26).

    Args:
        data_pin: BCM pin to SER of the first chip.
        clock_pin: BCM pin to SRCLK.
        latch_pin: BCM pin to RCLK.
        enable_pin: BCM pin to /OE (active-low), or None when /OE is tied to GND.
        buttons: BCM pins of (white tenir, white s'en aller, black tenir, black s'en aller,
            correct me); None for no buttons.
        active_high: True when an output at 3V3 lights its LED.
        bounce_time: button debounce in seconds.
        pin_factory: passed to every gpiozero device.

    Raises:
        gpiozero.GPIOZeroError: if a pin is unknown or already in use.
    """

    def __init__(self, *, data_pin: int = 17, clock_pin: int = 27, latch_pin: int = 22,
                 enable_pin: int | None = 18,
                 buttons: tuple[int, int, int, int, int] | None = (5, 6, 13, 19, 26),
                 active_high: bool = True, bounce_time: float | None = 0.03,
                 pin_factory: Factory | None = None) -> None:
        super().__init__()
        self._active_high = active_high
        self._buttons: list[Button] = []
        self._enable: DigitalOutputDevice | None = None
        self._register = ShiftRegister(data_pin, clock_pin, latch_pin, pin_factory=pin_factory)
        try:
            if enable_pin is not None:
                # NOTE: /OE is active-low; the device starts "off" (outputs disabled) and is
                # switched on only after the first latch, so no random LED flashes at boot.
                self._enable = DigitalOutputDevice(enable_pin, active_high=False,
                                                   initial_value=False, pin_factory=pin_factory)
            if buttons is not None:
                actions = [
                    MarkerEvent(EventKind.DECISION, Color.WHITE, Decision.STAY),
                    MarkerEvent(EventKind.DECISION, Color.WHITE, Decision.GO),
                    MarkerEvent(EventKind.DECISION, Color.BLACK, Decision.STAY),
                    MarkerEvent(EventKind.DECISION, Color.BLACK, Decision.GO),
                    MarkerEvent(EventKind.CORRECT),
                ]
                for pin, event in zip(buttons, actions, strict=True):
                    button = Button(pin, pull_up=True, bounce_time=bounce_time,
                                    pin_factory=pin_factory)
                    button.when_pressed = self._poster(event)
                    self._buttons.append(button)
        except Exception:
            self.close()
            raise
        self.bits: tuple[bool, ...] = (False,) * OUTPUTS
        """The outputs as last latched (True = lit)."""

    def _poster(self, event: MarkerEvent) -> object:
        def post() -> None:
            self._post(event)
        return post

    def write_bits(self, bits: Sequence[bool]) -> None:
        """Latch raw outputs (``markers test`` uses it to light one LED at a time).

        Args:
            bits: 48 booleans, True = lit.

        Raises:
            DeviceClosed: after :meth:`close`.
            MarkerValueError: if there are not 48 of them.
        """
        self._check_open()
        if len(bits) != OUTPUTS:
            raise MarkerValueError(f"expected {OUTPUTS} outputs, not {len(bits)}")
        self.bits = tuple(bool(b) for b in bits)
        self._register.write([b == self._active_high for b in self.bits])
        if self._enable is not None and not self._enable.is_active:
            self._enable.on()

    def show(self, marks: Marks, *, status: Status = Status.IDLE) -> None:
        """Light the LEDs for a state (takes about 150 pin writes, well under 10 ms).

        Args:
            marks: the target state of every marker.
            status: the status LED.

        Raises:
            DeviceClosed: after :meth:`close`.
            MarkerValueError: if ``marks`` or ``status`` is out of range.
        """
        self._check_open()
        self.write_bits(led_bits(marks, status=status))

    def close(self) -> None:
        """Darken the LEDs and release every pin (idempotent).

        Raises:
            Nothing.
        """
        if self.closed:
            return
        for button in self._buttons:
            button.close()
        if self._enable is not None:
            self._enable.off()
            self._enable.close()
        self._register.close()
        super().close()
