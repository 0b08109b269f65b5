"""Importing tablier.hardware has no side effects; the shared firmware code's doctests pass."""

from __future__ import annotations

import doctest
import subprocess
import sys

from tablier.firmware import pegproto


def test_import_registers_nothing_and_opens_nothing() -> None:
    code = (
        "import sys, serial, threading\n"
        "import tablier.hardware, tablier.hardware.pegsim, tablier.commands.markers\n"
        "assert 'tablier.hardware' not in serial.protocol_handler_packages\n"
        "assert 'gpiozero' not in sys.modules, 'gpiozero imported eagerly'\n"
        "assert threading.active_count() == 1\n"
        "from tablier.hardware import open_markers\n"
        "open_markers('record:').close()\n"
        "assert 'tablier.hardware' not in serial.protocol_handler_packages\n"
        "print('clean')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.stdout.strip() == "clean", proc.stderr


def test_pegproto_doctests() -> None:
    result = doctest.testmod(pegproto)
    assert result.attempted >= 5 and result.failed == 0
