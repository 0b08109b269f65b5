"""Drive the marker display: ``tablier markers test [URL]`` checks the wiring.

Like gpiozero's ``pintest``, ``markers test`` lights (or moves) each marker in turn: every jeton
spot, the bredouille jeton, every fichet hole and the pavillon of each player, then the
pavillon in the middle and each status; then it asks for each button (tenir and s'en aller of
each player, "correct me") and reports what arrived.

URL is any display URL (console:, gpio:, serial:///dev/ttyACM0, pegsim://, record:); without
one, TRICTRAC_MARKERS is read, else pegsim://. On a terminal it waits for Enter between
steps and for each button; with --no-wait, or when standard input is not a terminal, it runs
through on its own (on pegsim:// the buttons are pressed through the simulator). A serial
driver's steps are reported "ok" only once the device has acknowledged them.

Exit status: 0 when every step was shown (and acknowledged) and every button seen, 1 when the
device failed, 2 for a bad URL.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tablier.cli import UsageError
from tablier.engine import Color, Marks, Pavillon, PlayerMarks
from tablier.hardware.base import (
    LIT_SPOTS,
    Decision,
    EventKind,
    MarkerDisplay,
    MarkerEvent,
    MarkerValueError,
    PegError,
    Status,
)

if TYPE_CHECKING:
    from tablier.hardware.serialpegs import SerialPegs

HELP = "drive the LEDs or peg driver (markers test)"

BUTTONS: list[tuple[str, str, MarkerEvent]] = [
    ("white tenir", "DECIDE W STAY", MarkerEvent(EventKind.DECISION, Color.WHITE, Decision.STAY)),
    ("white s'en aller", "DECIDE W GO", MarkerEvent(EventKind.DECISION, Color.WHITE, Decision.GO)),
    ("black tenir", "DECIDE B STAY", MarkerEvent(EventKind.DECISION, Color.BLACK, Decision.STAY)),
    ("black s'en aller", "DECIDE B GO", MarkerEvent(EventKind.DECISION, Color.BLACK, Decision.GO)),
    ("correct me", "CORRECT", MarkerEvent(EventKind.CORRECT)),
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``markers`` subcommands.

    Args:
        parser: the ``markers`` parser.

    Raises:
        Nothing.
    """
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    test = sub.add_parser("test", help="light each marker in turn and wait for each button",
                          description=__doc__,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    test.add_argument("url", nargs="?", default=None,
                      help="display URL (default: $TRICTRAC_MARKERS, else pegsim://)")
    test.add_argument("--no-wait", action="store_true",
                      help="do not wait for Enter or for the buttons (automatic when stdin is "
                           "not a terminal)")
    test.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                      help="pause after each step when not waiting (default 0)")
    test.add_argument("--connect-timeout", type=float, default=5.0, metavar="SECONDS",
                      help="how long to wait for a serial driver to answer (default 5)")
    test.add_argument("--button-timeout", type=float, default=30.0, metavar="SECONDS",
                      help="how long to wait for each button (default 30)")


def _blank(pavillon: bool = False) -> PlayerMarks:
    return PlayerMarks(token_spot=0, bredouille_token=False, peg_hole=0, pavillon=pavillon)


def steps() -> Iterator[tuple[str, Marks, Status]]:
    """Every marker alone, in turn: (label, marks, status).

    Yields:
        One step per marker position, then the pavillon's places, then each status.

    Raises:
        Nothing.

    >>> labels = [label for label, _, _ in steps()]
    >>> len(labels), labels[0], labels[-1]
    (45, 'all dark', 'status: tenir or go?')
    """
    dark = Marks(_blank(), _blank(), Pavillon.OUT)
    yield "all dark", dark, Status.IDLE
    def alone(color: Color, player: PlayerMarks, pavillon: Pavillon = Pavillon.OUT) -> Marks:
        if color is Color.WHITE:
            return Marks(player, _blank(), pavillon)
        return Marks(_blank(), player, pavillon)

    for color in (Color.WHITE, Color.BLACK):
        def one(player: PlayerMarks, pavillon: Pavillon = Pavillon.OUT,
                color: Color = color) -> Marks:
            return alone(color, player, pavillon)
        for spot in LIT_SPOTS:
            yield (f"{color.value} jeton on field {spot}",
                   one(PlayerMarks(spot, False, 0, False)), Status.IDLE)
        yield f"{color.value} bredouille jeton", one(PlayerMarks(0, True, 0, False)), Status.IDLE
        for hole in range(1, 13):
            yield (f"{color.value} fichet in hole {hole}",
                   one(PlayerMarks(0, False, hole, False)), Status.IDLE)
        carrier = Pavillon.WHITE if color is Color.WHITE else Pavillon.BLACK
        yield f"{color.value} carries the pavillon", one(_blank(True), carrier), Status.IDLE
    yield "pavillon in the middle", Marks(_blank(), _blank(), Pavillon.MIDDLE), Status.IDLE
    for status in Status:
        if status is not Status.IDLE:
            yield f"status: {status.value}", dark, status


