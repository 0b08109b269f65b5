"""Positions: both colours' men on the 24 fields, men borne off, whose throw.

A position stores each colour's men in that colour's OWN numbering (field 1 = his talon, 12 =
his rest corner, 24 = the opponent's talon), so that the rules, which are written for the player
to move, read his men directly and the opponent's men reversed. ``counts`` gives the classic
signed view (24 counts in White's numbering, White positive, Black negative).

Storing the two colours apart lets a position hold what a camera may report (both colours on one
field, sixteen men of a colour, a lone man on a rest corner): such a position is built without
complaint and reported by :meth:`Position.status`, never raised.

The notation (see ``docs/rules.md``)::

    <white men>/<black men> <w|b> [<white off>-<black off>]

Each side lists ``field`` or ``fieldxcount`` in that colour's own numbering, fields ascending,
separated by commas (``-`` for a side with no man on the board). The off part is omitted when
both are zero. The starting position is ``1x15/1x15 w``.

>>> p = Position.from_notation("1x13,3,5/1x15 w")
>>> p.men(Color.WHITE)
{1: 13, 3: 1, 5: 1}
>>> p.mirror().notation()
'1x15/1x13,3,5 b'
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tablier.engine.base import (
    CHECKERS_PER_SIDE,
    CORNER,
    OPPONENT_CORNER,
    Color,
    InvalidNotationError,
)

if TYPE_CHECKING:
    from tablier.engine.base import Dice
    from tablier.engine.moves import RuleOptions


class Status(enum.IntFlag):
    """What makes a position impossible in a real game (``VALID`` when nothing does)."""

    VALID = 0
    TOO_MANY_WHITE = 1
    """White has more than 15 men (board plus borne off)."""
    TOO_MANY_BLACK = 2
    """Black has more than 15 men."""
    TOO_FEW_WHITE = 4
    """White has fewer than 15 men (board plus borne off)."""
    TOO_FEW_BLACK = 8
    """Black has fewer than 15 men."""
    SHARED_FIELD = 16
    """Both colours stand on one field."""
    LONE_MAN_ON_CORNER = 32
    """A player has exactly one man on his own rest corner."""
    MAN_ON_OPPONENT_CORNER = 64
    """A player has a man on his opponent's rest corner (which he may never take)."""
    OFF_BEFORE_HOME = 128
    """A player has borne men off while some of his men are outside his jan de retour."""
    BOTH_BORNE_OFF = 256
    """Both players have borne off all their men (the relevé ends with the first)."""


def _check_counts(name: str, counts: tuple[int, ...]) -> None:
    if len(counts) != 24:
        raise InvalidNotationError(f"{name} must hold 24 counts, not {len(counts)}: {counts!r}")
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, int) or c < 0:
            raise InvalidNotationError(f"{name} holds a count that is not a whole number >= 0: "
                                       f"{c!r}")


