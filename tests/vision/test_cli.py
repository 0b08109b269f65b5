"""The vision commands: tablier see, calibrate, eval and render, and their bad input."""

from __future__ import annotations

import importlib
import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from tablier.calibration.calibration import Calibration
from tablier.calibration.profile import look_alike

from tablier.cli import main

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "vision" / "measure" / "s00"


SMALL_DICE = ("warning: a die spans {} camera pixels on this board, fewer than 23: a die "
              "leaning on a dame or the rail is then more often read as a throw. Bring the "
              "camera nearer the board, or give it larger frames (--camera cam:0@1280x960 asks "
              "a webcam for them; the Pi camera's 1640x1232 draws a die some 26-32 pixels "
              "wide)\n")


def _die_px(calibration: Path) -> str:
    """Camera pixels a die of the calibration's board spans, to 0.1: its top edge's length
    over the board's width, times the die's edge."""
    cal = Calibration.load(calibration)
    (x0, y0), (x1, y1) = cal.quad[:2]
    return f"{float(np.hypot(x1 - x0, y1 - y0)) / cal.geometry.size[0] * cal.geometry.die_size:.1f}"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code: int, out: str, err: str, text: str) -> None:
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and text in err
    assert "Traceback" not in err


def test_see_prints_the_observation_and_writes_a_picture(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pic = tmp_path / "seen.jpg"
    code, out, err = _run(capsys, "see", str(ROOT / "frame_000.jpg"), "--calibration",
                          str(ROOT / "calibration.json"), "--annotated", str(pic))
    assert code == 0, err
    data = json.loads(out)
    truth = json.loads((ROOT / "frame_000.json").read_text())
    assert data["occluded"] == truth["occluded"]
    assert len(data["fields"]) == (0 if truth["occluded"] else 24)
    assert "total" in data["timings_ms"] and pic.stat().st_size > 1000


@pytest.mark.parametrize(("make", "text"), [
    (lambda d: d / "missing.jpg", "no image file"),
    (lambda d: _write(d / "cut.jpg", (ROOT / "frame_000.jpg").read_bytes()[:5000]),
     "truncated JPEG"),
    (lambda d: _write(d / "junk.jpg", b"\x00" * 100), "not a readable image"),
    (lambda d: _write(d / "hole.jpg", _damaged((ROOT / "frame_000.jpg").read_bytes())),
     "damaged JPEG"),
])
def test_see_refuses_bad_images(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                make: object, text: str) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    _one_line_error(*_run(capsys, "see", str(path), "--calibration",
                          str(ROOT / "calibration.json")), text)


def _damaged(data: bytes) -> bytes:
    """A JPEG with a stretch of its picture data overwritten, its ends whole."""
    third = len(data) // 3
    return data[:third] + b"\x55" * 2000 + data[third + 2000:]


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_see_names_an_annotated_picture_it_cannot_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, text in (("seen.pdf", "not a kind of picture"), ("no/seen.jpg", "no such folder")):
        _one_line_error(*_run(capsys, "see", str(ROOT / "frame_000.jpg"), "--calibration",
                              str(ROOT / "calibration.json"), "--annotated",
                              str(tmp_path / name)), text)


def test_see_refuses_wrong_size_no_board_and_bad_calibration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.zeros((100, 100, 3), np.uint8))
    cal = str(ROOT / "calibration.json")
    _one_line_error(*_run(capsys, "see", str(small), "--calibration", cal), "1024x768")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((768, 1024, 3), 128, np.uint8))
    _one_line_error(*_run(capsys, "see", str(blank), "--calibration", cal), "no board")
    frame = str(ROOT / "frame_000.jpg")
    _one_line_error(*_run(capsys, "see", frame, "--calibration", str(tmp_path / "none.json")),
                    "no calibration file")
    stale = json.loads((ROOT / "calibration.json").read_text())
    stale["version"] = 0
    (tmp_path / "stale.json").write_text(json.dumps(stale))
    _one_line_error(*_run(capsys, "see", frame, "--calibration", str(tmp_path / "stale.json")),
                    "stale")


