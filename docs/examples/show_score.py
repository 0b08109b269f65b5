"""Show a few scores on any marker display, then report the buttons pressed.

    python docs/examples/show_score.py console:
    python docs/examples/show_score.py pegsim://
    python docs/examples/show_score.py gpio:            # on the Pi, LEDs wired as docs/hardware.md
    python docs/examples/show_score.py /dev/ttyACM0     # the peg driver on USB
"""

from __future__ import annotations

import sys

from tablier.engine import Marks, Pavillon, Score
from tablier.hardware import SerialPegs, Status, open_markers

GAME = [
    (Marks.from_scores(Score(4, 0, True), Score(0, 0, True)), Status.MARK),
    (Marks.from_scores(Score(4, 0, True), Score(6, 0, True)), Status.MARK),
    (Marks.from_scores(Score(0, 1, True), Score(6, 0, False), Pavillon.WHITE), Status.DECIDE),
]


def main(argv: list[str]) -> int:
    url = argv[0] if argv else None
    with open_markers(url) as display:
        for marks, status in GAME:
            display.show(marks, status=status)  # returns at once, whatever the back end
        if isinstance(display, SerialPegs) and not display.wait_synced(5.0):
            print(f"the peg driver did not acknowledge: {display.last_error}", file=sys.stderr)
            return 1
        for event in display.poll_events():
            print("button:", event)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
