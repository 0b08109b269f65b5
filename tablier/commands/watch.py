"""Score a live game from the camera: the companion beside the board.

Reads the camera (the Pi camera, else the first USB webcam; --camera cam:1, picamera, or
file:FOLDER to play a recording as if live), recognises every frame with the calibration made
by `tablier calibrate`, follows the game, shows the target markers after every throw and keeps
the match in a journal (./tablier-journal/<date>-<time>.jsonl unless --journal says otherwise).

While it runs, type at the console (then Enter):
  stay | go            the roller's decision after a hole won by his own throw
  answer N             answer the last question with its option N
  dice NN              call a throw the camera cannot read (e.g. dice 52)
  board NOTATION       set the position by hand (the engine's notation, e.g. 1x13,3,5/1x15 w)
  score                print the score
  quit                 stop; the journal keeps the match (continue it with --resume)

After a crash or a power cut, `tablier watch --resume` continues the newest journal (or starts a
new match when there is none, or when its match is over: the form for a boot-time service).

examples:
  tablier watch
  tablier watch --camera cam:0 --markers console: --markers serial:///dev/tablier-pegs
  tablier watch --resume
"""

from __future__ import annotations

import argparse
import datetime
import queue
import sys
import threading
from pathlib import Path
from typing import Any, NoReturn

HELP = "score a live game from the camera"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the command's arguments.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("--camera", help="picamera, cam:N, cam:/dev/videoN (either with "
                        "@WIDTHxHEIGHT to ask a frame size) or file:FOLDER (default: the "
                        "configuration's, else the Pi camera, else cam:0)")
    parser.add_argument("--calibration", type=Path, help="the calibration file "
                        "(default: the configuration's, else ./calibration.json)")
    parser.add_argument("--markers", action="append", metavar="URL",
                        help="marker displays (repeatable; default: the configuration's)")
    parser.add_argument("--journal", type=Path, help="the journal to write")
    parser.add_argument("--resume", action="store_true",
                        help="continue the journal (default: the newest in the journal folder)")
    parser.add_argument("--config", type=Path, help="settings file (default ./tablier.toml)")
    parser.add_argument("--white", help="White's player")
    parser.add_argument("--black", help="Black's player")
    parser.add_argument("--place", help="where the match is played")
    parser.add_argument("--first", choices=("white", "black"), default="white",
                        help="who throws first (default white)")
    parser.add_argument("--snapshot", type=Path, metavar="JPG",
                        help="save one frame (for 'tablier calibrate board') and, on the Pi "
                        "camera, lock exposure and white balance into camera-lock.json beside "
                        "it; then exit")


def _fail(message: str) -> NoReturn:
    from tablier.cli import UsageError

    raise UsageError(message)


def open_camera(spec: str, *, lock: Path | None = None) -> Any:
    """Open the camera named, or find one.

    Args:
        spec: a source name, or empty to try the Pi camera then the first USB webcam.
        lock: a ``camera-lock.json`` to hold the Pi camera's exposure and white balance.

    Returns:
        The open source.

    Raises:
        FrameSourceError: if no camera answers (one line saying what was tried).
    """
    import json

    from tablier.frames import (
        CameraLock,
        CameraSource,
        FrameSourceError,
        PiCameraSource,
        open_source,
    )

    held = None
    if lock is not None and lock.is_file():
        try:
            held = CameraLock.from_json(json.loads(lock.read_text()))
        except ValueError as exc:
            raise FrameSourceError(f"{lock}: {exc}") from None
    if spec == "picamera":
        return PiCameraSource(lock=held)
    if spec:
        return open_source(spec, pace="recorded")
    try:
        return PiCameraSource(lock=held)
    except FrameSourceError as pi:
        try:
            return CameraSource(0)
        except FrameSourceError as usb:
            raise FrameSourceError(f"no camera: {pi}; {usb}") from None


