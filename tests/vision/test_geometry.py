"""The board geometry: every place sits where the rules and design.md put it."""

from __future__ import annotations

import pytest
from tablier.calibration.geometry import JETON_SPOTS, BoardGeometry, white_field
from tablier.engine import Color

G = BoardGeometry()


@pytest.mark.parametrize("field", range(1, 25))
def test_slots_lie_inside_their_field(field: int) -> None:
    x, yb, d = G.field_axis(field)
    for cx, cy in G.slot_centers(field):
        assert cx == x
        assert 0 < (cy - yb) * d < G.field_length


@pytest.mark.parametrize("field", range(1, 13))
def test_opposite_fields_share_a_column(field: int) -> None:
    # White's field n faces Black's field n across the board (Black's n is White's 25 - n).
    assert G.field_axis(field)[0] == G.field_axis(white_field(Color.BLACK, field))[0]
    assert G.field_axis(field)[2] == -G.field_axis(25 - field)[2]


def test_talons_are_at_the_left_end_and_corners_at_the_right() -> None:
    assert G.field_center(1)[0] < G.field_center(6)[0] < G.field_center(7)[0]
    assert G.field_center(12)[0] == max(G.field_center(f)[0] for f in range(1, 25))
    assert G.field_center(1)[1] > G.mid_y > G.field_center(24)[1]


@pytest.mark.parametrize("color", list(Color))
def test_holes_run_along_the_own_rail_from_the_talon(color: Color) -> None:
    _w, h = G.size
    xs = [G.hole_center(color, k)[0] for k in range(1, 13)]
    assert xs == sorted(xs)
    for k in range(1, 13):
        _x, y = G.hole_center(color, k)
        assert (y > h - G.rail) if color is Color.WHITE else (y < G.rail)
    assert G.hole_center(color, 0)[0] < G.rail


@pytest.mark.parametrize("color", list(Color))
@pytest.mark.parametrize("spot", JETON_SPOTS)
def test_jetons_stand_in_the_gap_on_their_side(color: Color, spot: int) -> None:
    x0, _y0, x1, _y1 = G.surface
    for index in (0, 1):
        x, y = G.jeton_center(color, spot, index)
        assert x0 < x < x1
        assert (G.mid_y < y < G.mid_y + G.gap / 2) if color is Color.WHITE else (
            G.mid_y - G.gap / 2 < y < G.mid_y)


def test_geometry_round_trips_and_refuses_nonsense() -> None:
    assert BoardGeometry.from_dict(G.to_dict()) == G
    with pytest.raises(ValueError, match="rail"):
        BoardGeometry.from_dict({"rail": -1})
    with pytest.raises(ValueError, match="unknown"):
        BoardGeometry.from_dict({"rails": 40})
    with pytest.raises(ValueError):
        G.field_axis(25)
    with pytest.raises(ValueError):
        G.hole_center(Color.WHITE, 13)


def test_a_geometry_saved_before_the_die_size_loads_with_the_usual_die() -> None:
    # calibration files written before die_size existed name every other dimension
    old = {k: v for k, v in G.to_dict().items() if k != "die_size"}
    assert BoardGeometry.from_dict(old).die_size == 16.0
    assert BoardGeometry.from_dict(G.to_dict() | {"die_size": 19}).die_size == 19
