"""Marker displays: gpiozero LEDs, the serial peg driver, the console, a recorder for tests.

>>> from tablier.engine import Marks, Score
>>> from tablier.hardware import open_markers, Status
>>> with open_markers("record:") as display:
...     display.show(Marks.from_scores(Score(4, 1), Score()), status=Status.MARK)
...     display.poll_events()
[]
"""

from typing import TYPE_CHECKING, Any

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
from tablier.hardware.markers import markers_url, open_markers
from tablier.hardware.peglink import PegLink, marks_to_words
from tablier.hardware.recording import RecordingMarkers
from tablier.hardware.serialpegs import SerialPegs

if TYPE_CHECKING:
    from tablier.hardware.leds import LedMarkers, ShiftRegister, led_bits

# gpiozero is imported only when the LED back end is first asked for (it costs ~50 ms).
_LAZY = {"LedMarkers": "tablier.hardware.leds", "ShiftRegister": "tablier.hardware.leds",
         "led_bits": "tablier.hardware.leds"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ConsoleMarkers", "Decision", "DeviceClosed", "EventKind", "HardwareError",
    "HardwareWarning", "LedMarkers", "MarkerDisplay", "MarkerEvent", "MarkerValueError",
    "PegError", "PegLink", "PegLinkError", "PegProtocolError", "PegTimeoutError",
    "RecordingMarkers", "SerialPegs", "ShiftRegister", "Status", "led_bits", "markers_url",
    "marks_to_words", "open_markers",
]