def run(args: argparse.Namespace) -> int:
    """Watch the game until it ends or the user quits.

    Args:
        args: the parsed arguments.

    Returns:
        0 when the match ended or the user quit.

    Raises:
        UsageError: for no camera, a missing calibration or a bad journal.
    """
    from tablier.config import ConfigError, load_config
    from tablier.export import format_record
    from tablier.frames import FrameSourceError
    from tablier.journal import JournalError
    from tablier.replay import frame_views
    from tablier.session import MatchInfo, Session, SessionError

    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        _fail(str(exc))
    calibration = args.calibration or Path(cfg.calibration)
    lock = (args.snapshot or calibration).with_name("camera-lock.json")
    try:
        camera = open_camera(args.camera or cfg.camera, lock=None if args.snapshot else lock)
    except (FrameSourceError, ValueError) as exc:
        _fail(str(exc))
    if args.snapshot is not None:
        try:
            return _snapshot(camera, args.snapshot, lock)
        finally:
            camera.close()
    displays: list[Any] = []
    session: Session | None = None
    try:
        recognizer = _recognizer(calibration)
        displays = _displays(args.markers or list(cfg.markers))
        session = _session(args, cfg, displays, MatchInfo, Session)
        commands = _console()
        print(f"watching; journal {session.journal.path}; type stay, go, board ..., score or "
              f"quit", file=sys.stderr)
        for _, view in frame_views(camera.frames(start=session.next_frame), recognizer):
            for line in session.step(view):
                _announce(line)
            if session.over or not _commands(session, commands):
                break
        else:
            session.finish()  # the source ended (a recording played as a camera)
        if session.over:
            print(format_record(session.journal.events))
        return 0
    except (JournalError, SessionError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        where = "" if session is None else f": the match is kept in {session.journal.path}"
        print(f"tablier watch: stopped{where}", file=sys.stderr)
        return 130
    finally:
        if session is not None:
            session.close()
        camera.close()
        for d in displays:
            try:
                d.close()
            except Exception:  # noqa: BLE001, S110 - closing is best effort at exit
                pass


def _snapshot(camera: Any, path: Path, lock: Path) -> int:
    import json
    import time

    from tablier.files import write_durably
    from tablier.frames import PiCameraSource
    from tablier.vision.imageio import write_image

    if isinstance(camera, PiCameraSource):
        time.sleep(2.0)  # NOTE: let the automatic exposure and white balance settle first
        held = camera.lock()
        try:
            write_durably(lock, json.dumps(held.to_json()) + "\n")
        except OSError as exc:
            _fail(str(exc))
        print(f"exposure and white balance locked: {lock}", file=sys.stderr)
    frame = next((f for f in camera.frames() if f.image is not None), None)
    if frame is None or frame.image is None:
        _fail("the camera gave no frame")
    try:
        write_image(path, frame.image)
    except OSError as exc:
        _fail(str(exc))
    print(f"saved {path}: now 'tablier calibrate board {path} --out calibration.json'",
          file=sys.stderr)
    return 0


def _recognizer(path: Path) -> Any:
    if not path.is_file():
        _fail(f"no calibration at {path}: run 'tablier calibrate' with the board in view first")
    try:
        from tablier.calibration.calibration import Calibration
        from tablier.vision.dicenet import WeightsError
        from tablier.vision.recognizer import Recognizer
    except ImportError as exc:
        _fail(f"the vision part is not installed ({exc})")
    try:
        calibration = Calibration.load(path)
        recognizer = Recognizer(calibration)
    except WeightsError as exc:  # before ValueError: the install's fault, not the calibration's
        _fail(str(exc))
    except (OSError, ValueError) as exc:
        _fail(f"calibration {path}: {exc}")
    from tablier.calibration.profile import look_alike_warnings
    from tablier.vision.recognizer import small_dice_warnings
    for line in look_alike_warnings(calibration.profile) + small_dice_warnings(calibration):
        print(f"tablier watch: {line}", file=sys.stderr)
    return recognizer


def _displays(urls: list[str]) -> list[Any]:
    from tablier.hardware import ConsoleMarkers, open_markers

    out: list[Any] = []
    for url in urls:
        try:
            out.append(ConsoleMarkers(sys.stdout) if url.startswith("console")
                       else open_markers(url))
        except Exception as exc:  # noqa: BLE001 - an unplugged driver must not stop the match
            print(f"tablier watch: markers {url}: {exc} (going on without it)", file=sys.stderr)
    return out


def _session(args: argparse.Namespace, cfg: Any, displays: list[Any], info_cls: Any,
             session_cls: Any) -> Any:
    from tablier.session import EmptyJournalError

    folder = Path(cfg.journal_dir)
    afresh = False
    if args.resume:
        journal = args.journal
        if journal is None:
            found = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
            journal = found[-1] if found else None
        if journal is not None and journal.exists():
            try:
                session, resumed = session_cls.resume(journal, displays=displays,
                                                      still_frames=cfg.still_frames)
            except EmptyJournalError:
                # NOTE: killed before the journal's first line was whole: nothing was recorded.
                print(f"journal {journal} holds no event (cut off before its first line): "
                      "starting a new match in it", file=sys.stderr)
                args.journal, afresh = journal, True
            else:
                print(f"resumed {journal}: {resumed.events} events"
                      + (f", {resumed.rolled_back} uncommitted rolled back"
                         if resumed.rolled_back else "")
                      + (f"; {resumed.truncated}" if resumed.truncated else ""),
                      file=sys.stderr)
                if not session.over:
                    return session
                session.close()
                print(f"the match in {journal} is over: starting a new one", file=sys.stderr)
                args.journal = None
        else:
            print(f"nothing to resume in {folder}: starting a new match", file=sys.stderr)
    now = datetime.datetime.now()
    journal = args.journal or folder / f"{now:%Y%m%d-%H%M%S}.jsonl"
    info = info_cls(white=args.white or cfg.white, black=args.black or cfg.black,
                    date=f"{now:%Y-%m-%d}", place=args.place or cfg.place, first=args.first,
                    rules=dict(cfg.rules), source=str(args.camera or cfg.camera or "camera"))
    return session_cls.start(journal, info, displays=displays, still_frames=cfg.still_frames,
                             overwrite=afresh)


def _console() -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            lines.put(line.strip())

    if sys.stdin is not None and sys.stdin.isatty():
        threading.Thread(target=read, name="tablier-console", daemon=True).start()
    return lines


def _commands(session: Any, lines: queue.Queue[str]) -> bool:
    from tablier.engine import Choice, InvalidNotationError, Position
    from tablier.session import SessionError

    while True:
        try:
            line = lines.get_nowait()
        except queue.Empty:
            return True
        word, _, rest = line.partition(" ")
        try:
            if word in ("stay", "go"):
                session.decide(Choice(word))
            elif word == "answer" and rest.strip().isdigit():
                session.answer(int(rest.strip()))
            elif word == "dice" and len(rest.strip()) == 2 and rest.strip().isdigit():
                session.throw_by_hand((int(rest.strip()[0]), int(rest.strip()[1])))
            elif word == "board":
                session.correct(Position.from_notation(rest.strip()).counts)
            elif word == "score":
                s = session.game.score
                print(f"white {s.white.holes} holes {s.white.points} points, black "
                      f"{s.black.holes} holes {s.black.points} points", file=sys.stderr)
            elif word == "quit":
                return False
            elif word:
                print(f"unknown command {line!r}: stay, go, answer N, dice NN, board NOTATION, "
                      f"score or quit", file=sys.stderr)
        except (SessionError, InvalidNotationError) as exc:
            print(f"tablier watch: {exc}", file=sys.stderr)


def _announce(line: dict[str, Any]) -> None:
    kind = line.get("kind")
    if kind in ("false_move", "question", "reroll", "notice", "retract"):
        print(f"{kind.replace('_', ' ')}: {line.get('text', '')}", file=sys.stderr)
    if kind == "question" and line.get("about") != "dice":
        for i, play in enumerate(line.get("options", []), start=1):
            moves = " ".join(f"{a}/{b}" for a, b in play) or "(no play)"
            print(f"  answer {i}: {moves}", file=sys.stderr)
    elif kind == "question":
        print("  type: dice NN", file=sys.stderr)
