"""The serial peg driver, host side: a worker thread keeps the device equal to the target.

Wiring: a Raspberry Pi Pico (RP2040) running ``firmware/main.py`` on USB; the URL is any
pyserial URL (``/dev/ttyACM0``, ``serial:///dev/ttyACM0``, ``socket://host:port``,
``pegsim://``). The port is opened with ``serial.serial_for_url`` only.

:meth:`SerialPegs.show` stores the target and returns at once; the worker coalesces to the
latest target (the device only ever needs the newest state, and every ``SET`` is absolute), so a
burst of updates costs one command. The worker times out and resends, drops the port when the
device stops answering or is unplugged, reopens it every ``reconnect_interval`` seconds, says
``HELLO`` again and pushes the whole state. A boot banner, a changed boot id or a ``GET`` that
disagrees with what the host believes the device holds (checked every ``verify_interval``
seconds when idle) also makes it push the whole state.
"""

from __future__ import annotations

import logging
import threading
import time

import serial
from tablier.engine import Color, Marks
from tablier.firmware import pegproto
from tablier.hardware.base import (
    Decision,
    DisplayBase,
    EventKind,
    MarkerEvent,
    PegError,
    PegLinkError,
    PegProtocolError,
    PegTimeoutError,
    Status,
)
from tablier.hardware.peglink import PegLink, marks_to_words, parse_fields

log = logging.getLogger(__name__)

BAUDRATE = 115200
HOST_PROTOCOL = pegproto.PROTOCOL
"""The protocol version this host speaks (PROTOCOL.md)."""


def parse_event(rest: str) -> MarkerEvent | None:
    """Turn the text of an ``evt`` line (after its number) into an event.

    Args:
        rest: e.g. ``"DECIDE W STAY"`` or ``"CORRECT"``.

    Returns:
        The event, or None for a line this host does not understand.

    Raises:
        Nothing.

    >>> parse_event("DECIDE B GO")
    MarkerEvent(kind=<EventKind.DECISION: 'decision'>, player=<Color.BLACK: 'black'>, \
decision=<Decision.GO: 'go'>)
    """
    words = rest.split()
    players = {"W": Color.WHITE, "B": Color.BLACK}
    if len(words) == 3 and words[0] == "DECIDE" and words[1] in players:
        choice = {"STAY": Decision.STAY, "GO": Decision.GO}.get(words[2])
        if choice is not None:
            return MarkerEvent(EventKind.DECISION, players[words[1]], choice)
    if words and words[0] == "CORRECT" and len(words) <= 2:
        player = players.get(words[1]) if len(words) == 2 else None
        if len(words) == 1 or player is not None:
            return MarkerEvent(EventKind.CORRECT, player)
    return None


