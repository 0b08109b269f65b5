"""`tablier replay`: end to end on simulated matches, the verdict, and kill -9 + --resume."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

import pytest

from tablier.cli import main
from tablier.journal import read_journal
from tablier.replay import (
    GameError,
    ThrowTruth,
    compare,
    find_game,
    load_game,
    observation_view,
    truth_from_json,
)
from tablier.simulate import simulate_match


def test_replay_sim_is_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "j.jsonl"
    code = main(["replay", "sim:3", "--throws", "20", "--journal", str(journal),
                 "--markers", "record:"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "verdict: EXACT - 20 throws" in out
    assert '[White "White"]' in out and "\n1. W " in out
    assert f"journal: {journal}" in out
    assert len(read_journal(journal).events) > 20


def test_verdict_catches_a_wrong_journal(tmp_path: Path) -> None:
    _, records = simulate_match(seed=2, throws=8)
    truth = truth_from_json(records)
    journal = tmp_path / "j.jsonl"
    assert main(["replay", "sim:2", "--throws", "8", "--journal", str(journal), "--quiet",
                 "--markers", "record:"]) == 0
    events = [dict(e) for e in read_journal(journal).events]
    assert compare(truth, events).exact
    # change one jan's points, drop one throw: both are reported
    jan = next(e for e in events if e["kind"] == "jan")
    jan["points"] += 2
    v = compare(truth, events)
    assert not v.exact and any("jans" in m for m in v.mismatches)
    v = compare([*truth, ThrowTruth("white", (1, 1), (), None, None)], events)
    assert any("missing" in m for m in v.mismatches)


def test_missing_game_is_one_clear_line(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "no recorded game" in err and err.count("\n") == 1
    assert main(["replay", "sim:x"]) == 2
    (tmp_path / "g").mkdir()
    with pytest.raises(GameError, match="game.json"):
        load_game(tmp_path / "g")
    (tmp_path / "g" / "game.json").write_text(json.dumps({"throws": []}))
    assert main(["replay", str(tmp_path / "g")]) == 2
    assert "calibration" in capsys.readouterr().err


def test_demo_is_found_from_the_package_not_the_cwd(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        path = find_game(None)
    except GameError as exc:
        assert "fixtures/games/demo" in str(exc)
    else:
        assert path.is_absolute()
        assert (path / "manifest.json").is_file() or (path / "game.json").is_file()


def test_observation_adapter() -> None:
    class R:  # a field reading as vision gives it
        def __init__(self, field: int, color: object, visible: int) -> None:
            self.field, self.color, self.visible, self.confidence = field, color, visible, 0.9

    class D:
        def __init__(self, value: int | None, reason: str | None = None) -> None:
            self.value, self.reason, self.center, self.size = value, reason, (10.0, 20.0), 30.0
            self.confidence = 0.95

    class Obs:
        occluded = False
        moving = False
        fields: ClassVar[list[R]] = [R(f, None, 0) for f in range(2, 25)] + [R(1, "white", 3)]
        dice: ClassVar[list[D]] = [D(6), D(4)]

    from tablier.engine import Color

    Obs.fields[-1].color = Color.WHITE
    v = observation_view(Obs(), frame=4, t=0.4)
    assert v.dice == (6, 4) and v.dice_seen == 2 and v.bad_throw is None
    assert v.fields is not None and v.fields[0].visible == 3 and v.fields[0].at_least
    Obs.dice = [D(6), D(None, "cocked")]
    v = observation_view(Obs(), frame=5, t=0.5)
    assert v.dice is None and v.bad_throw == "cocked"
    Obs.moving = True
    v = observation_view(Obs(), frame=6, t=0.6)
    assert v.moving and v.fields is None and len(v.dice_at) == 2
    Obs.occluded = True
    assert observation_view(Obs(), frame=7, t=0.7).occluded


def _replay_cmd(journal: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "tablier", "replay", "sim:4", "--throws", "24",
            "--journal", str(journal), "--quiet", "--markers", "record:", *extra]


@pytest.mark.parametrize("left", [b"", b'{"kind": "match", "whi'])
def test_resume_a_journal_killed_before_its_first_line(tmp_path: Path, left: bytes) -> None:
    # Nothing was recorded: --resume plays the match afresh into that file.
    reference = tmp_path / "whole.jsonl"
    subprocess.run(_replay_cmd(reference), check=True, capture_output=True)
    journal = tmp_path / "killed.jsonl"
    journal.write_bytes(left)
    done = subprocess.run(_replay_cmd(journal, "--resume"), check=True, capture_output=True,
                          text=True)
    assert "holds no event" in done.stderr
    assert journal.read_bytes() == reference.read_bytes()


@pytest.mark.slow
def test_kill_9_at_20_random_moments_then_resume(tmp_path: Path) -> None:
    # Played at recorded pace, 25 times faster than life, so that a kill lands in the middle of
    # the replay; every kill is followed by --resume, killed again in its turn.
    paced = ("--pace", "recorded", "--speed", "25")
    reference = tmp_path / "whole.jsonl"
    start = time.monotonic()
    subprocess.run(_replay_cmd(reference, *paced), check=True, capture_output=True)
    duration = time.monotonic() - start
    want = reference.read_bytes()
    rng = random.Random(20)
    journal = tmp_path / "killed.jsonl"
    kills = attempts = 0
    while kills < 20:
        attempts += 1
        assert attempts < 80, f"only {kills} kills landed in {attempts} attempts"
        resume = ("--resume",) if journal.exists() else ()
        proc = subprocess.Popen(_replay_cmd(journal, *paced, *resume),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, duration))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            done = journal.exists() and journal.read_bytes() == want
            kills += not done  # a kill after the last line proves nothing: not counted
        if journal.exists() and journal.read_bytes() == want:
            journal.unlink()  # finished: play the match again from the start
    subprocess.run(_replay_cmd(journal, *paced, "--resume"), check=True, capture_output=True)
    assert journal.read_bytes() == want


def test_rendered_game_end_to_end_and_resume(tmp_path: Path) -> None:
    """Frames -> vision -> tracker -> engine -> journal on a game the vision part renders; a
    journal cut after any commit and resumed ends as the uninterrupted run's."""
    game_module = pytest.importorskip("tablier.vision.game")
    game = tmp_path / "game"
    game_module.write_game(game, seed=5, throws=3)
    whole = tmp_path / "whole.jsonl"
    args = ["replay", str(game), "--quiet", "--markers", "record:"]
    main([*args, "--journal", str(whole)])
    reference = whole.read_bytes()
    events = read_journal(whole).events
    assert [e["kind"] for e in events].count("throw") >= 1
    lines = reference.splitlines(keepends=True)
    commits = [i + 1 for i, ln in enumerate(lines) if b'"kind":"seen"' in ln]
    for k in [1, *commits[:-1]]:
        part = tmp_path / f"cut{k}.jsonl"
        part.write_bytes(b"".join(lines[:k]) + b'{"v":1,"kind":"thr')
        main([*args, "--journal", str(part), "--resume"])
        assert part.read_bytes() == reference, f"resumed after line {k}"


