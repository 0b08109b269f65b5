"""Files written whole or not at all (calibrations, lenses, the camera's lock)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablier.files import write_durably


def test_writes_and_replaces_leaving_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    write_durably(path, "first\n")
    write_durably(path, "second\n")
    assert path.read_text() == "second\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json"]


def test_a_failed_write_keeps_the_old_file_and_names_it(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text("old\n")
    (tmp_path / "c.json.tmp").mkdir()  # the temporary file cannot be made
    with pytest.raises(OSError, match=r"cannot write '.*c\.json'") as caught:
        write_durably(path, "new\n")
    assert path.read_text() == "old\n"
    assert caught.value.errno is not None


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="No such file or directory"):
        write_durably(tmp_path / "none" / "c.json", "x")
