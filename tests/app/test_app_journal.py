"""The journal: append-only, fsynced, a truncated last line found and skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablier.journal import Journal, JournalError, read_journal


def _events(n: int) -> list[dict[str, object]]:
    return [{"kind": "throw", "n": i, "dice": [1 + i % 6, 1 + (i * 5) % 6]} for i in range(n)]


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "m.jsonl"
    with Journal.create(path) as journal:
        for event in _events(5):
            journal.append(event)
    assert list(read_journal(path).events) == _events(5)
    assert path.read_text().count("\n") == 5


def test_create_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    Journal.create(path).close()
    with pytest.raises(JournalError, match="--resume"):
        Journal.create(path)


def test_resume_continues(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.create(path) as journal:
        for event in _events(3):
            journal.append(event)
    with Journal.resume(path) as journal:
        assert journal.truncated is None
        assert len(journal.events) == 3
        for event in _events(6)[3:]:
            journal.append(event)
    assert list(read_journal(path).events) == _events(6)


@settings(max_examples=40, deadline=None)
@given(cut=st.integers(min_value=1, max_value=10_000), n=st.integers(min_value=1, max_value=8))
def test_cut_anywhere_loses_only_the_last_event(tmp_path_factory: pytest.TempPathFactory,
                                                cut: int, n: int) -> None:
    path = tmp_path_factory.mktemp("j") / "m.jsonl"
    with Journal.create(path) as journal:
        for event in _events(n):
            journal.append(event)
    data = path.read_bytes()
    keep = cut % len(data)
    path.write_bytes(data[:keep])
    complete = data[:keep].count(b"\n")
    found = read_journal(path)
    # A cut exactly after a closing brace leaves a complete event without its newline.
    assert len(found.events) in (complete, complete + 1)
    assert list(found.events) == _events(n)[:len(found.events)]
    with Journal.resume(path) as journal:
        journal.append({"kind": "after"})
    again = read_journal(path)
    assert again.truncated is None
    assert [e["kind"] for e in again.events][-1] == "after"
    assert list(again.events[:-1]) == _events(n)[:len(found.events)]


def test_truncated_last_line_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(b'{"kind":"match"}\n{"kind":"thr')
    found = read_journal(path)
    assert [e["kind"] for e in found.events] == ["match"]
    assert found.truncated is not None and "line 2" in found.truncated
    journal = Journal.resume(path)
    assert journal.truncated == found.truncated
    journal.close()
    assert path.read_bytes() == b'{"kind":"match"}\n'


def test_garbage_after_power_cut_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(b'{"kind":"match"}\n\x00\x00\x00\x00')
    assert read_journal(path).truncated is not None
    assert len(read_journal(path).events) == 1


def test_corrupt_middle_line_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(b'{"kind":"match"}\nnot json\n{"kind":"throw"}\n')
    before = path.read_bytes()
    with pytest.raises(JournalError, match="line 2"):
        Journal.resume(path)
    assert path.read_bytes() == before


def test_missing_journal(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="no journal"):
        read_journal(tmp_path / "absent.jsonl")


def test_bad_events_are_refused(tmp_path: Path) -> None:
    with Journal.create(tmp_path / "m.jsonl") as journal:
        with pytest.raises(JournalError, match="kind"):
            journal.append({"dice": [1, 2]})
        with pytest.raises(JournalError, match="JSON"):
            journal.append({"kind": "x", "bad": object()})
        journal.append({"kind": "ok"})
    assert [json.loads(x)["kind"] for x in (tmp_path / "m.jsonl").read_text().splitlines()] \
        == ["ok"]
    with pytest.raises(JournalError, match="closed"):
        journal.append({"kind": "late"})


def test_resume_can_roll_back_an_uncommitted_tail(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.create(path) as journal:
        for kind in ("match", "throw", "seen", "throw", "jan"):
            journal.append({"kind": kind})

    def committed(events: tuple[dict[str, object], ...]) -> int:
        return max(i + 1 for i, e in enumerate(events) if e["kind"] in ("match", "seen"))

    with Journal.resume(path, keep=committed) as journal:
        assert [e["kind"] for e in journal.events] == ["match", "throw", "seen"]
        journal.append({"kind": "throw"})
    assert [e["kind"] for e in read_journal(path).events] == ["match", "throw", "seen", "throw"]