def test_bundled_demo_replays_to_its_ground_truth(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The main job on built-in defaults: every throw, play, jan and mark of the demo game;
    turns the camera cannot settle are flagged and answered, never guessed."""
    try:
        find_game(None)
    except GameError:
        pytest.skip("the bundled demo game is not in this checkout")
    journal = tmp_path / "demo.jsonl"
    code = main(["replay", "--journal", str(journal), "--markers", "pegsim://"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "verdict: EXACT" in out
    assert '[Event "trictrac match"]' in out


def test_a_game_named_by_a_relative_path_reads_its_frames(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tablier.frames import FileSource
    demo = find_game(None)
    game_dir = tmp_path / "games" / "demo"
    game_dir.mkdir(parents=True)
    for f in demo.iterdir():
        (game_dir / f.name).write_bytes(f.read_bytes())
    monkeypatch.chdir(tmp_path)
    game = load_game(Path("games/demo"))
    source = FileSource(game.frames, files=game.files)
    first = next(iter(source.frames()))
    assert first.problem is None and first.image is not None
    # a frame the manifest lists but that is gone: one clear message when the game is loaded
    (game_dir / "frame_003.jpg").unlink()
    with pytest.raises(GameError, match=r"1 of the \d+ frames it lists are not in .*frame_003"):
        load_game(Path("games/demo"))
