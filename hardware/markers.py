"""Choosing a marker display from a URL: ``open_markers``.

| URL | display |
|---|---|
| ``console:`` or ``console://`` | :class:`ConsoleMarkers` on standard output |
| ``gpio:`` or ``gpio://`` | :class:`LedMarkers` with the default BCM pins |
| ``serial:///dev/ttyACM0``, ``/dev/ttyACM0``, ``socket://...``, ``loop://`` | :class:`SerialPegs` |
| ``pegsim://[NAME][?options]`` | :class:`SerialPegs` on the simulated device |
| ``record:`` or ``record://`` | :class:`RecordingMarkers` |

With no URL, ``TRICTRAC_MARKERS`` is read at call time; unset, it is ``pegsim://``.
"""

from __future__ import annotations

import os

from tablier.hardware.base import MarkerDisplay, MarkerValueError

DEFAULT_URL = "pegsim://"
ENV = "TRICTRAC_MARKERS"

_SERIAL_SCHEMES = ("socket", "loop", "rfc2217", "spy", "hwgrep", "alt", "cp2110")


def markers_url(url: str | None = None) -> str:
    """The URL ``open_markers`` will use: ``url``, else ``$TRICTRAC_MARKERS``, else pegsim.

    Args:
        url: an explicit URL, or None.

    Returns:
        The URL, stripped.

    Raises:
        Nothing.

    >>> markers_url(" console: ")
    'console:'
    """
    if url is None or not url.strip():
        url = os.environ.get(ENV, "").strip() or DEFAULT_URL
    return url.strip()


def open_markers(url: str | None = None) -> MarkerDisplay:
    """Open the marker display a URL names.

    Args:
        url: see the module docstring; None reads ``TRICTRAC_MARKERS`` (default ``pegsim://``).

    Returns:
        An open display (close it, or use it as a context manager).

    Raises:
        MarkerValueError: if the URL names no known display.
        gpiozero.GPIOZeroError: if ``gpio:`` cannot claim its pins.

    >>> with open_markers("record:") as display:
    ...     type(display).__name__
    'RecordingMarkers'
    """
    url = markers_url(url)
    scheme, sep, rest = url.partition(":")
    scheme = scheme.lower()
    if not sep:
        if url.startswith("/") or url.upper().startswith("COM"):
            scheme, rest = "serial", "//" + url
        else:
            raise MarkerValueError(f"marker URL {url!r} has no scheme: expected console:, "
                                   f"gpio:, serial:///dev/ttyACM0, pegsim:// or record:")
    if scheme in ("console", "record", "gpio") and rest.strip("/"):
        raise MarkerValueError(f"marker URL {url!r}: {scheme}: takes no path or options")
    if scheme == "console":
        from tablier.hardware.console import ConsoleMarkers
        return ConsoleMarkers()
    if scheme == "record":
        from tablier.hardware.recording import RecordingMarkers
        return RecordingMarkers()
    if scheme == "gpio":
        from tablier.hardware.leds import LedMarkers
        return LedMarkers()
    from tablier.hardware.serialpegs import SerialPegs
    if scheme == "serial":
        device = rest.removeprefix("//")
        if not device:
            raise MarkerValueError(f"marker URL {url!r} names no serial device")
        return SerialPegs(device)
    if scheme == "pegsim":
        from tablier.hardware.pegsim import create, register_pegsim
        register_pegsim()
        create(url)
        return SerialPegs(url)
    if scheme in _SERIAL_SCHEMES:
        return SerialPegs(url)
    raise MarkerValueError(f"marker URL {url!r}: unknown scheme {scheme!r} (expected console:, "
                           f"gpio:, serial://, pegsim://, record:)")