def test_see_own_reads_a_game_in_progress_without_a_calibration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A measuring frame of a game in progress, no calibration file in reach: every field's
    # colour and visible count and both dice, as the truth has them.
    frame = ROOT.parent / "s01" / "frame_002.jpg"
    pic = tmp_path / "own.jpg"
    monkeypatch.chdir(tmp_path)  # no calibration.json in reach
    code, out, err = _run(capsys, "see", str(frame), "--own", "--annotated", str(pic))
    assert code == 0, err
    data = json.loads(out)
    truth = json.loads(frame.with_suffix(".json").read_text())
    assert [(f["color"], f["visible"]) for f in data["fields"]] == [
        (t["color"], t["visible"]) for t in truth["fields"]]
    assert sorted(d["value"] for d in data["dice"]) == sorted(d["value"] for d in truth["dice"])
    assert data["marks"] is None  # read against a start's places: not reported
    assert pic.stat().st_size > 1000
    # Its four outer corners place it as its markers do.
    corners = [f"{x:.1f},{y:.1f}" for x, y in truth["quad"]]
    code, out, err = _run(capsys, "see", str(frame), "--own", "--corners", *corners,
                          "--no-picture")
    assert code == 0, err
    assert [(f["color"], f["visible"]) for f in json.loads(out)["fields"]] == [
        (t["color"], t["visible"]) for t in truth["fields"]]


def test_see_own_refuses_a_photograph_it_cannot_place(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((768, 1024, 3), 128, np.uint8))
    _one_line_error(*_run(capsys, "see", str(blank), "--own"), "give its four outer corners")
    frame = str(ROOT / "frame_000.jpg")
    _one_line_error(*_run(capsys, "see", frame, "--own", "--corners", "1,1", "2,2", "3,3",
                          "4,4"), "convex")
    _one_line_error(*_run(capsys, "see", frame, "--own", "--corners", "1,1", "2,2", "3,3",
                          "x"), "X,Y pairs")
    _one_line_error(*_run(capsys, "see", frame, "--corners", "1,1", "2,2", "3,3", "4,4"),
                    "only for --own")
    _one_line_error(*_run(capsys, "see", frame, "--own", "--calibration",
                          str(ROOT / "calibration.json")), "not both")
    _one_line_error(*_run(capsys, "see", str(tmp_path / "missing.jpg"), "--own"),
                    "no image file")


def test_calibrate_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, _ = _run(capsys, "calibrate", "markers", "--out", str(tmp_path / "m.png"),
                        "--dpi", "100")
    assert code == 0 and (tmp_path / "m.png").exists()
    _one_line_error(*_run(capsys, "calibrate", "markers", "--out", str(tmp_path / "m.pdf")),
                    "'" + str(tmp_path / "m.pdf") + "': not a kind of picture OpenCV writes")
    _one_line_error(*_run(capsys, "calibrate", "board", str(ROOT / "reference.jpg"), "--out",
                          str(tmp_path / "none" / "c.json")),
                    "cannot write '" + str(tmp_path / "none" / "c.json") + "'")
    code, _out, err = _run(capsys, "calibrate", "board", str(ROOT / "reference.jpg"), "--out",
                          str(tmp_path / "c.json"), "--overlay", str(tmp_path / "o.jpg"))
    assert code == 0, err
    # a 1024x768 frame draws a die of about 19 pixels: the user is told once, on stderr
    assert err == SMALL_DICE.format(_die_px(tmp_path / "c.json"))
    assert (tmp_path / "o.jpg").stat().st_size > 1000
    data = json.loads((tmp_path / "c.json").read_text())
    assert data["format"] == "tablier-calibration" and data["markers"] is True
    assert data["geometry"]["surface_depth"] == 0.0
    code, _out, err = _run(capsys, "calibrate", "board", str(ROOT / "reference.jpg"), "--out",
                          str(tmp_path / "d.json"), "--overlay", str(tmp_path / "o.jpg"),
                          "--surface-depth", "22")
    assert code == 0, err
    assert json.loads((tmp_path / "d.json").read_text())["geometry"]["surface_depth"] == 22.0
    _one_line_error(*_run(capsys, "calibrate", "board", str(ROOT / "reference.jpg"),
                          "--surface-depth", "-3"), "--surface-depth")
    code, _out, err = _run(capsys, "calibrate", "overlay", str(ROOT / "frame_001.jpg"),
                          "--calibration", str(tmp_path / "c.json"), "--out",
                          str(tmp_path / "o2.jpg"))
    assert code == 0, err
    _one_line_error(*_run(capsys, "calibrate", "board", str(ROOT / "reference.jpg"),
                          "--corners", "1,2", "3,4", "5", "6,7"), "--corners")
    _one_line_error(*_run(capsys, "calibrate", "lens"), "ChArUco")