class SerialPegs(DisplayBase):
    """Markers shown by the serial peg driver (WS2812 lights, optional servos).

    Wiring: the Pico's USB to the Pi; see ``docs/hardware.md`` for the strip.

    Args:
        url: a pyserial URL, e.g. ``/dev/ttyACM0`` or ``pegsim://``.
        baudrate: the line speed (USB CDC ignores it; the simulator honours it).
        timeout: seconds to wait for each reply (raised to twice the time the longest command
            and reply take on the wire at ``baudrate``, for slow lines).
        retries: resends of one command before the link counts as lost.
        verify_interval: seconds between ``GET`` checks while idle.
        reconnect_interval: seconds before the first attempt to reopen a lost port; it doubles
            after each failed attempt, up to ``max_reconnect_interval``.
        max_reconnect_interval: the longest pause between attempts.
    """

    def __init__(self, url: str, *, baudrate: int = BAUDRATE, timeout: float = 0.25,
                 retries: int = 2, verify_interval: float = 2.0,
                 reconnect_interval: float = 0.3, max_reconnect_interval: float = 2.0) -> None:
        super().__init__()
        self.url = url
        self._baudrate = baudrate
        wire = 10.0 * (pegproto.MAX_LINE + pegproto.MAX_REPLY + 2) / max(baudrate, 1)
        self._timeout = max(timeout, 2.0 * wire)
        self._max_reconnect_interval = max(max_reconnect_interval, reconnect_interval)
        self._failures = 0
        self._last_logged = ""
        self._retries = retries
        self._verify_interval = verify_interval
        self._reconnect_interval = reconnect_interval
        self._cond = threading.Condition()
        self._target: str | None = None
        self._version = 0
        self._acked_version = 0
        self._device_words: str | None = None
        self._boot_id: str | None = None
        self._link: PegLink | None = None
        self._stop = False
        self.last_error: PegError | None = None
        """The latest error the worker met (None once it is in sync again)."""
        self.reconnects = 0
        """How many times the port was (re)opened and greeted."""
        self.resets_seen = 0
        """How many device restarts the host noticed (banner, changed id)."""
        self._thread = threading.Thread(target=self._run, name=f"SerialPegs({url})",
                                        daemon=True)
        self._thread.start()

    # public API

    @property
    def connected(self) -> bool:
        """True while the port is open and the device has answered ``HELLO``."""
        return self._link is not None

    @property
    def synced(self) -> bool:
        """True when the device has acknowledged the latest target."""
        with self._cond:
            return self._synced()

    def _synced(self) -> bool:
        return (self._link is not None and self._acked_version == self._version
                and self._device_words == self._target)

    def show(self, marks: Marks, *, status: Status = Status.IDLE) -> None:
        """Set the target; the worker sends it (never blocks).

        Args:
            marks: the target state of every marker.
            status: the status light.

        Raises:
            DeviceClosed: after :meth:`close`.
            MarkerValueError: if ``marks`` or ``status`` is out of range.
        """
        self._check_open()
        words = marks_to_words(marks, status=status)
        with self._cond:
            if words != self._target:
                self._target = words
                self._version += 1
                self._cond.notify_all()

    def wait_synced(self, timeout: float | None = None) -> bool:
        """Block until the device holds the latest target (for tests, benches, ``markers test``).

        Args:
            timeout: seconds; None waits for ever.

        Returns:
            True when in sync, False on timeout.

        Raises:
            DeviceClosed: after :meth:`close`.
        """
        self._check_open()
        with self._cond:
            return self._cond.wait_for(self._synced, timeout)

    def wait_connected(self, timeout: float) -> None:
        """Block until the device has answered ``HELLO``.

        Args:
            timeout: seconds.

        Raises:
            DeviceClosed: after :meth:`close`.
            PegProtocolError: if the device speaks another protocol version.
            PegLinkError: if the port cannot be opened.
            PegTimeoutError: if it could be opened but the device did not answer.
        """
        self._check_open()
        with self._cond:
            # A refusal (wrong protocol, err reply) will not cure itself: report it at once.
            self._cond.wait_for(lambda: self._link is not None
                                or isinstance(self.last_error, PegProtocolError), timeout)
            if self._link is not None:
                return
            error = self.last_error
        if error is not None:
            raise error
        raise PegTimeoutError(f"no answer from {self.url!r} within {timeout:g} s")

    def close(self) -> None:
        """Stop the worker and close the port (idempotent).

        Raises:
            Nothing.
        """
        if self.closed:
            return
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout=5.0)
        super().close()

    # worker

    def _on_unsolicited(self, kind: str, seq: str, rest: str) -> None:
        if kind == "boot":
            log.info("peg driver restarted: %s", rest)
            self.resets_seen += 1
            self._boot_id = parse_fields(rest).get("id")
            with self._cond:
                self._device_words = None
            return
        event = parse_event(rest)
        if event is None:
            log.warning("unknown event from the peg driver: %r", rest)
        else:
            self._post(event)

    def _wait(self, seconds: float) -> bool:
        # Sleep unless stopped or a new target arrives; True when stopping.
        with self._cond:
            if not self._stop:
                self._cond.wait(seconds)
            return self._stop

    def _note(self, error: PegError) -> None:
        # Log a problem once, not at every reconnection attempt.
        with self._cond:
            self.last_error = error
            self._cond.notify_all()
        self._failures += 1
        if str(error) != self._last_logged:
            self._last_logged = str(error)
            log.warning("peg driver %s: %s", self.url, error)

    def _backoff(self) -> float:
        return min(self._reconnect_interval * 2.0 ** max(self._failures - 1, 0),
                   self._max_reconnect_interval)

    def _drop_link(self, error: PegError) -> None:
        self._note(error)
        if self._link is not None:
            self._link.close()
        with self._cond:
            self._link = None
            self._device_words = None
            self._cond.notify_all()

    def _connect(self) -> None:
        if self.url.lower().startswith("pegsim://"):
            from tablier.hardware.pegsim import register_pegsim
            register_pegsim()
        try:
            # NOTE: exclusive=True takes a flock on POSIX ports, so a second tablier process
            # cannot steal replies from the first; other URL types ignore it.
            port = serial.serial_for_url(self.url, baudrate=self._baudrate, timeout=0.01,
                                         write_timeout=2.0, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise PegLinkError(f"cannot open {self.url!r}: {exc}") from exc
        link = PegLink(port, on_unsolicited=self._on_unsolicited)
        try:
            reply = link.command(f"HELLO {HOST_PROTOCOL}", timeout=self._timeout,
                                 retries=self._retries)
            fields = parse_fields(reply)
            if fields.get("proto") != str(HOST_PROTOCOL):
                raise PegProtocolError(f"device at {self.url!r} speaks protocol "
                                       f"{fields.get('proto')!r}, host speaks "
                                       f"{HOST_PROTOCOL}: {reply!r}")
            missing = {"SET", "GET"} - set(fields.get("caps", "").split(","))
            if missing:
                raise PegProtocolError(f"device at {self.url!r} lacks {sorted(missing)}: "
                                       f"{reply!r}")
        except PegError:
            link.close()
            raise
        self._boot_id = fields.get("id")
        self.reconnects += 1
        self._failures = 0
        self._last_logged = ""
        with self._cond:
            self._link = link
            self._device_words = None  # push the whole state after every (re)connection
            self._cond.notify_all()
        log.info("peg driver on %s: %s", self.url, reply)

    def _verify(self, link: PegLink) -> None:
        fields = parse_fields(link.command("GET", timeout=self._timeout, retries=self._retries))
        held = " ".join(f"{key}={fields.get(key, '?')}" for key in pegproto.KEYS)
        with self._cond:
            if fields.get("id") != self._boot_id:
                self.resets_seen += 1
                self._boot_id = fields.get("id")
                self._device_words = None
            elif self._device_words is not None and held != self._device_words:
                log.warning("peg driver holds %r, expected %r", held, self._device_words)
                self._device_words = None

    def _step(self, link: PegLink, next_verify: float) -> float:
        with self._cond:
            target, version = self._target, self._version
            device = self._device_words
        if target is not None and target != device:
            link.command("SET " + target, timeout=self._timeout, retries=self._retries)
            with self._cond:
                self._device_words = target
                self._acked_version = version
                self.last_error = None
                self._cond.notify_all()
            return next_verify
        if time.monotonic() >= next_verify:
            self._verify(link)
            return time.monotonic() + self._verify_interval
        link.pump()
        with self._cond:
            if not self._stop and version == self._version:
                self._cond.wait(0.02)
        return next_verify

    def _run(self) -> None:
        next_verify = time.monotonic() + self._verify_interval
        while True:
            with self._cond:
                if self._stop:
                    break
            link = self._link
            if link is None:
                try:
                    self._connect()
                except PegError as exc:
                    self._note(exc)
                    if self._wait(self._backoff()):
                        break
                continue
            try:
                next_verify = self._step(link, next_verify)
            except (PegTimeoutError, PegLinkError) as exc:
                self._drop_link(exc)
            except PegProtocolError as exc:
                # The device refused a command: report it, start again from HELLO.
                self._drop_link(exc)
                if self._wait(self._backoff()):
                    break
        if self._link is not None:
            self._link.close()
            self._link = None