@dataclass(frozen=True, init=False)
class Position:
    """A trictrac position: men of both colours, men borne off, whose throw.

    ``Position("1x13,3,5/1x15 w")`` parses the notation (so that ``repr`` pastes back);
    ``Position()`` is the start of a relevé; ``Position(white, black, to_move, off_white,
    off_black)`` takes each colour's 24 counts in its own numbering. See also :meth:`from_men`
    and :meth:`from_counts`. It never raises for an impossible position (see :meth:`status`);
    it raises :class:`InvalidNotationError` only for a malformed one (a bad notation, negative
    counts, not 24 fields).

    >>> Position("1x13,3,5/1x15 w").men(Color.WHITE)
    {1: 13, 3: 1, 5: 1}
    """

    white: tuple[int, ...]
    """White's men on his fields 1..24 (index 0 = field 1), White's own numbering."""
    black: tuple[int, ...]
    """Black's men on his fields 1..24 (index 0 = field 1), Black's own numbering."""
    to_move: Color
    """Whose throw it is."""
    off_white: int
    """White's men borne off."""
    off_black: int
    """Black's men borne off."""

    def __init__(self, white: str | tuple[int, ...] | list[int] = "1x15/1x15 w",
                 black: tuple[int, ...] | list[int] | None = None,
                 to_move: Color = Color.WHITE, off_white: int = 0, off_black: int = 0) -> None:
        if isinstance(white, str):
            if black is not None:
                raise InvalidNotationError(f"a notation comes alone, not with Black's counts: "
                                           f"{white!r}")
            parsed = Position.from_notation(white)
            white, black = parsed.white, parsed.black
            to_move, off_white, off_black = parsed.to_move, parsed.off_white, parsed.off_black
        if black is None:
            raise InvalidNotationError("Black's 24 counts are missing")
        object.__setattr__(self, "white", tuple(white))
        object.__setattr__(self, "black", tuple(black))
        object.__setattr__(self, "to_move", to_move)
        object.__setattr__(self, "off_white", off_white)
        object.__setattr__(self, "off_black", off_black)
        _check_counts("white", self.white)
        _check_counts("black", self.black)
        if not isinstance(self.to_move, Color):
            raise InvalidNotationError(f"to_move must be a Color, not {self.to_move!r}")
        for name in ("off_white", "off_black"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidNotationError(f"{name} must be a whole number >= 0, not {value!r}")

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def _raw(cls, white: tuple[int, ...], black: tuple[int, ...], to_move: Color,
             off_white: int, off_black: int) -> Position:
        # Trusted fast path for the move generator (inputs already checked).
        p = object.__new__(cls)
        object.__setattr__(p, "white", white)
        object.__setattr__(p, "black", black)
        object.__setattr__(p, "to_move", to_move)
        object.__setattr__(p, "off_white", off_white)
        object.__setattr__(p, "off_black", off_black)
        return p

    @classmethod
    def start(cls, *, to_move: Color = Color.WHITE) -> Position:
        """The start of a relevé: fifteen men on each talon.

        Args:
            to_move: who throws first.

        Returns:
            The starting position.

        Raises:
            Nothing.

        >>> Position.start().notation()
        '1x15/1x15 w'
        """
        talon = (CHECKERS_PER_SIDE,) + (0,) * 23
        return cls._raw(talon, talon, to_move, 0, 0)

    @classmethod
    def from_men(cls, white: Mapping[int, int], black: Mapping[int, int], *,
                 to_move: Color = Color.WHITE, off_white: int = 0,
                 off_black: int = 0) -> Position:
        """Build a position from each colour's men in THAT colour's own numbering.

        Args:
            white: White's men, ``{field: count}`` in White's numbering (1 = White's talon).
            black: Black's men, ``{field: count}`` in Black's numbering (1 = Black's talon).
            to_move: whose throw it is.
            off_white: White's men borne off.
            off_black: Black's men borne off.

        Returns:
            The position (possibly impossible: check :meth:`status`).

        Raises:
            InvalidNotationError: if a field is outside 1..24 or a count is negative.

        >>> Position.from_men({1: 13, 3: 1, 5: 1}, {1: 15}).notation()
        '1x13,3,5/1x15 w'
        """
        return cls(_counts_from_men("white", white), _counts_from_men("black", black),
                   to_move, off_white, off_black)

    @classmethod
    def from_counts(cls, counts: tuple[int, ...] | list[int], *, to_move: Color = Color.WHITE,
                    off_white: int = 0, off_black: int = 0) -> Position:
        """Build a position from 24 signed counts in White's numbering (White > 0, Black < 0).

        Args:
            counts: 24 counts, index 0 = White's field 1.
            to_move: whose throw it is.
            off_white: White's men borne off.
            off_black: Black's men borne off.

        Returns:
            The position.

        Raises:
            InvalidNotationError: if there are not 24 whole-number counts.

        >>> Position.from_counts([15] + [0] * 22 + [-15]) == Position.start()
        True
        """
        if len(counts) != 24:
            raise InvalidNotationError(f"counts must hold 24 fields, not {len(counts)}")
        for c in counts:
            if isinstance(c, bool) or not isinstance(c, int):
                raise InvalidNotationError(f"a count must be a whole number, not {c!r}")
        white = tuple(max(0, c) for c in counts)
        black = tuple(-c if c < 0 else 0 for c in reversed(counts))
        return cls(white, black, to_move, off_white, off_black)

    # -- views ------------------------------------------------------------------------------

    @property
    def counts(self) -> tuple[int, ...]:
        """24 signed counts in White's numbering, White positive, Black negative.

        A field holding both colours (an impossible position) shows their difference.
        """
        b = self.black
        return tuple(w - b[23 - i] for i, w in enumerate(self.white))

    def men(self, color: Color) -> dict[int, int]:
        """One colour's men as ``{field: count}`` in that colour's own numbering.

        Args:
            color: whose men.

        Returns:
            The occupied fields and their counts, fields ascending.

        Raises:
            Nothing.
        """
        row = self.white if color is Color.WHITE else self.black
        return {i + 1: c for i, c in enumerate(row) if c}

    def off(self, color: Color) -> int:
        """Men of ``color`` borne off.

        Args:
            color: whose men.

        Returns:
            The number borne off.

        Raises:
            Nothing.
        """
        return self.off_white if color is Color.WHITE else self.off_black

    def total(self, color: Color) -> int:
        """Men of ``color`` on the board plus borne off (15 in a real game).

        Args:
            color: whose men.

        Returns:
            The total.

        Raises:
            Nothing.
        """
        row = self.white if color is Color.WHITE else self.black
        return sum(row) + self.off(color)

    # -- transforms -------------------------------------------------------------------------

    def mirror(self) -> Position:
        """Swap the colours: White's men become Black's on the same own fields, and the throw
        passes to the other colour. An involution: ``p.mirror().mirror() == p``.

        Returns:
            The mirrored position.

        Raises:
            Nothing.

        >>> Position.from_notation("1x13,3,5/1x15 w").mirror()
        Position('1x15/1x13,3,5 b')
        """
        return Position._raw(self.black, self.white, self.to_move.other(), self.off_black,
                             self.off_white)

    def with_turn(self, color: Color) -> Position:
        """The same men with ``color`` to throw.

        Args:
            color: whose throw.

        Returns:
            The position.

        Raises:
            Nothing.
        """
        return Position._raw(self.white, self.black, color, self.off_white, self.off_black)

    def apply(self, play: Sequence[tuple[int, int]], *, dice: Dice | None = None,
              options: RuleOptions | None = None) -> Position:
        """Apply a play of the player to move and pass the turn.

        ``play`` is a sequence of ``CheckerMove(from_field, to_field)`` in the mover's own
        numbering (``to_field`` 0 = borne off). A man played tout d'une may be given as one
        move or as two (via the rest field). With ``dice`` the resulting position must be one
        of :func:`legal_positions` for those dice (every rule and obligation); without dice
        each move must only be possible on the board (a man on the field, a destination not
        held by the opponent, forward).

        Args:
            play: the moves.
            dice: the throw (a :class:`Dice`), to check the play against every rule.
            options: the :class:`RuleOptions` (with ``dice``).

        Returns:
            The position after the play, the opponent to throw.

        Raises:
            IllegalMoveError: if the play is not legal.
        """
        from tablier.engine.moves import apply_play

        return apply_play(self, play, dice=dice, options=options)

    # -- validity ---------------------------------------------------------------------------

    def status(self) -> Status:
        """What makes this position impossible, as flags (``Status.VALID`` when nothing).

        Returns:
            The flags.

        Raises:
            Nothing.

        >>> Position.from_men({1: 14, 12: 1}, {1: 15}).status()
        <Status.LONE_MAN_ON_CORNER: 32>
        """
        s = Status.VALID
        w, b = self.white, self.black
        tw, tb = sum(w) + self.off_white, sum(b) + self.off_black
        if tw > CHECKERS_PER_SIDE:
            s |= Status.TOO_MANY_WHITE
        elif tw < CHECKERS_PER_SIDE:
            s |= Status.TOO_FEW_WHITE
        if tb > CHECKERS_PER_SIDE:
            s |= Status.TOO_MANY_BLACK
        elif tb < CHECKERS_PER_SIDE:
            s |= Status.TOO_FEW_BLACK
        if any(w[i] and b[23 - i] for i in range(24)):
            s |= Status.SHARED_FIELD
        if w[CORNER - 1] == 1 or b[CORNER - 1] == 1:
            s |= Status.LONE_MAN_ON_CORNER
        if w[OPPONENT_CORNER - 1] or b[OPPONENT_CORNER - 1]:
            s |= Status.MAN_ON_OPPONENT_CORNER
        if (self.off_white and any(w[:18])) or (self.off_black and any(b[:18])):
            s |= Status.OFF_BEFORE_HOME
        if self.off_white >= CHECKERS_PER_SIDE and self.off_black >= CHECKERS_PER_SIDE:
            s |= Status.BOTH_BORNE_OFF
        return s

    def is_valid(self) -> bool:
        """True when :meth:`status` finds nothing impossible.

        Returns:
            Whether the position can occur in a real game (as far as one position can tell).

        Raises:
            Nothing.
        """
        return self.status() == Status.VALID

    # -- notation ---------------------------------------------------------------------------

    @classmethod
    def from_notation(cls, text: str) -> Position:
        """Parse the notation ``<white men>/<black men> <w|b> [<off white>-<off black>]``.

        Args:
            text: e.g. ``"1x13,3,5/1x15 w"`` or ``"19x3,20x2,22x3,23x2/7x15 b 5-0"``.

        Returns:
            The position (possibly impossible: check :meth:`status`).

        Raises:
            InvalidNotationError: if ``text`` is not in the notation.

        >>> Position.from_notation("19x3,20x2,22x3,23x2/7x15 b 5-0").off(Color.WHITE)
        5
        """
        if not isinstance(text, str):
            raise InvalidNotationError(f"a position notation is a string, not {text!r}")
        parts = text.split()
        if len(parts) not in (2, 3):
            raise InvalidNotationError(
                f"expected '<white>/<black> <w|b> [<off white>-<off black>]', got {text!r}")
        sides = parts[0].split("/")
        if len(sides) != 2:
            raise InvalidNotationError(f"expected one '/' between White's and Black's men in "
                                       f"{text!r}")
        white = _parse_side("white", sides[0], text)
        black = _parse_side("black", sides[1], text)
        if parts[1].lower() not in ("w", "b", "white", "black"):
            raise InvalidNotationError(f"expected 'w' or 'b' for the side to move, not "
                                       f"{parts[1]!r} in {text!r}")
        to_move = Color.parse(parts[1])
        off_white = off_black = 0
        if len(parts) == 3:
            offs = parts[2].split("-")
            if len(offs) != 2 or not all(o.isdigit() and len(o) <= 3 for o in offs):
                raise InvalidNotationError(f"expected '<off white>-<off black>' like '3-0', not "
                                           f"{parts[2]!r} in {text!r}")
            off_white, off_black = int(offs[0]), int(offs[1])
        return cls(white, black, to_move, off_white, off_black)

    def notation(self) -> str:
        """The position in the notation (canonical: fields ascending, ``x1`` and ``0-0`` left
        out), which :meth:`from_notation` reads back to an equal position.

        Returns:
            The notation.

        Raises:
            Nothing.
        """
        text = (f"{_side_text(self.white)}/{_side_text(self.black)} "
                f"{'w' if self.to_move is Color.WHITE else 'b'}")
        if self.off_white or self.off_black:
            text += f" {self.off_white}-{self.off_black}"
        return text

    def __repr__(self) -> str:
        return f"Position({self.notation()!r})"

    def __str__(self) -> str:
        return draw(self)

    def drawing(self, *, side: Color) -> str:
        """The board as ``side`` sees it from his seat, in his own numbering (see :func:`draw`).

        ``str(position)`` stays the classic drawing in White's numbering.

        Args:
            side: whose seat and numbering.

        Returns:
            A multi-line drawing.

        Raises:
            Nothing.
        """
        return draw(self, side=side)


def _counts_from_men(name: str, men: Mapping[int, int]) -> tuple[int, ...]:
    counts = [0] * 24
    for field, count in men.items():
        if isinstance(field, bool) or not isinstance(field, int) or not 1 <= field <= 24:
            raise InvalidNotationError(f"{name}: a field is 1..24, not {field!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidNotationError(f"{name}: field {field} holds a count that is not a "
                                       f"whole number >= 0: {count!r}")
        counts[field - 1] += count
    return tuple(counts)


def _parse_side(name: str, text: str, whole: str) -> tuple[int, ...]:
    counts = [0] * 24
    if text == "-":
        return tuple(counts)
    if not text:
        raise InvalidNotationError(f"{name}'s men are missing in {whole!r} (write '-' for none)")
    for item in text.split(","):
        field_text, sep, count_text = item.partition("x")
        if not field_text.isdigit() or len(field_text) > 2 or (sep and (
                not count_text.isdigit() or len(count_text) > 3)):
            raise InvalidNotationError(f"{name}: expected 'field' or 'fieldxcount', not {item!r} "
                                       f"in {whole!r}")
        field = int(field_text)
        count = int(count_text) if sep else 1
        if not 1 <= field <= 24:
            raise InvalidNotationError(f"{name}: field {field} is outside 1..24 in {whole!r}")
        if count < 1:
            raise InvalidNotationError(f"{name}: field {field} lists {count} men in {whole!r} "
                                       f"(leave an empty field out)")
        if counts[field - 1]:
            raise InvalidNotationError(f"{name}: field {field} is listed twice in {whole!r}")
        counts[field - 1] = count
    return tuple(counts)


def _side_text(row: tuple[int, ...]) -> str:
    items = [f"{i + 1}" if c == 1 else f"{i + 1}x{c}" for i, c in enumerate(row) if c]
    return ",".join(items) if items else "-"


def _cell(w: int, b: int) -> str:
    if w and b:
        return "W?B"
    if w:
        return f"W{w}".rjust(3)
    if b:
        return f"B{b}".rjust(3)
    return "  ."


def draw(position: Position, *, side: Color | None = None) -> str:
    """Draw the board in ASCII.

    Without ``side``: the classic drawing in White's numbering (Black's field = 25 - White's).
    White's own side (his fields 1..12) is the bottom row, read right to left from his talon;
    Black's side (White's 13..24) is the top row.

    With ``side``: the board as that player sees it from his seat, the fields printed in his own
    numbering (1 = his talon, 12 = his corner). His side is the bottom row; for Black the board
    is turned round, so his talon is at the bottom left, across from White's. A legend line says
    whose numbering it is and which letter is whose men. ``W3`` is three white men, ``B2`` two
    black ones, ``W?B`` both colours on one field (impossible).

    Args:
        position: the position.
        side: whose seat and numbering to draw from, or None for the classic drawing.

    Returns:
        A multi-line drawing.

    Raises:
        Nothing.

    >>> lines = draw(Position("1x14,10/1x13,12x2 b"), side=Color.BLACK).splitlines()
    >>> print(lines[5]); print(lines[7])
     B13   .   .   .   .   . |  .   .   .   .   .  B2
       1   2   3   4   5   6 |  7   8   9  10  11  12   (Black's talon is 1, his corner 12)
    """
    viewer = Color.WHITE if side is None else side
    own = position.white if viewer is Color.WHITE else position.black
    opp = position.black if viewer is Color.WHITE else position.white

    def cell(f: int) -> str:  # f in the viewer's numbering
        mine, theirs = own[f - 1], opp[24 - f]
        return _cell(mine, theirs) if viewer is Color.WHITE else _cell(theirs, mine)

    def row(fields: Sequence[int], text: Callable[[int], str]) -> str:
        return " ".join(text(f) for f in fields[:6]) + " |" + " ".join(
            text(f) for f in fields[6:])

    def num(f: int) -> str:
        return f"{f:>3}"

    if viewer is Color.WHITE:  # his talon at his right, the corners at the middle
        top_fields, bot_fields = list(range(13, 25)), list(range(12, 0, -1))
    else:  # the board turned round: his talon at his left
        top_fields, bot_fields = list(range(24, 12, -1)), list(range(1, 13))
    top = row(top_fields, cell)
    bot = row(bot_fields, cell)
    rule = "-" * len(top)
    name, other = viewer.value.capitalize(), viewer.other().value.capitalize()
    lines = [
        f" {row(top_fields, num)}   ({name}'s numbering; {other}'s talon is 24)",
        f" {rule}",
        f" {top}",
        "",
        f" {bot}",
        f" {rule}",
        f" {row(bot_fields, num)}   ({name}'s talon is 1, his corner 12)",
    ]
    if side is not None:
        lines.insert(0, f" seen from {name}'s seat: {name[0]} = {name}'s men (his side, the "
                        f"bottom row), {other[0]} = {other}'s")
    lines.append(f" to move: {position.to_move.value}; off: white {position.off_white}, "
                 f"black {position.off_black}; {position.notation()}")
    status = position.status()
    if status:
        lines.append(f" IMPOSSIBLE: {status_names(status)}")
    return "\n".join(lines)


def status_names(status: Status) -> str:
    """The names of the flags set in ``status``, comma-separated (``VALID`` when none).

    Args:
        status: the flags.

    Returns:
        e.g. ``"TOO_MANY_WHITE, SHARED_FIELD"``.

    Raises:
        Nothing.

    >>> status_names(Status.TOO_MANY_WHITE | Status.SHARED_FIELD)
    'TOO_MANY_WHITE, SHARED_FIELD'
    """
    names = [flag.name for flag in Status if flag and flag in status and flag.name]
    return ", ".join(names) if names else "VALID"


__all__ = ["Position", "Status", "draw", "status_names"]
