"""The match journal: the record of truth, one JSON event per line.

Every event is written as one line of compact JSON, then flushed and ``fsync``-ed before
:meth:`Journal.append` returns, so a match survives a power cut. Nothing is ever rewritten: the
only change made to existing bytes is cutting off a *truncated last line* (a write that a crash
interrupted), and that is reported, never silent.

An event is a JSON object with a ``"kind"`` key: the engine's match events (``"throw"``,
``"jan"``, ``"mark"``, ``"play"``, ...; :mod:`tablier.engine.match`) and the companion's own
(``"match"``, the header; ``"seen"``, which commits the events of one frame; flags such as
``"false_move"``); see :mod:`tablier.session`. Exports
(:mod:`tablier.export`) are derived from the journal, never the other way round.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "m.jsonl"
>>> with Journal.create(path) as j:
...     j.append({"kind": "match", "players": ["A", "B"]})
...     j.append({"kind": "throw", "dice": [6, 4]})
>>> [e["kind"] for e in read_journal(path).events]
['match', 'throw']
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from tablier.files import fsync_dir

if TYPE_CHECKING:
    from typing_extensions import Self

Event = dict[str, Any]
"""One journal event: a JSON object with a ``"kind"`` key."""


class JournalError(ValueError):
    """A journal cannot be read or written (corrupt line, missing file, closed journal)."""


@dataclass(frozen=True)
class JournalRead:
    """What reading a journal found."""

    events: tuple[Event, ...]
    """Every complete event, in order."""
    good_bytes: int
    """Length of the file up to the end of the last complete event."""
    truncated: str | None = None
    """A description of the truncated last line that was skipped, or None."""
    ends: tuple[int, ...] = field(default_factory=tuple)
    """The byte offset just after each event's line."""


def _decode(line: bytes, number: int, path: Path) -> Event:
    try:
        event = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JournalError(f"corrupt journal {path}: line {number} is not JSON ({exc})") from exc
    if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
        raise JournalError(
            f"corrupt journal {path}: line {number} is not an event object with a 'kind': "
            f"{line[:60]!r}")
    return event


