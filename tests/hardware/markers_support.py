"""Helpers shared by the marker display tests (scripted serial port, transcripts)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
TRANSCRIPTS = ROOT / "fixtures" / "serial"


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` passes (no assertion on time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


@dataclass(frozen=True)
class Step:
    """One line of a serial transcript."""

    direction: str
    """``>`` host to device, ``x`` raw bytes host to device, ``<`` device to host."""
    data: bytes
    """The bytes, newline included for ``>`` and ``<``."""


def read_transcript(name: str) -> list[Step]:
    """Parse ``fixtures/serial/<name>.txt``."""
    steps: list[Step] = []
    for raw in (TRANSCRIPTS / f"{name}.txt").read_text(encoding="ascii").split("\n"):
        if not raw or raw.startswith("#"):
            continue
        kind, text = raw[0], raw[2:]
        if kind == "x":
            steps.append(Step("x", bytes.fromhex(text)))
        elif kind in "<>":
            steps.append(Step(kind, (text + "\n").encode("ascii")))
        else:
            raise ValueError(f"bad transcript line {raw!r} in {name}")
    return steps


class ScriptedPort:
    """A pyserial stand-in that checks what the host writes against a script.

    ``expect(sent, replies)`` says: the next write must be ``sent`` (one line, newline added),
    after which ``replies`` become readable. ``assert_done()`` checks the script was used up.
    """

    def __init__(self, port: str = "scripted") -> None:
        self.port = port
        self._script: list[tuple[bytes, list[bytes]]] = []
        self._rx = bytearray()
        self.timeout = 0.0
        self.closed = False

    def expect(self, sent: str, replies: list[str]) -> ScriptedPort:
        self._script.append((sent.encode() + b"\n", [r.encode() + b"\n" for r in replies]))
        return self

    def expect_raw(self, sent: str, data: bytes) -> ScriptedPort:
        """Like :meth:`expect`, answering with raw bytes (noise, partial lines)."""
        self._script.append((sent.encode() + b"\n", [data]))
        return self

    def feed(self, data: bytes) -> None:
        self._rx.extend(data)

    @property
    def in_waiting(self) -> int:
        return len(self._rx)

    def read(self, size: int = 1) -> bytes:
        out = bytes(self._rx[:size])
        del self._rx[:size]
        return out

    def write(self, data: bytes) -> int:
        assert self._script, f"unexpected write {data!r}: the script is used up"
        expected, replies = self._script.pop(0)
        assert data == expected, f"host wrote {data!r}, script expected {expected!r}"
        for reply in replies:
            self._rx.extend(reply)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def assert_done(self) -> None:
        assert not self._script, f"{len(self._script)} scripted exchanges never happened"
