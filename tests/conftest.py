"""Shared test settings: no real hardware unless asked for."""

from __future__ import annotations

import os

# NOTE: gpiozero reads this when a device is first built; tests never touch real pins unless
# TRICTRAC_REAL_GPIO=1 is set on a Pi.
if os.environ.get("TRICTRAC_REAL_GPIO") != "1":
    os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