def read_journal(path: str | os.PathLike[str]) -> JournalRead:
    """Read every event of a journal, finding a truncated last line.

    A last line that lacks its newline or does not parse is what a crash in the middle of a
    write leaves: it is skipped and described in :attr:`JournalRead.truncated`. A bad line
    anywhere else means the file was damaged some other way, and that is an error (nothing is
    guessed about a match).

    Args:
        path: the journal file.

    Returns:
        The events and what was found.

    Raises:
        JournalError: if the file is missing or unreadable, or a line before the last is corrupt.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise JournalError(f"no journal at {p}") from None
    except OSError as exc:
        raise JournalError(f"cannot read journal {p}: {exc.strerror}") from None
    lines = data.split(b"\n")
    tail = lines.pop()  # bytes after the last newline: b"" when the file ends cleanly
    events: list[Event] = []
    ends: list[int] = []
    good = 0
    truncated: str | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            good += len(line) + 1
            continue
        try:
            events.append(_decode(line, number, p))
        except JournalError:
            if number == len(lines) and not tail:
                truncated = f"line {number} is damaged ({len(line)} bytes): skipped"
                break
            raise
        good += len(line) + 1
        ends.append(good)
    if tail and truncated is None:
        try:
            events.append(_decode(tail, len(lines) + 1, p))
            good += len(tail)
            ends.append(good)
        except JournalError:
            truncated = (f"line {len(lines) + 1} was cut off by a crash "
                         f"({len(tail)} bytes, no newline): skipped")
    return JournalRead(events=tuple(events), good_bytes=good, truncated=truncated,
                       ends=tuple(ends))


class Journal:
    """An append-only journal file opened for writing.

    Build one with :meth:`create` (a new match) or :meth:`resume` (continue after a crash).
    """

    def __init__(self, path: Path, fd: int, events: tuple[Event, ...],
                 truncated: str | None) -> None:
        self._path = path
        self._fd: int | None = fd
        self._events: list[Event] = list(events)
        self.truncated = truncated
        """What was skipped when the journal was resumed (a cut-off last line), or None."""

    @property
    def path(self) -> Path:
        """The journal's file."""
        return self._path

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event in the journal so far (those read on resume and those appended)."""
        return tuple(self._events)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._fd is None

    @classmethod
    def create(cls, path: str | os.PathLike[str], *, overwrite: bool = False) -> Journal:
        """Start a new journal.

        Args:
            path: the file to write; its folder is made if needed.
            overwrite: replace an existing journal instead of refusing.

        Returns:
            The open journal, empty.

        Raises:
            JournalError: if the file exists (and ``overwrite`` is False) or cannot be written.
        """
        p = Path(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if overwrite else os.O_EXCL)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(p, flags, 0o644)
        except FileExistsError:
            raise JournalError(
                f"a journal already exists at {p}: use --resume to continue it") from None
        except OSError as exc:
            raise JournalError(f"cannot write journal {p}: {exc.strerror}") from None
        fsync_dir(p.parent)
        return cls(p, fd, (), None)

    @classmethod
    def resume(cls, path: str | os.PathLike[str], *,
               keep: Callable[[tuple[Event, ...]], int] | None = None) -> Journal:
        """Reopen a journal to continue it, cutting off a truncated last line if there is one.

        Args:
            path: the journal file.
            keep: given the complete events, how many of them to keep; the rest are cut off
                (events written but never committed, to be written again). All when None.

        Returns:
            The open journal holding every complete event; :attr:`truncated` says what was cut.

        Raises:
            JournalError: if the file is missing or corrupt before its last line.
        """
        p = Path(path)
        found = read_journal(p)
        events = found.events
        good = found.good_bytes
        if keep is not None:
            n = keep(events)
            if not 0 <= n <= len(events):
                raise JournalError(f"cannot keep {n} of the {len(events)} events of {p}")
            if n < len(events):
                events, good = events[:n], (found.ends[n - 1] if n else 0)
        try:
            fd = os.open(p, os.O_WRONLY | os.O_APPEND)
            if good != p.stat().st_size:
                # NOTE: a crash cut the last write short; drop those bytes so the next event
                # starts on a fresh line. They never held a complete event.
                os.ftruncate(fd, good)
                os.fsync(fd)
            if good and _last_byte(p) != b"\n":
                os.write(fd, b"\n")
                os.fsync(fd)
        except OSError as exc:
            raise JournalError(f"cannot write journal {p}: {exc.strerror}") from None
        return cls(p, fd, events, found.truncated)

    def append(self, event: Mapping[str, Any]) -> None:
        """Write one event, then flush and fsync it.

        Args:
            event: a JSON-serialisable mapping with a ``"kind"`` key.

        Raises:
            JournalError: if the journal is closed, the event is malformed or the write fails.
        """
        if self._fd is None:
            raise JournalError(f"journal {self._path} is closed")
        if not isinstance(event.get("kind"), str):
            raise JournalError(f"an event needs a 'kind': {dict(event)!r}")
        try:
            line = json.dumps(dict(event), separators=(",", ":"), sort_keys=False,
                              ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise JournalError(f"event cannot be written as JSON: {exc}") from None
        data = (line + "\n").encode("utf-8")
        try:
            written = 0
            while written < len(data):
                written += os.write(self._fd, data[written:])
            os.fsync(self._fd)
        except OSError as exc:
            raise JournalError(f"cannot write journal {self._path}: {exc.strerror}") from None
        self._events.append(json.loads(line))

    def close(self) -> None:
        """Close the file; closing twice does nothing.

        Raises:
            Nothing.
        """
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _last_byte(path: Path) -> bytes:
    with path.open("rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1)
