"""Scalars and small value types shared by every part of the engine.

Board conventions (see ``docs/rules.md``): each player numbers the fields of his own course
1..24; field 1 is his talon, 12 his coin de repos (``CORNER``), 13 the opponent's corner and 24
the opponent's talon. White's field ``n`` is Black's field ``25 - n``. ``0`` means off the board.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass

Field = int
"""A field of one player's own course, 1..24; 0 means borne off."""

TALON: Field = 1
CORNER: Field = 12
OPPONENT_CORNER: Field = 13
OPPONENT_TALON: Field = 24
CHECKERS_PER_SIDE = 15
POINTS_PER_HOLE = 12
HOLES_PER_MATCH = 12


class EngineError(Exception):
    """Base class of every error the engine raises."""


class InvalidNotationError(EngineError, ValueError):
    """A position, move or dice notation could not be parsed."""


class IllegalMoveError(EngineError, ValueError):
    """A play is not legal for the position and the dice."""


class Color(enum.Enum):
    """One of the two players, named by the colour of his dames."""

    WHITE = "white"
    BLACK = "black"

    def other(self) -> Color:
        """Return the opponent's colour.

        Returns:
            ``BLACK`` for ``WHITE`` and ``WHITE`` for ``BLACK``.

        Raises:
            Nothing.

        >>> Color.WHITE.other()
        <Color.BLACK: 'black'>
        """
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @classmethod
    def parse(cls, text: str) -> Color:
        """Parse ``"white"``/``"w"``/``"black"``/``"b"`` (any case).

        Args:
            text: the colour's name or initial.

        Returns:
            The colour.

        Raises:
            InvalidNotationError: if ``text`` names no colour.

        >>> Color.parse("B")
        <Color.BLACK: 'black'>
        """
        key = text.strip().lower()
        for color in cls:
            if key in (color.value, color.value[0]):
                return color
        raise InvalidNotationError(f"not a colour: {text!r} (expected 'white' or 'black')")


def mirror_field(field: Field) -> Field:
    """Return the same field in the other player's numbering (``25 - field``; 0 stays 0).

    Args:
        field: a field 0..24.

    Returns:
        The field as the opponent numbers it.

    Raises:
        ValueError: if ``field`` is outside 0..24.

    >>> mirror_field(1), mirror_field(12), mirror_field(0)
    (24, 13, 0)
    """
    if not 0 <= field <= 24:
        raise ValueError(f"field out of range: {field!r} (expected 0..24)")
    return 0 if field == 0 else 25 - field


@dataclass(frozen=True, order=True)
class Dice:
    """One throw of the two dice."""

    a: int
    """The first die, 1..6."""
    b: int
    """The second die, 1..6."""

    def __post_init__(self) -> None:
        for value in (self.a, self.b):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
                raise InvalidNotationError(f"a die shows 1..6, not {value!r}")

    @property
    def is_double(self) -> bool:
        """True for a doublet (both dice alike)."""
        return self.a == self.b

    @property
    def high(self) -> int:
        """The higher die."""
        return max(self.a, self.b)

    @property
    def low(self) -> int:
        """The lower die."""
        return min(self.a, self.b)

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Parse ``"64"``, ``"6-4"``, ``"6 4"`` or ``"6,4"``.

        Args:
            text: two digits 1..6, optionally separated.

        Returns:
            The dice.

        Raises:
            InvalidNotationError: if ``text`` is not two dice.

        >>> Dice.parse("6-4")
        Dice(a=6, b=4)
        """
        digits = [c for c in text if not c.isspace() and c not in "-,/x"]
        if len(digits) != 2 or not all(c in "123456" for c in digits):
            raise InvalidNotationError(f"not a throw of two dice: {text!r} (expected e.g. '64')")
        return cls(int(digits[0]), int(digits[1]))

    @classmethod
    def roll(cls, rng: random.Random) -> Dice:
        """Roll two fair dice.

        Args:
            rng: the source of randomness (never the global one).

        Returns:
            The throw.

        Raises:
            Nothing.
        """
        return cls(rng.randint(1, 6), rng.randint(1, 6))

    def __str__(self) -> str:
        return f"{self.a}{self.b}"
