"""The peg driver's firmware (MicroPython on an RP2040).

Only :mod:`tablier.firmware.pegproto` is imported on the host (by the driver and the
``pegsim://`` simulator); ``main.py`` runs on the board and imports ``machine`` and ``neopixel``.
Nothing here is imported at package import.
"""
