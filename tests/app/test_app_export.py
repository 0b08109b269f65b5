"""`tablier log`: the record and the chart, from a journal."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablier.cli import main
from tablier.export import draw_chart, format_record, holes_series


def score(wp: int, wh: int, bp: int, bh: int) -> dict[str, object]:
    return {"white": {"points": wp, "holes": wh, "bredouille": True},
            "black": {"points": bp, "holes": bh, "bredouille": False}, "pavillon": "middle"}


EVENTS: list[dict[str, object]] = [
    {"kind": "match", "white": "Anne", "black": "Bruno", "date": "2026-11-22", "place": "Lyon",
     "rules": {"bear_off": "quick"}},
    {"v": 1, "kind": "throw", "by": "white", "dice": [6, 4]},
    {"v": 1, "kind": "jan", "jan": "jan_de_six_tables", "player": "white", "points": 4,
     "ways": 1},
    {"v": 1, "kind": "mark", "by": "white", "points": 4},
    {"kind": "seen", "frame": 3, "score": score(4, 0, 0, 0)},
    {"v": 1, "kind": "play", "by": "white", "moves": [[1, 7], [1, 5]], "last_off": False},
    {"v": 1, "kind": "throw", "by": "black", "dice": [2, 2]},
    {"kind": "false_move", "text": "13 -> 15 is not legal with 22"},
    {"v": 1, "kind": "mark", "by": "white", "points": 10},
    {"v": 1, "kind": "hole", "player": "white", "bredouille": True, "holes": 2},
    {"kind": "seen", "frame": 8, "score": score(2, 2, 0, 0)},
    {"v": 1, "kind": "decision", "by": "black", "choice": "go"},
    {"v": 1, "kind": "releve", "reason": "go", "first": "black"},
]


def test_record_has_tags_and_a_line_per_throw() -> None:
    text = format_record(EVENTS)
    lines = text.splitlines()
    assert lines[:6] == ['[Event "trictrac match"]', '[Date "2026.11.22"]', '[Place "Lyon"]',
                         '[White "Anne"]', '[Black "Bruno"]', '[Rules "bear_off=quick"]']
    throws = [ln for ln in lines if ln[:1].isdigit()]
    assert len(throws) == 2
    assert throws[0] == "1. W 64  1/7 1/5  {jan_de_six_tables W+4}  marks W4 B0  holes W0 B0"
    assert throws[1].startswith("2. B 22  (not played)")
    assert "holes W2 B0" in throws[1]
    assert any("false move: 13 -> 15" in ln for ln in lines)
    assert any("releve (a player went): black throws first" in ln for ln in lines)
    assert any("white wins a hole bredouille -> 2" in ln for ln in lines)


def test_holes_series_and_chart() -> None:
    white, black = holes_series(EVENTS)
    assert white == pytest.approx([4 / 12, 2 + 2 / 12])
    assert black == [0.0, 0.0]
    img = draw_chart(white, black)
    assert img.shape == (360, 800, 3) and img.dtype == np.uint8
    # White's line (blue in BGR) is drawn, and it is not a blank image
    blue = (img[..., 0] > 150) & (img[..., 2] < 100)
    assert blue.sum() > 100
    with pytest.raises(ValueError, match="length"):
        draw_chart([1.0], [])


def test_log_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    journal.write_text("".join(json.dumps(e) + "\n" for e in EVENTS) + '{"kind": "thr')
    chart = tmp_path / "out" / "holes.png"
    assert main(["log", str(journal), "--chart", str(chart)]) == 0
    out, err = capsys.readouterr()
    assert '[White "Anne"]' in out and "1. W 64" in out
    assert "cut off" in err
    img = cv2.imread(str(chart))
    assert img is not None and img.shape[:2] == (360, 800)


def test_log_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["log", str(tmp_path / "absent.jsonl")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "no journal" in err and err.count("\n") == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "match"}\nnope\n{"kind": "seen"}\n')
    assert main(["log", str(bad)]) == 2
    assert "line 2" in capsys.readouterr().err
    assert main(["log", str(bad), "--chart", str(tmp_path / "x.jpg")]) == 2