def _ask(prompt: str) -> bool:
    # True to go on, False to stop.
    try:
        answer = input(prompt)
    except EOFError:
        return False
    return answer.strip().lower() not in ("q", "quit")


def _wait_event(display: MarkerDisplay, expected: MarkerEvent, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for event in display.poll_events():
            if event == expected:
                return True
            print(f"    (got {event.kind.value} {event.player.value if event.player else ''}"
                  f" {event.decision.value if event.decision else ''}, waiting on)")
        time.sleep(0.02)
    return False


def _serial(display: MarkerDisplay) -> SerialPegs | None:
    from tablier.hardware.serialpegs import SerialPegs
    return display if isinstance(display, SerialPegs) else None


def _has_buttons(url: str, display: MarkerDisplay) -> bool:
    return _serial(display) is not None or url.lower().startswith("gpio")


def run(args: argparse.Namespace) -> int:
    """Run ``markers test``.

    Args:
        args: the parsed arguments.

    Returns:
        0 when everything was shown and seen, 1 otherwise.

    Raises:
        UsageError: for a bad URL or option.
    """
    if args.delay < 0:
        raise UsageError(f"--delay must be 0 or more, not {args.delay!r}")
    if args.button_timeout <= 0 or args.connect_timeout <= 0:
        raise UsageError(f"--button-timeout and --connect-timeout must be more than 0, not "
                         f"{args.button_timeout!r} and {args.connect_timeout!r}")
    from tablier.hardware.markers import markers_url, open_markers

    url = markers_url(args.url)
    interactive = not args.no_wait and sys.stdin.isatty()
    try:
        display = open_markers(url)
    except MarkerValueError as exc:
        raise UsageError(str(exc)) from exc
    failures = 0
    pegs = _serial(display)
    with display:
        if pegs is not None:
            try:
                pegs.wait_connected(args.connect_timeout)
            except PegError as exc:
                print(f"tablier markers: {url}: {exc}", file=sys.stderr)
                return 1
        all_steps = list(steps())
        print(f"markers test, {url} : {len(all_steps)} steps"
              + (" (Enter: next, q: stop)" if interactive else ""))
        for number, (label, marks, status) in enumerate(all_steps, start=1):
            display.show(marks, status=status)
            verdict = "shown"
            if pegs is not None:
                verdict = "ok" if pegs.wait_synced(3.0) else "NOT ACKNOWLEDGED"
                failures += verdict != "ok"
            line = f"{number:3d}/{len(all_steps)} {label:<32} {verdict}"
            if interactive:
                if not _ask(line + "  "):
                    return 1
            else:
                print(line)
                time.sleep(args.delay)
        if not _has_buttons(url, display):
            print(f"buttons: {type(display).__name__} has none, skipped")
            return int(failures > 0)
        simulate = not interactive and url.lower().startswith("pegsim")
        if not interactive and not simulate:
            print("buttons: skipped (--no-wait)")
            return int(failures > 0)
        for label, wire, event in BUTTONS:
            if simulate:
                from tablier.hardware import pegsim
                pegsim.device(pegsim.parse_url(url)[0]).press(wire)
            else:
                print(f"press {label} ...", flush=True)
            seen = _wait_event(display, event, 3.0 if simulate else args.button_timeout)
            failures += not seen
            print(f"button {label:<20} {'seen' if seen else 'NOT SEEN'}"
                  + (" (simulated press)" if simulate else ""))
    return int(failures > 0)
