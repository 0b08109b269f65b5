"""Jans: the points table, the scorers and the reasons, with boards drawn above assertions."""

from __future__ import annotations

import pytest
from tablier.engine import (
    JAN_POINTS,
    Color,
    Dice,
    InvalidNotationError,
    Jan,
    JanScore,
    Position,
    RuleOptions,
    jans,
    totals,
)


def test_one_points_table_for_every_jan() -> None:
    assert set(JAN_POINTS) == set(Jan)
    assert Jan.TRUE_HIT_GRAND_JAN.points_per_way(False) == 2
    assert Jan.TRUE_HIT_GRAND_JAN.points_per_way(True) == 4
    assert Jan.HELPLESS_MAN.points_per_way(True) == 2
    assert {j for j in Jan if j.to_opponent} == {
        Jan.CONTRE_DEUX_TABLES, Jan.CONTRE_MEZEAS, Jan.FALSE_HIT_PETIT_JAN,
        Jan.FALSE_HIT_GRAND_JAN, Jan.HELPLESS_MAN, Jan.MARGOT}
    assert Jan.parse("first_off") is Jan.FIRST_OFF
    with pytest.raises(InvalidNotationError, match="'first'"):
        Jan.parse("first")


def test_jan_score_compares_without_its_reason() -> None:
    a = JanScore(Jan.HIT_CORNER, Color.WHITE, 4, 1, "one reason")
    assert a == JanScore(Jan.HIT_CORNER, Color.WHITE, 4, 1, "another")
    assert a.to_json() == {"jan": "hit_corner", "scorer": "white", "points": 4, "ways": 1}
    assert totals([a, JanScore(Jan.HELPLESS_MAN, Color.BLACK, 2, 1)]) == {
        Color.WHITE: 4, Color.BLACK: 2}


def test_hit_reasons_say_which_man_hits_which_and_how() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B14
    #   .   .  B1   .   .   . | W1  W1   .   .   . W13
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    (score,) = jans(Position("1x13,5,6/1x14,15 w"), Dice(5, 4))
    assert score.jan is Jan.TRUE_HIT_GRAND_JAN and (score.points, score.ways) == (6, 3)
    assert score.reason == ("white hits black's lone man on 10 (black's 15) directly with the "
                            "5 from 5, directly with the 4 from 6, by 5+4 from 1")


def test_false_hit_reason_names_the_held_rests() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B10
    #   .  B1   .   .   .  B2 |  .  B2   .   .   . W15
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    scores = jans(Position("1x15/1x10,14,18x2,20x2 w"), (6, 4))
    false = next(s for s in scores if s.jan is Jan.FALSE_HIT_GRAND_JAN)
    assert false.player is Color.BLACK
    assert false.reason == ("white's man on 1 would hit black's lone man on 11 (black's 14) by "
                            "6+4, but the rest fields 7 and 5 are held by black")


def test_fill_reason_names_the_numbers_and_where_from() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .  W1   . | W1  W3  W2  W2  W3  W3
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    (score,) = jans(Position("1x3,2x3,3x2,4x2,5x3,6,8/1x15 w"), Dice(4, 1))
    assert score.reason == ("fills the petit jan covering the half-field 6: by the 4 from 2, "
                            "by the 1 from 5, by 4+1 tout d'une from 1")


def test_black_scores_the_same_jans_in_his_own_numbering() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .  W1   .   . |  .   .   .  B1  B1 B13
    #   .   .   .   .   .   . |  .   .   .   .   . W14
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    # White's lone man on his 15 is Black's 10: Black's man on his 2 reaches it by 6+2 (rests
    # 8 and 4 open); nothing stands on Black's 4 or 8 for a direct hit: one way, 2 points.
    scores = jans(Position("1x14,15/1x13,2,3 b"), Dice(6, 2))
    assert [(s.jan, s.player, s.points, s.ways) for s in scores] == [
        (Jan.TRUE_HIT_GRAND_JAN, Color.BLACK, 2, 1)]


def test_six_tables_from_the_men_when_the_throw_count_is_unknown() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    #   .   .   .   .   .   . |  .  W1  W1  W1  W1 W11
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    p = Position("1x11,2,3,4,5/1x15 w")
    assert [s.jan for s in jans(p, Dice(6, 5))] == [Jan.SIX_TABLES]
    assert jans(p, Dice(6, 5), rolls_so_far=4) == ()


def test_obsolete_jans_only_by_agreement() -> None:
    #  13  14  15  16  17  18 | 19  20  21  22  23  24
    #   .   .   .   .   .   . |  .   .   .   .   . B15
    # W15   .   .   .   .   . |  .   .   .   .   .   .
    #  12  11  10   9   8   7 |  6   5   4   3   2   1
    p = Position("12x15/1x15 w")
    assert Jan.PILE_DE_MISERE not in {s.jan for s in jans(p, Dice(6, 5))}
    assert Jan.PILE_DE_MISERE in {s.jan for s in jans(
        p, Dice(6, 5), options=RuleOptions.with_obsolete_jans())}


def test_docs_list_every_jan_identifier_with_its_points() -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text("utf-8")
    rows = re.findall(r"^\| `([a-z_]+)` \| [^|]+ \| (\d) / (\d|—) \|", text, re.MULTILINE)
    assert {name for name, _, _ in rows} == {jan.value for jan in Jan}
    for name, single, double in rows:
        jan = Jan(name)
        assert jan.points_per_way(False) == int(single)
        if double != "—":
            assert jan.points_per_way(True) == int(double)
