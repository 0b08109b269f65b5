"""Readable exports of a match journal: a PGN-like record and a PNG chart of the holes.

The record starts with tag pairs as in PGN (players, date, place, rule options), then one line
per throw: who threw, the dice, the play, every jan with its points, the marks (points on each
jeton) and the holes after it; relevés, decisions and anything the tracker flagged (false moves,
questions, re-rolls, corrections) get lines of their own.

>>> events = [
...     {"kind": "match", "white": "Anne", "black": "Bruno", "date": "2026-11-22"},
...     {"v": 1, "kind": "throw", "by": "white", "dice": [6, 4]},
...     {"v": 1, "kind": "jan", "jan": "jan_de_six_tables", "player": "white", "points": 4,
...      "ways": 1},
...     {"v": 1, "kind": "mark", "by": "white", "points": 4},
...     {"kind": "seen", "frame": 9, "score": {"white": {"points": 4, "holes": 0,
...      "bredouille": True}, "black": {"points": 0, "holes": 0, "bredouille": True},
...      "pavillon": "middle"}},
...     {"v": 1, "kind": "play", "by": "white", "moves": [[1, 7], [1, 5]], "last_off": False},
... ]
>>> print(format_record(events))  # doctest: +NORMALIZE_WHITESPACE
[Event "trictrac match"]
[Date "2026.11.22"]
[White "Anne"]
[Black "Bruno"]
<BLANKLINE>
1. W 64  1/7 1/5  {jan_de_six_tables W+4}  marks W4 B0  holes W0 B0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

TAG_ORDER = ("Event", "Date", "Place", "White", "Black", "Rules", "Source", "Result")
"""The tag pairs written first, in this order (others follow alphabetically)."""


@dataclass
class ThrowLine:
    """One throw as the record shows it (built while reading the journal)."""

    number: int
    """1 for the first throw of the match."""
    by: str
    """``"white"`` or ``"black"``."""
    dice: tuple[int, int] | None
    """The throw."""
    moves: list[tuple[int, int]] | None = None
    """The play, in the roller's numbering; None until played."""
    jans: list[tuple[str, str, int]] = field(default_factory=list)
    """(jan, player, points) for every jan owed on the throw."""
    score: Mapping[str, Any] | None = None
    """The score after the throw (from the session's ``seen`` lines)."""
    notes: list[str] = field(default_factory=list)
    """Flags and decisions, shown after the throw's line."""

    def text(self) -> str:
        """The record's line for this throw.

        Returns:
            One line (notes follow on their own lines).

        Raises:
            Nothing.
        """
        who = "W" if self.by == "white" else "B"
        dice = "--" if self.dice is None else f"{self.dice[0]}{self.dice[1]}"
        if self.moves is None:
            play = "(not played)"
        elif not self.moves:
            play = "(no play)"
        else:
            play = " ".join(f"{a}/{'off' if b == 0 else b}" for a, b in self.moves)
        jans = " ".join(f"{j} {'W' if p == 'white' else 'B'}+{n}" for j, p, n in self.jans)
        parts = [f"{self.number}. {who} {dice}", play, "{" + jans + "}" if jans else "{}"]
        if self.score is not None:
            w, b = self.score["white"], self.score["black"]
            parts.append(f"marks W{w['points']}{'*' if _shows_bredouille(w, b) else ''} "
                         f"B{b['points']}{'*' if _shows_bredouille(b, w) else ''}")
            parts.append(f"holes W{w['holes']} B{b['holes']}")
        return "  ".join(parts) + "".join(f"\n   ; {n}" for n in self.notes)


