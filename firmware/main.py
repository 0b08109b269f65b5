"""tablier peg driver firmware: MicroPython on a Raspberry Pi Pico (RP2040).

Copy ``pegproto.py`` and this file to the board (``mpremote cp pegproto.py main.py :``).
It speaks the protocol of PROTOCOL.md on the USB serial port and shows the markers on a WS2812
strip laid along both rails; five buttons report the players' decisions.

Wiring (Pico GP numbers; see docs/hardware.md):

- GP16 -> 330 Ohm -> DIN of the WS2812 strip (40 pixels: White's rail, Black's rail, the
  middle pavillon, the status pixel). Strip 5 V from VBUS, 1000 uF across it at the strip.
- Buttons to GND, internal pull-ups: GP10 white tenir, GP11 white s'en aller, GP12 black
  tenir, GP13 black s'en aller, GP14 "correct me".
- Optional: GP15 -> a hobby servo's signal wire for the pavillon flag (set SERVO_PIN).
"""

import sys

import pegproto

STRIP_PIN = 16
BUTTON_PINS = (
    (10, "DECIDE W STAY"),
    (11, "DECIDE W GO"),
    (12, "DECIDE B STAY"),
    (13, "DECIDE B GO"),
    (14, "CORRECT"),
)
SERVO_PIN = None
SERVO_ANGLES = {"M": 90, "W": 30, "B": 150, "O": 0}
DEBOUNCE_MS = 30


class Servo:
    """A hobby servo on a PWM pin (50 Hz, 0.5..2.5 ms pulses)."""

    def __init__(self, pwm):
        self.pwm = pwm
        self.pwm.freq(50)
        self.angle = None

    def move(self, angle):
        if angle == self.angle:
            return
        self.angle = angle
        pulse_us = 500 + angle * 2000 // 180
        self.pwm.duty_ns(pulse_us * 1000)


class Firmware:
    """The device: protocol, strip, buttons and servo, with no I/O of its own.

    ``strip`` is anything with ``__setitem__`` and ``write()`` (a ``neopixel.NeoPixel``);
    ``buttons`` a list of (pin, event text) where ``pin.value()`` is 0 when pressed; ``send``
    writes one line to the host; ``ticks_ms`` and ``ticks_diff`` come from ``time``.
    """

    def __init__(self, strip, buttons, send, ticks_ms, ticks_diff, servo=None, boot_id=1):
        self.device = pegproto.Device(boot_id)
        self.strip = strip
        self.buttons = buttons
        self.send = send
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        self.servo = servo
        self.pressed = [False] * len(buttons)
        self.changed_at = [0] * len(buttons)
        self.shown = -1

    def boot(self):
        self.render()
        self.send(self.device.banner())

    def feed(self, data):
        for reply in self.device.feed(data):
            self.send(reply)
        if self.device.changes != self.shown:
            self.render()

    def render(self):
        self.shown = self.device.changes
        pixels = self.device.state.pixels()
        for index in range(len(pixels)):
            self.strip[index] = pixels[index]
        self.strip.write()
        if self.servo is not None:
            self.servo.move(SERVO_ANGLES[self.device.state.values["pav"]])

    def poll_buttons(self):
        now = self.ticks_ms()
        for index in range(len(self.buttons)):
            pin, text = self.buttons[index]
            down = pin.value() == 0
            if down == self.pressed[index]:
                continue
            if self.ticks_diff(now, self.changed_at[index]) < DEBOUNCE_MS:
                continue
            self.pressed[index] = down
            self.changed_at[index] = now
            if down:
                self.send(self.device.event(text))


def run():
    """Boot the board and serve the host for ever."""
    import select
    import time

    import machine
    import micropython
    import neopixel

    # NOTE: a 0x03 byte in line noise would otherwise raise KeyboardInterrupt and stop us.
    micropython.kbd_intr(-1)
    strip = neopixel.NeoPixel(machine.Pin(STRIP_PIN), pegproto.PIXELS)
    buttons = [(machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_UP), text)
               for pin, text in BUTTON_PINS]
    servo = None
    if SERVO_PIN is not None:
        servo = Servo(machine.PWM(machine.Pin(SERVO_PIN)))
    unique = machine.unique_id()
    boot_id = (unique[-1] << 8 | time.ticks_us() & 0xFF) & 0xFFFF or 1

    def send(line):
        sys.stdout.write(line + "\n")

    firmware = Firmware(strip, buttons, send, time.ticks_ms, time.ticks_diff, servo, boot_id)
    firmware.boot()
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    stdin = sys.stdin.buffer
    while True:
        # Take what has arrived (up to a line's worth), then look at the buttons.
        chunk = bytearray()
        while len(chunk) < pegproto.MAX_LINE and poller.poll(0 if chunk else 5):
            chunk.extend(stdin.read(1))
        if chunk:
            firmware.feed(bytes(chunk))
        firmware.poll_buttons()


if __name__ == "__main__":
    run()