def test_calibrate_warns_of_dark_points_the_colour_of_the_black_dames(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # brown and light wood points with brown dames: the dames reader, which goes by colour,
    # cannot tell a black dame on a brown point from the point (docs/vision.md, 47th round)
    from tablier.vision.render import BoardStyle, Camera, Lighting, Scene, render_frame
    style = BoardStyle(fields=((82, 52, 30), (196, 160, 110)), black=(78, 50, 30))
    cam = Camera.random(np.random.default_rng(3), 1024, 768)
    ref = render_frame(Scene.start(), style=style, camera=cam, lighting=Lighting(), seed=1,
                       width=1024, height=768)
    cv2.imwrite(str(tmp_path / "ref.png"), cv2.cvtColor(ref.image, cv2.COLOR_RGB2BGR))
    code, out, err = _run(capsys, "calibrate", "board", str(tmp_path / "ref.png"), "--out",
                          str(tmp_path / "c.json"), "--overlay", str(tmp_path / "o.jpg"))
    assert code == 0, err
    assert "wrote" in out
    dark = [f for f in range(1, 25) if style.field_color(f) == style.fields[0]]
    assert err == (f"warning: on fields {', '.join(map(str, dark))} the empty points are the "
                   "colour of the black dames, and tablier tells a dame from an empty point by "
                   "its colour: black dames there may be misread. Dames or points of another "
                   "colour avoid it\n" + SMALL_DICE.format(_die_px(tmp_path / "c.json")))


def test_eval_prints_a_table_and_writes_csv(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    for session, frame in (("s00", "frame_000"), ("s00", "frame_001"), ("s01", "frame_001")):
        (tmp_path / "set" / session).mkdir(parents=True, exist_ok=True)
        for name in ("calibration.json", f"{frame}.jpg", f"{frame}.json"):
            shutil.copy(ROOT / name, tmp_path / "set" / session / name)
    csv_path = tmp_path / "r.csv"
    code, out, err = _run(capsys, "eval", str(tmp_path / "set"), "--out", str(csv_path))
    assert code == 0, err
    assert "colour per field" in out and "visible count per field" in out and "total" in out
    assert len(csv_path.read_text().splitlines()) == 4
    # each session is reported as it is read, on stderr, the table alone on stdout
    assert err.splitlines() == ["read s00 (1 of 2 sessions)", "read s01 (2 of 2 sessions)"]
    # --own reads each frame on its own calibration: with another board's calibration (its
    # colours), the sessions' reading goes wrong and --own's does not
    for session in ("s00", "s01"):
        shutil.copy(ROOT.parent / "s01" / "calibration.json",
                    tmp_path / "set" / session / "calibration.json")
    errors = {}
    for own in ((), ("--own",)):
        code, out, err = _run(capsys, "eval", str(tmp_path / "set"), *own, "--out",
                              str(csv_path))
        assert code == 0, err
        rows = csv_path.read_text().splitlines()
        assert len(rows) == 4
        errors[own] = sum(int(r.split(",")[4]) + int(r.split(",")[5]) for r in rows[1:])
    assert errors[()] > 0 and errors[("--own",)] == 0
    _one_line_error(*_run(capsys, "eval", str(tmp_path / "nothing")), "no fixture set")
    (tmp_path / "empty").mkdir()
    _one_line_error(*_run(capsys, "eval", str(tmp_path / "empty")), "not a fixture set")
    # a truth cut short (a copy broken off): named at once, nothing written
    truth = tmp_path / "set" / "s01" / "frame_001.json"
    truth.write_text(truth.read_text()[:100])
    csv_path.unlink()
    _one_line_error(*_run(capsys, "eval", str(tmp_path / "set"), "--out", str(csv_path)),
                    "frame_001.json' is not readable JSON")
    assert not csv_path.exists()


def test_render_set_and_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _run(capsys, "render", str(tmp_path / "r"), "--seed", "3", "--sessions",
                          "2", "--frames", "2", "--size", "480x360")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "r" / "s00").glob("*.jpg")) == [
        "frame_000.jpg", "frame_001.jpg", "reference.jpg"]
    # each session is reported as it is written
    assert err.splitlines() == ["wrote s00 (1 of 2 sessions)", "wrote s01 (2 of 2 sessions)"]
    code, _out, err = _run(capsys, "render", str(tmp_path / "g"), "--game", "--throws", "2",
                          "--size", "640x480")
    assert code == 0, err
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert len(manifest["throws"]) == 2 and len(manifest["frames"]) == 12
    # --look-alike draws the board whose dark points are the black dames' brown, of which
    # the calibration warns (seed 3's own board has teal and rust points)
    for flags, fields in (((), []), (("--look-alike",), list(range(2, 25, 2)))):
        out = tmp_path / ("la" + "".join(flags))
        code, _out, err = _run(capsys, "render", str(out), "--seed", "3", "--sessions", "1",
                              "--frames", "1", "--size", "480x360", *flags)
        assert code == 0, err
        profile = Calibration.load(out / "s00" / "calibration.json").profile
        assert look_alike(profile) == {"white": [], "black": fields}
    _one_line_error(*_run(capsys, "render", str(tmp_path / "x"), "--size", "big"), "--size")
    _one_line_error(*_run(capsys, "render", str(tmp_path / "x"), "--cocked", "2"),
                    "--cocked must be 0..1, not 2.0")
    _one_line_error(*_run(capsys, "render", str(tmp_path / "x"), "--on-die-reach", "-1"),
                    "--on-die-reach must be 0..1")
    _one_line_error(*_run(capsys, "render", str(tmp_path / "x"), "--depth", "90"),
                    "--depth must be 0..80 mm")
    _one_line_error(*_run(capsys, "render", str(tmp_path / "x"), "--frames", "0"),
                    "--frames must be at least 1, not 0")


