"""The tracker on synthetic views: no camera, no vision, toy rules (toyrules.toy_legal)."""

from __future__ import annotations

import json
from dataclasses import replace

from toyrules import toy_legal

from tablier.tracker import (
    START,
    Board,
    BoardView,
    FalseMoveSeen,
    FieldView,
    GatheredSeen,
    NoticeSeen,
    Phase,
    PlaySeen,
    QuestionRaised,
    RerollSeen,
    Side,
    ThrowSeen,
    Tracker,
    TrackerEvent,
    rank_candidates,
    view_of_board,
)


def moved(board: Board, *moves: tuple[int, int]) -> Board:
    b = list(board)
    for f, t in moves:
        b[f - 1] -= 1
        b[t - 1] += 1
    return tuple(b)


def frames(tracker: Tracker, views: list[BoardView], repeat: int = 3) -> list[TrackerEvent]:
    out: list[TrackerEvent] = []
    n = 0
    for v in views:
        for _ in range(repeat):
            out.extend(tracker.feed(replace(v, frame=n, t=n / 10)))
            n += 1
    return out


HAND = BoardView(frame=0, t=0.0, occluded=True)


def test_one_turn_throw_then_play() -> None:
    tracker = Tracker(toy_legal)
    after = moved(START, (1, 7), (1, 5))
    events = frames(tracker, [view_of_board(START), HAND, view_of_board(START, dice=(6, 4))])
    assert [type(e) for e in events] == [ThrowSeen]
    assert isinstance(events[0], ThrowSeen) and events[0].dice == (6, 4)
    tracker.expect_play((6, 4), "white")
    assert tracker.phase is Phase.AWAIT_PLAY
    events = frames(tracker, [HAND, view_of_board(after, dice=(6, 4)), HAND,
                              view_of_board(after)])
    assert [type(e) for e in events] == [PlaySeen]
    play = events[0]
    assert isinstance(play, PlaySeen) and play.candidate.board == after and not play.asked
    assert tracker.board == after and tracker.phase is Phase.AWAIT_THROW


def test_settled_means_still_with_no_hand() -> None:
    tracker = Tracker(toy_legal, still_frames=3)
    v = view_of_board(START, dice=(3, 3))
    assert tracker.feed(v) == [] and tracker.feed(v) == []
    assert tracker.feed(HAND) == []
    assert tracker.feed(v) == [] and tracker.feed(v) == []
    assert [type(e) for e in tracker.feed(v)] == [ThrowSeen]
    assert tracker.feed(v) == []


def test_bad_throw_asks_for_a_reroll() -> None:
    tracker = Tracker(toy_legal)
    cocked = replace(view_of_board(START), dice=None, dice_seen=2, bad_throw="cocked")
    events = frames(tracker, [cocked, HAND, view_of_board(START, dice=(2, 1))])
    assert [type(e) for e in events] == [RerollSeen, ThrowSeen]


def test_false_move_lists_alternatives() -> None:
    tracker = Tracker(toy_legal)
    tracker.expect_play((6, 4), "white")
    wrong = moved(START, (1, 3), (1, 4))  # not 6 and 4
    events = frames(tracker, [HAND, view_of_board(wrong, dice=(6, 4))])
    assert [type(e) for e in events] == [FalseMoveSeen]
    fm = events[0]
    assert isinstance(fm, FalseMoveSeen) and fm.alternatives and fm.board_cost > 1.5
    # the player puts it right: the legal play is then accepted
    right = moved(START, (1, 7), (1, 5))
    events = frames(tracker, [HAND, view_of_board(right, dice=(6, 4)), view_of_board(right)])
    assert [type(e) for e in events] == [PlaySeen]


def blind_start() -> Board:
    board = list(START)
    board[0], board[2], board[3] = 11, 2, 2
    return tuple(board)


def test_uncertain_asks_instead_of_guessing() -> None:
    # Two white men on 3 and two on 4; dice 2-1. 3->5 with 4->5, or 3->4->5, leave the same
    # fields occupied: a camera blind to counts cannot tell them apart.
    start = blind_start()
    tracker = Tracker(toy_legal, board=start)
    tracker.expect_play((2, 1), "white")
    after = moved(start, (3, 5), (4, 5))
    view = view_of_board(after, dice=(2, 1))
    blind = replace(view, fields=tuple(
        replace(f, at_least=True, visible=1) if f.side is not None else f
        for f in view.fields or ()))
    events = frames(tracker, [HAND, blind])
    assert [type(e) for e in events] == [QuestionRaised]
    q = events[0]
    assert isinstance(q, QuestionRaised) and len(q.options) == 2
    assert after in [c.board for c in q.options]
    # nobody answered: taking the dice up does not guess
    events = frames(tracker, [HAND, replace(blind, dice=None, dice_seen=0)])
    assert not any(isinstance(e, PlaySeen) for e in events)
    assert tracker.phase is Phase.AWAIT_PLAY


