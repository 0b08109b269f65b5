"""The peg driver's line protocol on the host side: framing, sequence numbers, retries.

Layer 1 is line framing (``pegproto.frame``: ``<seq> <command> ... *<crc16>``); layer 2 is
:class:`PegLink`, which sends one command, waits for the one reply with the same sequence
number and resends on a timeout or an unreadable-line error. ``firmware/PROTOCOL.md`` is the
specification.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import serial
from tablier.engine import Marks, Pavillon
from tablier.firmware import pegproto
from tablier.hardware.base import (
    PegLinkError,
    PegProtocolError,
    PegTimeoutError,
    Status,
    check_marks,
    check_status,
)

log = logging.getLogger(__name__)

_PAVILLON_WIRE = {Pavillon.MIDDLE: "M", Pavillon.WHITE: "W", Pavillon.BLACK: "B",
                  Pavillon.OUT: "O"}

Unsolicited = Callable[[str, str, str], None]
"""Called with (kind, seq, rest) for every ``evt`` and ``boot`` line."""


def marks_to_words(marks: Marks, *, status: Status = Status.IDLE) -> str:
    """The ``SET`` arguments that put the device in a given state (every key, absolute).

    Args:
        marks: the target state of every marker.
        status: the status.

    Returns:
        The ``key=value`` words in protocol order.

    Raises:
        MarkerValueError: if ``marks`` or ``status`` is out of range.

    >>> from tablier.engine import Score
    >>> marks_to_words(Marks.from_scores(Score(8, 3), Score(2, 1)), status=Status.MARK)
    'wt=7 wb=1 wh=3 bt=2 bb=1 bh=1 pav=M st=MARK'
    """
    check_marks(marks)
    check_status(status)
    w, b = marks.white, marks.black
    return (f"wt={w.token_spot} wb={int(w.bredouille_token)} wh={w.peg_hole} "
            f"bt={b.token_spot} bb={int(b.bredouille_token)} bh={b.peg_hole} "
            f"pav={_PAVILLON_WIRE[marks.pavillon]} st={status.wire}")


def parse_fields(text: str) -> dict[str, str]:
    """The ``key=value`` words of a reply (other words are skipped).

    Args:
        text: e.g. ``"STATE wt=4 wb=0 id=1A2B"``.

    Returns:
        The fields by key.

    Raises:
        Nothing.

    >>> parse_fields("HELLO tablier-pegs proto=1 id=00FF")
    {'proto': '1', 'id': '00FF'}
    """
    out: dict[str, str] = {}
    for word in text.split():
        key, eq, value = word.partition("=")
        if eq and key:
            out[key] = value
    return out


class PegLink:
    """One open serial port speaking the peg protocol: one command in flight at a time.

    Args:
        port: an open pyserial port (from ``serial.serial_for_url``) with a short read timeout
            (about 10 ms); the link owns it and closes it.
        on_unsolicited: called with (kind, seq, rest) for every ``evt`` or ``boot`` line.
    """

    def __init__(self, port: serial.SerialBase, *,
                 on_unsolicited: Unsolicited | None = None) -> None:
        self.port = port
        self._on_unsolicited = on_unsolicited
        self._buf = bytearray()
        self._seq = 0
        self.resends = 0
        """Commands sent again after a timeout or an ``err -`` reply."""
        self.bad_lines = 0
        """Received lines that failed their checksum or framing (garbage)."""

    def _next_seq(self) -> int:
        self._seq = self._seq % 9999 + 1
        return self._seq

    def _io_error(self, exc: BaseException) -> PegLinkError:
        return PegLinkError(f"serial port {self.port.port!r} lost: {exc}")

    def _read_line(self, deadline: float | None) -> str | None:
        # One line without its newline, or None at the deadline (None: only what is buffered).
        while True:
            newline = self._buf.find(b"\n")
            if newline >= 0:
                raw = bytes(self._buf[:newline])
                del self._buf[:newline + 1]
                return raw.rstrip(b"\r").decode("ascii", "replace")
            if len(self._buf) > 4 * pegproto.MAX_REPLY:
                self.bad_lines += 1
                self._buf.clear()
            try:
                waiting = self.port.in_waiting
                if deadline is None and not waiting:
                    return None
                chunk = self.port.read(max(1, waiting))
            except (serial.SerialException, OSError) as exc:
                raise self._io_error(exc) from exc
            self._buf.extend(chunk)
            if (deadline is not None and b"\n" not in chunk
                    and time.monotonic() >= deadline):
                return None

    def _dispatch(self, kind: str, seq: str, rest: str) -> None:
        if self._on_unsolicited is not None:
            self._on_unsolicited(kind, seq, rest)

    def pump(self) -> None:
        """Read what has arrived, without waiting, and pass on ``evt``/``boot`` lines.

        Raises:
            PegLinkError: if the port is gone.
        """
        while True:
            line = self._read_line(None)
            if line is None:
                return
            parsed = pegproto.parse_reply(line)
            if parsed is None:
                if line:
                    self.bad_lines += 1
                continue
            if parsed[0] in ("evt", "boot"):
                self._dispatch(*parsed)

    def command(self, text: str, *, timeout: float = 1.0, retries: int = 2) -> str:
        """Send one command and return the text of its ``ok`` reply.

        A resend carries a new sequence number; late replies to an earlier one are dropped.

        Args:
            text: the command without sequence number or checksum, e.g. ``"SET wt=4"``.
            timeout: seconds to wait for the reply to each attempt.
            retries: how many times to resend after a timeout or an ``err -`` reply.

        Returns:
            What follows ``ok <seq>`` in the reply.

        Raises:
            PegTimeoutError: if no attempt got its reply.
            PegProtocolError: if the device answered ``err`` to this command.
            PegLinkError: if the port is gone.
        """
        self.pump()  # what arrived before this command is not its reply
        for attempt in range(retries + 1):
            if attempt:
                self.resends += 1
            seq = str(self._next_seq())
            line = pegproto.frame(f"{seq} {text}") + "\n"
            try:
                self.port.write(line.encode("ascii"))
                self.port.flush()
            except (serial.SerialException, OSError) as exc:
                raise self._io_error(exc) from exc
            deadline = time.monotonic() + timeout
            while True:
                reply = self._read_line(deadline)
                if reply is None:
                    log.debug("no reply to %r (attempt %d)", line.strip(), attempt + 1)
                    break
                parsed = pegproto.parse_reply(reply)
                if parsed is None:
                    if reply:
                        self.bad_lines += 1
                    continue
                kind, rseq, rest = parsed
                if kind in ("evt", "boot"):
                    self._dispatch(kind, rseq, rest)
                    if kind == "boot":
                        break  # the device restarted: this command is lost, send it again
                    continue
                if rseq == "-":
                    log.debug("device could not read %r: %s", line.strip(), rest)
                    break
                if rseq != seq:
                    continue  # a late reply to an earlier attempt
                if kind == "ok":
                    return rest
                raise PegProtocolError(f"device refused {text!r}: err {rest}")
        raise PegTimeoutError(f"no reply to {text!r} from {self.port.port!r} "
                              f"after {retries + 1} attempts of {timeout:g} s")

    def close(self) -> None:
        """Close the port (idempotent).

        Raises:
            Nothing: errors while closing a lost port are ignored.
        """
        try:
            self.port.close()
        except (serial.SerialException, OSError):
            pass