def _shows_bredouille(me: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    return bool(me.get("bredouille")) and me["points"] > 0 and other["points"] > 0


def _tags(header: Mapping[str, Any]) -> dict[str, str]:
    tags: dict[str, str] = {"Event": str(header.get("event", "trictrac match"))}
    if header.get("date"):
        tags["Date"] = str(header["date"]).replace("-", ".")
    if header.get("place"):
        tags["Place"] = str(header["place"])
    tags["White"] = str(header.get("white", "?"))
    tags["Black"] = str(header.get("black", "?"))
    rules = header.get("rules")
    if isinstance(rules, Mapping) and rules:
        tags["Rules"] = "; ".join(f"{k}={v}" for k, v in sorted(rules.items()))
    if header.get("source"):
        tags["Source"] = str(header["source"])
    return tags


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def throw_lines(events: Iterable[Mapping[str, Any]]) -> tuple[dict[str, str], list[str],
                                                               list[ThrowLine]]:
    """Group a journal's events by throw.

    Args:
        events: the journal, in order.

    Returns:
        The tag pairs, the lines before the first throw, and every throw.

    Raises:
        Nothing: unknown kinds are ignored (a newer journal still exports).
    """
    tags: dict[str, str] = {}
    head: list[str] = []
    throws: list[ThrowLine] = []
    current: ThrowLine | None = None

    def note(text: str) -> None:
        (current.notes if current is not None else head).append(text)

    for e in events:
        kind = e.get("kind")
        if kind == "match":
            tags = _tags(e)
        elif kind == "throw":
            dice = e.get("dice")
            current = ThrowLine(len(throws) + 1, str(e.get("by")),
                                None if dice is None else (int(dice[0]), int(dice[1])))
            throws.append(current)
        elif kind == "retract" and current is not None:
            throws.pop()
            head_note = f"throw {current.number} taken back: {e.get('text', '')}"
            current = throws[-1] if throws else None
            note(head_note)
        elif kind == "jan" and current is not None:
            current.jans.append((str(e["jan"]), str(e["player"]), int(e["points"])))
        elif kind == "play" and current is not None:
            current.moves = [(int(a), int(b)) for a, b in e.get("moves", [])]
        elif kind == "seen" and e.get("score") is not None and current is not None:
            current.score = e["score"]
        elif kind == "decision":
            note(f"{e['by']} {'stays (tenir)' if e['choice'] == 'stay' else 'goes (s en aller)'}")
        elif kind == "hole":
            note(f"{e['player']} wins a hole{' bredouille' if e.get('bredouille') else ''}"
                 f" -> {e['holes']}")
        elif kind == "releve":
            why = "a player went" if e.get("reason") == "go" else "last man borne off"
            note(f"releve ({why}): {e['first']} throws first")
        elif kind == "pavillon":
            note(f"pavillon: {e['where']}")
        elif kind == "end":
            tags["Result"] = f"{e['winner']} wins" + (
                " grande bredouille" if e.get("grande_bredouille") else "")
            note(f"match won by {e['winner']}")
        elif kind == "school":
            note(f"school: {e['by']} scores {e['points']} ({e.get('reason', 'under')})")
        elif kind in ("false_move", "question", "reroll", "notice", "correction"):
            note(f"{kind.replace('_', ' ')}: {e.get('text', '')}".rstrip(": "))
    return tags, head, throws


def format_record(events: Iterable[Mapping[str, Any]]) -> str:
    """The readable record of a match.

    Args:
        events: the journal's events, in order.

    Returns:
        The record: tag pairs, a blank line, then a line per throw.

    Raises:
        Nothing.
    """
    tags, head, throws = throw_lines(events)
    order = [k for k in TAG_ORDER if k in tags] + sorted(k for k in tags if k not in TAG_ORDER)
    lines = [f'[{k} "{_escape(tags[k])}"]' for k in order]
    lines.append("")
    lines.extend(f"; {h}" for h in head)
    lines.extend(t.text() for t in throws)
    return "\n".join(lines)


def holes_series(events: Iterable[Mapping[str, Any]]) -> tuple[list[float], list[float]]:
    """Each player's holes (with points as twelfths of a hole) after every throw.

    Args:
        events: the journal's events.

    Returns:
        White's and Black's series, one value per throw that has a score.

    Raises:
        Nothing.
    """
    _, _, throws = throw_lines(events)
    white: list[float] = []
    black: list[float] = []
    for t in throws:
        if t.score is None:
            continue
        w, b = t.score["white"], t.score["black"]
        white.append(w["holes"] + w["points"] / 12)
        black.append(b["holes"] + b["points"] / 12)
    return white, black


def draw_chart(white: Sequence[float], black: Sequence[float], *, width: int = 800,
               height: int = 360, names: tuple[str, str] = ("White", "Black"),
               ) -> npt.NDArray[np.uint8]:
    """Draw the holes of both players over the match.

    Args:
        white: White's holes after each throw (:func:`holes_series`).
        black: Black's, same length.
        width: image width, pixels.
        height: image height, pixels.
        names: the players' names for the legend.

    Returns:
        The chart, HxWx3 uint8 BGR (ready for ``cv2.imwrite``).

    Raises:
        ValueError: if the series differ in length or the image is too small.
    """
    import cv2

    if len(white) != len(black):
        raise ValueError(f"series differ in length: {len(white)} and {len(black)}")
    if width < 200 or height < 120:
        raise ValueError(f"chart too small: {width}x{height} (at least 200x120)")
    img = np.full((height, width, 3), 255, np.uint8)
    left, right, top, bottom = 48, 16, 28, 36
    pw, ph = width - left - right, height - top - bottom
    n = max(1, len(white))

    def xy(i: int, v: float) -> tuple[int, int]:
        x = left + round(pw * i / n)
        y = top + round(ph * (1 - min(v, 12.0) / 12.0))
        return x, y

    font = cv2.FONT_HERSHEY_SIMPLEX
    for h in range(0, 13, 2):
        y = xy(0, h)[1]
        cv2.line(img, (left, y), (left + pw, y), (225, 225, 225), 1)
        cv2.putText(img, str(h), (left - 30, y + 5), font, 0.45, (90, 90, 90), 1, cv2.LINE_AA)
    cv2.rectangle(img, (left, top), (left + pw, top + ph), (120, 120, 120), 1)
    cv2.putText(img, "holes", (4, 16), font, 0.45, (60, 60, 60), 1, cv2.LINE_AA)
    cv2.putText(img, f"throws ({len(white)})", (left + pw // 2 - 40, height - 10), font, 0.45,
                (60, 60, 60), 1, cv2.LINE_AA)
    colours = ((200, 120, 30), (40, 40, 190))  # BGR: White's line blue, Black's red
    for series, colour, name, row in ((white, colours[0], names[0], 0),
                                      (black, colours[1], names[1], 1)):
        pts = [xy(0, 0.0)] + [xy(i + 1, v) for i, v in enumerate(series)]
        # Holes move in steps: draw the series as a staircase.
        stairs = [pts[0]]
        for p in pts[1:]:
            stairs.append((p[0], stairs[-1][1]))
            stairs.append(p)
        cv2.polylines(img, [np.array(stairs, np.int32)], False, colour, 2, cv2.LINE_AA)
        lx = left + 10 + row * 160
        cv2.line(img, (lx, 14), (lx + 24, 14), colour, 3)
        cv2.putText(img, name[:14], (lx + 30, 19), font, 0.5, (30, 30, 30), 1, cv2.LINE_AA)
    return img


def write_chart(events: Iterable[Mapping[str, Any]], path: str | Path) -> Path:
    """Write the chart of holes over the match as a PNG.

    Args:
        events: the journal's events.
        path: the PNG to write.

    Returns:
        The path written.

    Raises:
        OSError: naming the file, if it cannot be written.
    """
    from tablier.vision.imageio import write_image

    events = list(events)
    tags, _, _ = throw_lines(events)
    white, black = holes_series(events)
    img = draw_chart(white, black, names=(tags.get("White", "White"), tags.get("Black", "Black")))
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    write_image(p, img, rgb=False)
    return p
