"""Replay a recorded game through the whole pipeline and check it against its ground truth.

frames -> vision (Recognizer) -> tracker -> engine -> markers -> journal. The console display and
the simulated peg driver (pegsim://) are driven as in a live game, the journal is written
(./tablier-journal/<game>.jsonl unless --journal says otherwise), the record is printed, and
the journal is compared with the game's ground truth: every throw, play, jan and mark. Turns the
camera cannot settle are flagged and answered from the ground truth, as a player would answer;
the verdict lists them.

With no GAME the bundled demo game (fixtures/games/demo) is replayed. GAME may also be
sim:SEED, a simulated match seen by a perfect camera (no vision).

After a crash or kill, --resume continues the journal where it stopped; the finished journal is
the same as an uninterrupted run's.

examples:
  tablier replay
  tablier replay fixtures/games/demo --pace recorded
  tablier replay sim:7 --journal sim7.jsonl --markers record:
  tablier replay --resume
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

HELP = "replay a recorded game through the whole pipeline"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the command's arguments.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("game", nargs="?", help="a game folder, a name under fixtures/games/, "
                        "or sim:SEED (default: the bundled demo)")
    parser.add_argument("--journal", type=Path,
                        help="the journal to write (default ./tablier-journal/<game>.jsonl)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the journal after a crash instead of starting anew")
    parser.add_argument("--pace", choices=("recorded", "fast"), default="fast",
                        help="play the frames at their recorded pace or as fast as possible "
                        "(default fast)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="with --pace recorded, play this many times faster (default 1)")
    parser.add_argument("--markers", action="append", metavar="URL",
                        help="marker displays (repeatable; default console: and pegsim://)")
    parser.add_argument("--ask", choices=("truth", "console", "none"), default="truth",
                        help="who answers when the camera cannot settle a play (default: "
                        "the ground truth, as the players would)")
    parser.add_argument("--quiet", action="store_true",
                        help="no console drawing of the markers and no record, only the verdict")
    parser.add_argument("--throws", type=int, default=40,
                        help="throws of a sim: match (default 40)")


def _fail(message: str) -> NoReturn:
    from tablier.cli import UsageError

    raise UsageError(message)


def run(args: argparse.Namespace) -> int:
    """Replay the game.

    Args:
        args: the parsed arguments.

    Returns:
        0 when the journal reproduces the ground truth, 1 when it differs.

    Raises:
        UsageError: for a missing game, calibration or vision part, or a bad journal.
    """
    from tablier.engine import Color
    from tablier.export import format_record
    from tablier.journal import JournalError, read_journal
    from tablier.replay import GameError, TruthAnswer, compare, find_game
    from tablier.session import EmptyJournalError, MatchInfo, Session, SessionError

    # Source and truth.
    spec = args.game
    try:
        if spec is not None and spec.startswith("sim:"):
            name, views, truth, info = _simulated(spec, args.throws)
            settled: tuple[int, ...] = ()
        else:
            folder = _demo_fallback() if spec is None else find_game(spec)
            name = folder.name
            views, truth, info = _recorded(folder)
            settled = tuple(info.pop("settled", ()))
        if not args.speed > 0:
            raise GameError(f"--speed must be positive, not {args.speed}")
    except GameError as exc:
        return _fail(str(exc))

    # NOTE: the recogniser already compares each frame with the one before ("moving"), so one
    # still reading suffices; the simulated camera has no such check and needs two in a row.
    still = int(info.pop("still_frames", 1))
    journal = args.journal or Path.cwd() / "tablier-journal" / f"{name}.jsonl"
    displays = _displays(args.markers or ["console:", "pegsim://"], quiet=args.quiet)

    # The number of the throw in play: the match's throws so far (a retracted throw is gone).
    live: list[Any] = []

    def throw_number() -> int:
        return sum(1 for e in live[0].game.history if e.kind == "throw") if live else 0

    answer: Any = None
    if args.ask == "truth":
        answer = TruthAnswer(truth, throw_number)
    elif args.ask == "console":
        answer = _console_answer

    try:
        session = None
        if args.resume and journal.exists():
            try:
                session, found = Session.resume(journal, displays=displays, answer=answer,
                                                still_frames=still)
            except EmptyJournalError:
                # NOTE: killed before the journal's first line was whole: nothing was recorded.
                print(f"journal {journal} holds no event (cut off before its first line): "
                      "starting the match in it afresh", file=sys.stderr)
            else:
                print(f"resuming {journal} at frame {found.next_frame}: {found.events} events "
                      "kept" + (f", {found.rolled_back} uncommitted rolled back"
                                if found.rolled_back else "")
                      + (f"; {found.truncated}" if found.truncated else ""), file=sys.stderr)
        elif args.resume:
            print(f"no journal to resume at {journal}: starting it", file=sys.stderr)
        if session is None:
            overwrite = args.journal is None or not args.resume or journal.exists()
            session = Session.start(journal, MatchInfo(**info), overwrite=overwrite,
                                    displays=displays, answer=answer, still_frames=still)
    except (JournalError, SessionError) as exc:
        _close(displays)
        return _fail(str(exc))
    live.append(session)

    # The loop.
    delivered: dict[int, float] = {}
    latencies: list[float] = []
    try:
        for view in views(session.next_frame, args.pace, args.speed, delivered):
            delivered.setdefault(view.frame, time.monotonic())
            lines = session.step(view)
            if any(e.get("kind") == "throw" for e in lines):
                first = view.frame - (session.tracker.still_frames - 1)
                first = max((f for f in settled if f <= view.frame), default=first)
                latencies.append(time.monotonic() - delivered.get(first, delivered[view.frame]))
            if session.over:
                break
        else:
            # The recording ends with the dice still down: the last play as last seen.
            session.finish()
    except JournalError as exc:
        return _fail(f"{exc} (the match so far is kept in {journal})")
    finally:
        session.close()
        _close(displays)

    events = read_journal(journal).events
    if not args.quiet:
        print(format_record(events))
        print()
    verdict = compare(truth, events)
    print(verdict.text())
    if latencies:
        print(f"dice settled -> displays updated: median {statistics.median(latencies) * 1e3:.1f}"
              f" ms, max {max(latencies) * 1e3:.1f} ms over {len(latencies)} throws "
              f"(pace {args.pace}, from the arrival of the frame where the dice came to rest)")
    s = session.game.score
    print(f"score: white {s.white.holes} holes {s.white.points} points, black {s.black.holes} "
          f"holes {s.black.points} points"
          + (f"; {s.winner.value} won" if s.winner in (Color.WHITE, Color.BLACK) else ""))
    print(f"journal: {journal}")
    return 0 if verdict.exact else 1


def _demo_fallback() -> Path:
    """The bundled demo, or when it is missing one rendered now (said on stderr)."""
    from tablier.replay import GameError, find_game

    try:
        return find_game(None)
    except GameError as missing:
        try:
            from tablier.vision.game import write_game
        except ImportError:
            raise missing from None
        folder = Path.cwd() / "tablier-journal" / "rendered-demo"
        if not (folder / "manifest.json").is_file():
            print(f"tablier replay: {missing}; rendering a demo game with the vision part's "
                  f"renderer into {folder} (seed 5, 12 throws)", file=sys.stderr)
            write_game(folder, seed=5, throws=12)
        else:
            print(f"tablier replay: the bundled demo game is missing; replaying the one "
                  f"rendered earlier in {folder}", file=sys.stderr)
        return folder


def _paced(items: Iterator[Any], pace: str, speed: float,
           delivered: dict[int, float]) -> Iterator[Any]:
    """Deliver frames (or views) at their recorded times, noting when each arrived."""
    origin: tuple[float, float] | None = None
    for item in items:
        if pace == "recorded":
            if origin is None:
                origin = (time.monotonic(), item.t)
            else:
                wait = origin[0] + (item.t - origin[1]) / speed - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
        delivered[item.index if hasattr(item, "index") else item.frame] = time.monotonic()
        yield item


def _simulated(spec: str, throws: int) -> tuple[str, Any, Any, dict[str, Any]]:
    from tablier.replay import GameError, truth_from_json
    from tablier.simulate import simulate_match

    seed_text = spec[4:]
    if not seed_text.isdigit():
        raise GameError(f"game {spec!r}: sim: takes a whole-number seed, e.g. sim:7")
    if throws < 1:
        raise GameError(f"--throws must be at least 1, not {throws}")
    all_views, records = simulate_match(seed=int(seed_text), throws=throws)

    def views(start: int, pace: str, speed: float,
              delivered: dict[int, float]) -> Iterator[Any]:
        return _paced(iter(all_views[start:]), pace, speed, delivered)

    info = {"white": "White", "black": "Black", "first": "white",
            "source": f"simulated match, seed {seed_text}", "still_frames": 2}
    return f"sim-{seed_text}", views, truth_from_json(records), info


def _recorded(folder: Path) -> tuple[Any, Any, dict[str, Any]]:
    from tablier.frames import FileSource, FrameSourceError
    from tablier.replay import GameError, frame_views, load_game

    game = load_game(folder)
    if game.calibration is None:
        raise GameError(f"{folder} has no calibration.json: the frames cannot be read without "
                        f"the camera's calibration")
    try:
        from tablier.calibration.calibration import Calibration
        from tablier.vision.dicenet import WeightsError
        from tablier.vision.recognizer import Recognizer
    except ImportError as exc:
        raise GameError(f"the vision part is not installed ({exc})") from None
    try:
        calibration = Calibration.load(game.calibration)
    except (OSError, ValueError) as exc:
        raise GameError(f"calibration {game.calibration}: {exc}") from None
    try:
        recognizer = Recognizer(calibration)
    except WeightsError as exc:
        raise GameError(str(exc)) from None
    try:
        # NOTE: the frames are read as fast as possible and paced by the replay loop, so that
        # recognition time counts in the recorded pace as it would live.
        source = FileSource(game.frames, pace="fast", fps=float(game.info.get("fps", 10.0)),
                            files=game.files)
    except (FrameSourceError, ValueError) as exc:
        raise GameError(str(exc)) from None

    def views(start: int, pace: str, speed: float,
              delivered: dict[int, float]) -> Iterator[Any]:
        # NOTE: frames are paced and time-stamped before recognition, as a camera delivers
        # them: the latency measured includes reading the frame.
        # NOTE: the recogniser judges motion against the frame before; a resumed replay reads
        # that frame again (without feeding it) so that it sees what the whole run saw.
        frames = _paced(source.frames(start=max(0, start - 1)), pace, speed, delivered)
        for _, view in frame_views(frames, recognizer):
            if view.frame >= start:
                yield view

    info: dict[str, Any] = {k: str(game.info[k]) for k in ("white", "black", "date", "place", "first")
            if k in game.info}
    info["source"] = str(folder.relative_to(folder.parent.parent.parent)
                         if len(folder.parts) > 3 else folder)
    info["settled"] = game.settled
    if isinstance(game.info.get("rules"), dict):
        info["rules"] = game.info["rules"]
    return views, game.truth, info


def _displays(urls: list[str], *, quiet: bool) -> list[Any]:
    from tablier.hardware import open_markers

    out: list[Any] = []
    for url in urls:
        if quiet and url.startswith("console"):
            continue
        try:
            if url.startswith("console"):
                from tablier.hardware import ConsoleMarkers
                out.append(ConsoleMarkers(sys.stdout))
            else:
                out.append(open_markers(url))
        except Exception as exc:  # noqa: BLE001 - a missing display must not stop the replay
            print(f"tablier replay: markers {url}: {exc} (going on without it)", file=sys.stderr)
    return out


def _close(displays: list[Any]) -> None:
    for d in displays:
        try:
            d.close()
        except Exception:  # noqa: BLE001, S110 - closing is best effort at exit
            pass


def _console_answer(question: Any) -> Any:
    print(question.question, file=sys.stderr)
    for i, c in enumerate(question.options, start=1):
        moves = " ".join(f"{a}/{b}" for a, b in c.play) or "(no play)"
        print(f"  {i}. {moves}", file=sys.stderr)
    try:
        choice = input("which one? (number, empty = not sure) ").strip()
    except EOFError:
        return None
    if choice.isdigit() and 1 <= int(choice) <= len(question.options):
        return question.options[int(choice) - 1]
    return None
