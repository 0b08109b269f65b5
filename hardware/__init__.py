"""Marker displays: gpiozero LEDs, the serial peg driver, the console, a recorder for tests.

>>> from tablier.engine import Marks, Score
>>> from tablier.hardware import open_markers, Status
>>> with open_markers("record:") as display:
...     display.show(Marks.from_scores(Score(4, 1), Score()), status=Status.MARK)
...     display.poll_events()
[]
"""

from tablier.hardware.base import (
    Decision,
    DeviceClosed,
    EventKind,
    HardwareError,
    HardwareWarning,
    MarkerDisplay,
    MarkerEvent,
    MarkerValueError,
    PegError,
    PegLinkError,
    PegProtocolError,
    PegTimeoutError,
    Status,
)
from tablier.hardware.console import ConsoleMarkers
from tablier.hardware.leds import LedMarkers, ShiftRegister, led_bits
from tablier.hardware.markers import markers_url, open_markers
from tablier.hardware.peglink import PegLink, marks_to_words
from tablier.hardware.recording import RecordingMarkers
from tablier.hardware.serialpegs import SerialPegs

__all__ = [
    "ConsoleMarkers", "Decision", "DeviceClosed", "EventKind", "HardwareError",
    "HardwareWarning", "LedMarkers", "MarkerDisplay", "MarkerEvent", "MarkerValueError",
    "PegError", "PegLink", "PegLinkError", "PegProtocolError", "PegTimeoutError",
    "RecordingMarkers", "SerialPegs", "ShiftRegister", "Status", "led_bits", "markers_url",
    "marks_to_words", "open_markers",
]