@pytest.mark.parametrize("stage", ["board", "checkers"])
def test_a_stage_run_alone_names_a_missing_input(tmp_path: Path, stage: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    main = importlib.import_module(f"tablier.vision.{stage}").main
    for cal, image, text in ((ROOT / "calibration.json", tmp_path / "none.jpg", "no image file"),
                             (tmp_path / "none.json", ROOT / "frame_000.jpg",
                              "no calibration file")):
        code = main([str(cal), str(image)])
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and f"tablier.vision.{stage}: {text}" in err


def test_the_evaluate_module_is_tablier_eval(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from tablier.vision.evaluate import main as evaluate_main

    (tmp_path / "empty").mkdir()
    assert evaluate_main([str(tmp_path / "empty")]) == 2
    assert capsys.readouterr().err == (f"tablier eval: no calibration.json under "
                                       f"{str(tmp_path / 'empty')!r}: not a fixture set\n")


@pytest.mark.parametrize("given", [None, "3"])
def test_the_command_keeps_openblas_to_one_thread_unless_told(
        given: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    # the nets' small products only lose by OpenBLAS's threads (docs/vision.md, 58th round)
    if given is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", given)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert os.environ["OPENBLAS_NUM_THREADS"] == (given or "1")


NETS = ("boardnet.npz", "stacknet.npz", "stacknet_s3.npz", "stacknet_fine.npz",
        "stacknet_fine_s3.npz")


def _damaged_net(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> Path:
    """The recogniser's net file ``name`` swapped for a copy cut short (as by a failed
    download)."""
    from tablier.vision import recognizer

    groups = ("BOARD_NETS_COARSE", "STACK_NETS", "STACK_NETS_FINE")
    (whole,) = {p for p in (recognizer.BOARD_NET,
                            *(q for group in groups for q in getattr(recognizer, group)))
                if p.name == name}
    cut = tmp_path / "damaged" / name
    cut.parent.mkdir()
    cut.write_bytes(whole.read_bytes()[:1000])
    if whole == recognizer.BOARD_NET:
        monkeypatch.setattr(recognizer, "BOARD_NET", cut)
    for group in groups:
        paths = getattr(recognizer, group)
        if whole in paths:
            monkeypatch.setattr(recognizer, group, tuple(cut if p == whole else p for p in paths))
    return cut


@pytest.mark.parametrize("name", NETS)
def test_a_damaged_net_is_said_when_the_recognizer_is_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    from tablier.vision.dicenet import WeightsError
    from tablier.vision.recognizer import Recognizer

    cut = _damaged_net(tmp_path, monkeypatch, name)
    calibration = Calibration.load(ROOT / "calibration.json")
    with pytest.raises(WeightsError, match=rf"'{cut.name}' cannot be read.*reinstall tablier"):
        Recognizer(calibration)
    # a recogniser that does not ask that net is built
    Recognizer(calibration, dice_net=name != "boardnet.npz", stack_net=name == "boardnet.npz")


@pytest.mark.parametrize("name", NETS)
@pytest.mark.parametrize("command", ["see", "eval", "replay", "watch"])
def test_a_damaged_net_is_one_line_before_any_frame_is_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        name: str, command: str) -> None:
    from tablier.replay import find_game, load_game

    cut = _damaged_net(tmp_path, monkeypatch, name)
    monkeypatch.chdir(tmp_path)
    demo = load_game(find_game("demo"))
    argv = {"see": ["see", str(ROOT / "frame_000.jpg"), "--calibration",
                    str(ROOT / "calibration.json"), "--no-picture"],
            "eval": ["eval", str(ROOT.parent), "--out", str(tmp_path / "eval.csv")],
            "replay": ["replay"],
            "watch": ["watch", "--camera", f"file:{demo.frames}", "--calibration",
                      str(demo.calibration), "--journal", str(tmp_path / "live.jsonl"),
                      "--markers", "record:"]}[command]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1, err
    assert f"'{cut.name}' cannot be read" in err and "reinstall tablier" in err
    assert "unreadable" not in out and not (tmp_path / "eval.csv").exists()
