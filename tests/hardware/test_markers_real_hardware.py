"""The same checks on real hardware, when asked for:

    TRICTRAC_PEG_URL=/dev/ttyACM0 pytest -m hardware tests/hardware
    TRICTRAC_REAL_GPIO=1 pytest -m hardware tests/hardware      # on the Pi, LEDs wired
"""

from __future__ import annotations

import os

import pytest
from tablier.firmware import pegproto
from tablier.hardware import LedMarkers, PegLink, SerialPegs, led_bits, marks_to_words

from tablier.commands.markers import steps

pytestmark = pytest.mark.hardware

PEG_URL = os.environ.get("TRICTRAC_PEG_URL")


@pytest.mark.skipif(not PEG_URL, reason="set TRICTRAC_PEG_URL to a peg driver's serial URL")
def test_real_peg_driver_holds_every_step() -> None:
    assert PEG_URL is not None
    with SerialPegs(PEG_URL) as display:
        display.wait_connected(5.0)
        for _, marks, status in steps():
            display.show(marks, status=status)
            assert display.wait_synced(5.0), display.last_error
    import serial
    link = PegLink(serial.serial_for_url(PEG_URL, baudrate=115200, timeout=0.01))
    try:
        state = link.command("GET")
        assert state.startswith("STATE " + marks_to_words(marks, status=status))
        assert link.command(f"HELLO {pegproto.PROTOCOL}").startswith("HELLO tablier-pegs")
    finally:
        link.close()


@pytest.mark.skipif(os.environ.get("TRICTRAC_REAL_GPIO") != "1",
                    reason="set TRICTRAC_REAL_GPIO=1 on a Pi with the LEDs wired")
def test_real_leds_take_every_step() -> None:
    with LedMarkers() as leds:
        for _, marks, status in steps():
            leds.show(marks, status=status)
            assert leds.bits == led_bits(marks, status=status)
