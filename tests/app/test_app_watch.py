"""`tablier watch` without hardware, and the settings file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tablier.cli import main
from tablier.config import Config, ConfigError, load_config


def test_no_camera_is_one_line_and_non_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["watch", "--camera", "cam:/dev/no-such-camera"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "no camera" in err


def test_missing_calibration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    import cv2
    import numpy as np

    cv2.imwrite(str(frames / "0000.png"), np.zeros((8, 8, 3), np.uint8))
    assert main(["watch", "--camera", f"file:{frames}",
                 "--calibration", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err
    assert "no calibration" in err and "tablier calibrate" in err


def test_a_calibration_with_dames_the_colour_of_the_points_is_warned_of(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A board calibrated before `tablier calibrate` warned of it is warned of when watched."""
    import dataclasses

    from tablier.calibration.calibration import Calibration

    from tablier.commands.watch import _recognizer

    plain = Path(__file__).resolve().parents[2] / "fixtures" / "vision" / "measure" / "s00" / (
        "calibration.json")
    _recognizer(plain)
    # a 1024x768 board: only that its dice are small is said
    small = capsys.readouterr().err
    assert small.startswith("tablier watch: warning: a die spans ") and small.count("\n") == 1
    # black dames of the colour of field 3's empty points (as on a brown board with brown dames)
    cal = Calibration.load(plain)
    alike = tmp_path / "alike.json"
    dataclasses.replace(cal, profile=dataclasses.replace(
        cal.profile, black=cal.profile.slots[2 * 5])).save(alike)
    _recognizer(alike)
    err = capsys.readouterr().err
    assert err.startswith("tablier watch: warning: on fields ") and err.count("\n") == 2
    assert err.endswith(small)
    assert " 3," in err and "black dames there may be misread" in err


def test_config_files(tmp_path: Path) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text('camera = "cam:1"\nmarkers = ["gpio:", "pegsim://"]\nstill_frames = 3\n'
                    '[rules]\nprovincial_bearing_off = true\n')
    cfg = load_config(toml)
    assert cfg.camera == "cam:1" and cfg.markers == ("gpio:", "pegsim://")
    assert cfg.still_frames == 3 and cfg.rules == {"provincial_bearing_off": True}
    js = tmp_path / "t.json"
    js.write_text(json.dumps({"still_frames": 0}))
    with pytest.raises(ConfigError, match="still_frames"):
        load_config(js)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")
    (tmp_path / "bad.toml").write_text("camera = \n")
    with pytest.raises(ConfigError, match="not TOML"):
        load_config(tmp_path / "bad.toml")
    assert Config.from_mapping({}) == Config()


def _demo_camera(tmp_path: Path, count: int) -> tuple[Any, Path]:
    """The bundled demo game and a folder of its first ``count`` frames, as a camera."""
    from tablier.replay import GameError, find_game, load_game

    try:
        game = load_game(find_game(None))
    except GameError:
        pytest.skip("the bundled demo game is not in this checkout")
    frames = tmp_path / "camera"
    frames.mkdir()
    for k, f in enumerate(game.files[:count]):
        (frames / f"{k:04d}{f.suffix}").symlink_to((game.frames / f).resolve())
    (frames / "frames.json").write_text(json.dumps({"fps": 50}))
    return game, frames


def test_watch_a_recording_as_if_live(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The live loop end to end, the bundled demo's frames standing in for the camera."""
    from tablier.journal import read_journal
    from tablier.replay import compare

    game, frames = _demo_camera(tmp_path, 30)  # the first five throws
    monkeypatch.chdir(tmp_path)
    journal = tmp_path / "live.jsonl"
    assert main(["watch", "--camera", f"file:{frames}", "--calibration",
                 str(game.calibration), "--journal", str(journal), "--markers", "record:"]) == 0
    events = read_journal(journal).events
    verdict = compare(game.truth[:5], events)
    assert verdict.exact, verdict.text()


def test_resume_a_journal_killed_before_its_first_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A kill before the journal's first line was whole leaves nothing recorded: --resume
    starts the match in that file instead of refusing it."""
    from tablier.journal import read_journal

    game, frames = _demo_camera(tmp_path, 12)
    monkeypatch.chdir(tmp_path)
    journal = tmp_path / "live.jsonl"
    journal.write_bytes(b'{"kind": "mat')
    assert main(["watch", "--camera", f"file:{frames}", "--calibration",
                 str(game.calibration), "--journal", str(journal), "--markers", "record:",
                 "--resume"]) == 0
    assert "holds no event" in capsys.readouterr().err
    events = read_journal(journal).events
    assert events[0]["kind"] == "match" and len(events) > 1
