"""After a hole won by his own throw, ask the player: tenir or s'en aller?

The game loop never blocks on the display: it shows the question and polls for the answer
between camera frames. On ``pegsim://`` pass ``--simulate`` to press the button for him.

    python docs/examples/wait_for_decision.py pegsim:// --simulate
"""

from __future__ import annotations

import sys
import time

from tablier.engine import Color, Marks, Pavillon, Score
from tablier.hardware import Decision, EventKind, Status, open_markers


def ask(url: str | None, *, simulate: bool = False, timeout: float = 30.0) -> Decision | None:
    marks = Marks.from_scores(Score(0, 1, True), Score(6, 0, False), Pavillon.WHITE)
    with open_markers(url) as display:
        display.show(marks, status=Status.DECIDE)
        if simulate and url and url.startswith("pegsim"):
            from tablier.hardware import pegsim
            display.wait_synced(5.0)  # type: ignore[attr-defined]
            pegsim.device(pegsim.parse_url(url)[0]).press("DECIDE W GO")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in display.poll_events():  # never blocks
                if event.kind is EventKind.DECISION and event.player is Color.WHITE:
                    display.show(marks, status=Status.IDLE)
                    return event.decision
            time.sleep(0.05)  # ... the game loop would read a camera frame here
    return None


def main(argv: list[str]) -> int:
    url = next((a for a in argv if not a.startswith("--")), None)
    decision = ask(url, simulate="--simulate" in argv)
    print("white decided:", decision.value if decision else "nothing (timed out)")
    return 0 if decision else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
