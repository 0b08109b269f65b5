"""The physical layout of a trictrac board, in millimetres on the board's own plane.

The board is seen from above with White seated at the bottom edge and both talons at the
left end. Coordinates are ``(x, y)`` millimetres from the outer top-left corner of the rail
frame, ``x`` to the right and ``y`` down, as in an image.

White's fields 1..12 run left to right along the bottom (1 = his talon, 12 = his corner),
fields 13..24 right to left along the top (13 = Black's corner, 24 = Black's talon). Black's
field ``n`` is White's ``25 - n``. The bottom side rail holds White's twelve holes (hole ``i``
at the base of his field ``i``), the top rail Black's; the left end rail holds the two start
holes (hole 0) and the pavillon's hole between them. Four ArUco markers sit on the corner
blocks of the frame (ids 0..3 clockwise from the top-left).

>>> g = BoardGeometry()
>>> g.size
(600.0, 560.0)
>>> g.field_center(1), g.field_center(24)
((65.0, 415.0), (65.0, 145.0))
>>> len(g.slot_centers(1))
5
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from tablier.engine import Color

FloatArray = npt.NDArray[np.float64]

MARKER_IDS: tuple[int, int, int, int] = (0, 1, 2, 3)
"""ArUco ids of the markers at the top-left, top-right, bottom-right and bottom-left corners."""

JETON_REST = 0
"""The jeton spot "by the talons on the end rail" (no points)."""
JETON_SPOTS: tuple[int, ...] = (2, 4, 6, 7, 12)
"""The fields (own numbering) beside which a jeton can stand when a player has points."""


@dataclass(frozen=True)
class BoardGeometry:
    """Dimensions of the board; every other position is derived from these."""

    rail: float = 45.0
    """Width of the rails (side, end and corner blocks), mm."""
    field_width: float = 40.0
    """Width of one flèche at its base, mm."""
    field_length: float = 200.0
    """Length of one flèche from base to tip, mm."""
    gap: float = 70.0
    """Distance between the tips of the two rows (where the jetons stand), mm."""
    bar: float = 30.0
    """Width of the bridge (pont) between the two halves, mm."""
    checker_diameter: float = 37.0
    """Diameter of a dame, mm."""
    slots: int = 5
    """How many dames fit in a row along one flèche (more are piled)."""
    hole_diameter: float = 9.0
    """Diameter of a rail hole, mm."""
    jeton_diameter: float = 22.0
    """Diameter of a jeton, mm."""
    die_size: float = 16.0
    """Edge of a die, mm."""
    marker_size: float = 38.0
    """Side of the black square of one ArUco marker, mm (centred on a corner block)."""
    surface_depth: float = 0.0
    """How far the playing surface lies below the rails' top (where the markers are), mm; 0
    reads the whole board as one plane."""

    # Overall shape
    @property
    def surface(self) -> tuple[float, float, float, float]:
        """The playing surface inside the rails: ``(x0, y0, x1, y1)`` mm."""
        w = 12 * self.field_width + self.bar
        h = 2 * self.field_length + self.gap
        return (self.rail, self.rail, self.rail + w, self.rail + h)

    @property
    def size(self) -> tuple[float, float]:
        """Outer width and height of the board, mm."""
        _x0, _y0, x1, y1 = self.surface
        return (x1 + self.rail, y1 + self.rail)

    @property
    def bridge_x(self) -> float:
        """The centre line of the bridge between the two halves, mm."""
        return self.rail + 6 * self.field_width + self.bar / 2

    @property
    def corners(self) -> FloatArray:
        """The outer corners, 4x2 (top-left, top-right, bottom-right, bottom-left), mm."""
        w, h = self.size
        return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])

    @property
    def mid_y(self) -> float:
        """The middle line between the two rows of fields, mm."""
        _x0, y0, _x1, y1 = self.surface
        return (y0 + y1) / 2

    # Fields (White's numbering 1..24)
    def _column_x(self, column: int) -> float:
        """Centre x of column 0..11 counted from the left (talon) end."""
        x = self.rail + (column + 0.5) * self.field_width
        return x + self.bar if column >= 6 else x

    def field_axis(self, field: int) -> tuple[float, float, float]:
        """The centre line of a field: ``(x, y_base, direction)``, direction +1 if downwards.

        Args:
            field: White's field number 1..24.

        Returns:
            The x of the centre line, the y of the base on the rail, and +1 if the field points
            down the image (top row) or -1 if it points up (bottom row).

        Raises:
            ValueError: if ``field`` is not 1..24.
        """
        if not 1 <= field <= 24:
            raise ValueError(f"field out of range: {field!r} (expected 1..24)")
        _x0, y0, _x1, y1 = self.surface
        if field <= 12:
            return (self._column_x(field - 1), y1, -1.0)
        return (self._column_x(24 - field), y0, 1.0)

    def field_center(self, field: int) -> tuple[float, float]:
        """The middle of a field's flèche, mm (White's numbering)."""
        x, yb, d = self.field_axis(field)
        return (x, yb + d * self.field_length / 2)

    def field_triangle(self, field: int) -> FloatArray:
        """The flèche as a triangle (base left, base right, tip), 3x2 mm."""
        x, yb, d = self.field_axis(field)
        hw = self.field_width / 2
        return np.array([[x - hw, yb], [x + hw, yb], [x, yb + d * self.field_length]])

    def slot_pitch(self) -> float:
        """Distance between two dames in a row along a flèche, mm."""
        return self.checker_diameter + 1.0

    def slot_centers(self, field: int) -> list[tuple[float, float]]:
        """Where the dames of a row stand along a field, from the base outwards, mm."""
        x, yb, d = self.field_axis(field)
        p = self.slot_pitch()
        return [(x, yb + d * (1.0 + p * (k + 0.5))) for k in range(self.slots)]

    # Holes and pegs
    def hole_center(self, color: Color, hole: int) -> tuple[float, float]:
        """The rail hole where a player's fichet stands after ``hole`` holes, mm.

        Args:
            color: whose side.
            hole: 0 (start hole on the talon end rail) .. 12 (base of his corner).

        Returns:
            The centre of the hole.

        Raises:
            ValueError: if ``hole`` is not 0..12.
        """
        if not 0 <= hole <= 12:
            raise ValueError(f"hole out of range: {hole!r} (expected 0..12)")
        _w, h = self.size
        if hole == 0:
            dy = 0.17 * (h - 2 * self.rail)
            y = self.mid_y + (dy if color is Color.WHITE else -dy)
            return (self.rail / 2, y)
        x = self._column_x(hole - 1)
        y = h - self.rail / 2 if color is Color.WHITE else self.rail / 2
        return (x, y)

    def pavillon_hole(self) -> tuple[float, float]:
        """The middle hole of the talon end rail, where the pavillon starts, mm."""
        return (self.rail / 2, self.mid_y)

    def spare_holes(self) -> list[tuple[float, float]]:
        """The three unused holes of the far end rail, mm."""
        w, h = self.size
        dy = 0.17 * (h - 2 * self.rail)
        return [(w - self.rail / 2, self.mid_y + k * dy) for k in (-1, 0, 1)]

    # Jetons
    def jeton_center(self, color: Color, spot: int, index: int = 0) -> tuple[float, float]:
        """Where a jeton stands, mm.

        Args:
            color: whose side (ignored for the rest spot, which both share).
            spot: ``JETON_REST`` (0) or a field of ``JETON_SPOTS`` in that player's numbering.
            index: 0 for the first jeton on the spot, 1 for the bredouille jeton beside it
                (2 for the third jeton at rest).

        Returns:
            The jeton's centre.

        Raises:
            ValueError: for an unknown spot or index.
        """
        if spot == JETON_REST:
            if not 0 <= index <= 2:
                raise ValueError(f"rest jeton index out of range: {index!r}")
            x = self.rail + self.jeton_diameter * 0.7
            return (x, self.mid_y + (index - 1) * (self.jeton_diameter + 2.0))
        if spot not in JETON_SPOTS or index not in (0, 1):
            raise ValueError(f"no jeton spot {spot!r} index {index!r} (spots {JETON_SPOTS})")
        white_field = spot if color is Color.WHITE else 25 - spot
        x, yb, d = self.field_axis(white_field)
        y = yb + d * (self.field_length + self.jeton_diameter * 0.65)
        if index == 1:
            column = spot - 1
            step = self.jeton_diameter + 1.0
            x = x - step if column % 6 != 0 else x + step
        return (x, y)

    def marker_center(self, index: int) -> tuple[float, float]:
        """The centre of the ArUco marker on corner block ``index`` (0..3 clockwise), mm."""
        w, h = self.size
        r = self.rail / 2
        return [(r, r), (w - r, r), (w - r, h - r), (r, h - r)][index]

    def marker_corners(self, index: int) -> FloatArray:
        """The four corners of marker ``index`` in ArUco's order (clockwise from top-left), mm."""
        cx, cy = self.marker_center(index)
        s = self.marker_size / 2
        return np.array([[cx - s, cy - s], [cx + s, cy - s], [cx + s, cy + s], [cx - s, cy + s]])

    def to_dict(self) -> dict[str, float | int]:
        """The dimensions as a JSON-ready dict.

        Returns:
            Every dataclass field by name.

        Raises:
            Nothing.
        """
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> BoardGeometry:
        """Build a geometry from :meth:`to_dict`'s output.

        Args:
            data: the dimensions by name; unknown names are rejected.

        Returns:
            The geometry.

        Raises:
            ValueError: for an unknown name or a non-positive dimension.
        """
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown board dimension(s): {sorted(unknown)!r}")
        values: dict[str, float | int] = {}
        for name, value in data.items():
            low_ok = name == "surface_depth" and isinstance(value, (int, float)) and value == 0
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or (value <= 0 and not low_ok)):
                raise ValueError(f"board dimension {name!r} must be a positive number, "
                                 f"not {value!r}")
            values[name] = int(value) if name == "slots" else float(value)
        return cls(**values)  # type: ignore[arg-type]


def white_field(color: Color, field: int) -> int:
    """Convert a field in ``color``'s own numbering to White's numbering.

    Args:
        color: whose numbering ``field`` is in.
        field: 1..24.

    Returns:
        White's number for the same flèche.

    Raises:
        Nothing.

    >>> white_field(Color.BLACK, 1), white_field(Color.WHITE, 1)
    (24, 1)
    """
    return field if color is Color.WHITE else 25 - field