def test_uncertain_answered_by_a_player() -> None:
    start = blind_start()
    after = moved(start, (3, 5), (4, 5))
    chosen: list[QuestionRaised] = []

    def answer(q: QuestionRaised):  # type: ignore[no-untyped-def]
        chosen.append(q)
        return next(c for c in q.options if c.board == after)

    tracker = Tracker(toy_legal, board=start, answer=answer)
    tracker.expect_play((2, 1), "white")
    view = view_of_board(after, dice=(2, 1))
    blind = replace(view, fields=tuple(
        replace(f, at_least=True, visible=1) if f.side is not None else f
        for f in view.fields or ()))
    events = frames(tracker, [HAND, blind, HAND, replace(blind, dice=None, dice_seen=0)])
    plays = [e for e in events if isinstance(e, PlaySeen)]
    assert len(chosen) == 1 and len(plays) == 1
    assert plays[0].asked and plays[0].candidate.board == after


def test_gathered_men_mean_a_go() -> None:
    board = moved(START, (1, 7), (1, 5))
    tracker = Tracker(toy_legal, board=board)
    tracker.expect_play((5, 5), "white", may_go=True)
    events = frames(tracker, [HAND, view_of_board(START, dice=(5, 5))])
    assert [type(e) for e in events] == [GatheredSeen]
    assert tracker.board == START and tracker.phase is Phase.AWAIT_THROW


def test_black_plays_in_his_own_numbering() -> None:
    tracker = Tracker(toy_legal)
    tracker.expect_play((2, 1), "black")
    b = list(START)  # in White's numbering Black moves from 24 downward
    b[23] += 2
    b[21] -= 1
    b[22] -= 1
    after = tuple(b)
    events = frames(tracker, [HAND, view_of_board(after, dice=(2, 1)), HAND,
                              view_of_board(after)])
    play = [e for e in events if isinstance(e, PlaySeen)]
    assert play and sorted(play[0].candidate.play) == [(1, 2), (1, 3)]


def test_unreadable_frame_is_a_notice_once() -> None:
    tracker = Tracker(toy_legal)
    bad = BoardView(frame=3, t=0.3, problem="corrupt JPEG")
    events = tracker.feed(bad) + tracker.feed(bad)
    assert [type(e) for e in events] == [NoticeSeen]
    assert "corrupt JPEG" in events[0].text  # type: ignore[union-attr]


def test_nothing_moved_and_dice_taken_up_is_flagged() -> None:
    tracker = Tracker(toy_legal)
    tracker.expect_play((6, 4), "white")
    events = frames(tracker, [view_of_board(START, dice=(6, 4)), HAND, view_of_board(START)])
    assert FalseMoveSeen in [type(e) for e in events]
    assert tracker.phase is Phase.AWAIT_PLAY


def test_snapshot_restores_the_same_future() -> None:
    after = moved(START, (1, 7), (1, 5))
    script = [view_of_board(START), HAND, view_of_board(START, dice=(6, 4)), HAND,
              view_of_board(after, dice=(6, 4)), HAND, view_of_board(after)]
    views = [replace(v, frame=i * 3 + k) for i, v in enumerate(script) for k in range(3)]

    def run(tracker: Tracker, vs: list[BoardView]) -> list[str]:
        out = []
        for v in vs:
            for e in tracker.feed(v):
                out.append(repr(e))
                if isinstance(e, ThrowSeen):
                    tracker.expect_play(e.dice, "white")
        return out

    whole = run(Tracker(toy_legal), views)
    for cut in range(len(views)):
        first = Tracker(toy_legal)
        head = run(first, views[:cut])
        state = json.loads(json.dumps(first.snapshot()))
        second = Tracker(toy_legal)
        second.restore(state)
        assert head + run(second, views[cut:]) == whole


def test_rank_prefers_the_play_that_explains_the_view() -> None:
    after = moved(START, (1, 7), (1, 5))
    ranked = rank_candidates(toy_legal(START, "white", (6, 4)), view_of_board(after))
    assert ranked[0].board == after and ranked[0].cost == 0.0
    assert all(c.cost > 0 for c in ranked[1:])
    # a view with one field misread in colour still ranks the true play first
    v = view_of_board(after)
    fields = list(v.fields or ())
    fields[6] = FieldView(Side.WHITE, 1, confidence=0.2)
    assert rank_candidates(toy_legal(START, "white", (6, 4)),
                           replace(v, fields=tuple(fields)))[0].board == after
