"""pyserial URL handler for ``pegsim://`` (found through ``serial.protocol_handler_packages``).

Not imported by ``tablier.hardware`` itself: ``register_pegsim()`` adds the package to
pyserial's search list and pyserial imports this module on the first ``pegsim://`` URL.
"""

from __future__ import annotations

import serial
from tablier.hardware.pegsim import slave_path


def serial_class_for_url(url: str) -> tuple[str, type[serial.Serial]]:
    """Map a ``pegsim://`` URL to the simulated device's pty and pyserial's native class.

    Args:
        url: the URL given to ``serial.serial_for_url``.

    Returns:
        (pty slave path, ``serial.Serial``).

    Raises:
        serial.SerialException: if the device is unplugged.
        MarkerValueError: if the URL is malformed.
    """
    return slave_path(url), serial.Serial
