"""The session on simulated matches: engine + tracker + journal + displays, no camera."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tablier.engine import Choice, Marks

from tablier.journal import read_journal
from tablier.session import MatchInfo, Session, SessionError
from tablier.simulate import simulate_match
from tablier.tracker import QuestionRaised


class Recorder:
    def __init__(self) -> None:
        self.shown: list[tuple[Marks, Any]] = []
        self.presses: list[Any] = []

    def show(self, marks: Marks, *, status: Any = "idle") -> None:
        self.shown.append((marks, status))

    def poll_events(self) -> list[Any]:
        out, self.presses = self.presses, []
        return out


def per_throw(events: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """Group a journal into throws as the simulation's truth records them."""
    out: list[dict[str, Any]] = []
    for e in events:
        k = e["kind"]
        if k == "throw":
            out.append({"by": e["by"], "dice": e["dice"], "jans": [], "decision": None})
        elif k == "jan":
            out[-1]["jans"].append([e["jan"], e["player"], e["points"]])
        elif k == "decision":
            out[-1]["decision"] = e["choice"]
        elif k == "seen" and out:
            out[-1]["score"] = {key: e["score"][key] for key in ("white", "black", "pavillon")}
            out[-1]["board_seen"] = e["board"]
        elif k == "play":
            out[-1]["play"] = e["moves"]
    return out


def run(path: Path, seed: int, throws: int, **kw: Any) -> tuple[Session, list[dict[str, Any]]]:
    views, truth = simulate_match(seed=seed, throws=throws, pile=15)
    display = Recorder()
    session = Session.start(path, MatchInfo(white="A", black="B"), displays=[display], **kw)
    for v in views:
        session.step(v)
    session.close()
    return session, truth


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_simulated_match_reproduces_its_truth(tmp_path: Path, seed: int) -> None:
    session, truth = run(tmp_path / "m.jsonl", seed, 40)
    got = per_throw(read_journal(tmp_path / "m.jsonl").events)
    assert len(got) == len(truth)
    for i, (g, t) in enumerate(zip(got, truth, strict=True)):
        assert (g["by"], g["dice"], g["jans"], g["decision"]) == \
            (t["by"], t["dice"], t["jans"], t["decision"]), f"throw {i + 1}"
        assert g["score"] == t["score"], f"throw {i + 1}"
    # the position the tracker ends on is the truth's
    assert list(session.tracker.board) in (truth[-1]["board"], [15] + [0] * 22 + [-15])


def test_displays_follow_every_throw(tmp_path: Path) -> None:
    views, truth = simulate_match(seed=4, throws=10, pile=15)
    display = Recorder()
    session = Session.start(tmp_path / "m.jsonl", MatchInfo(), displays=[display])
    for v in views:
        session.step(v)
    assert len(display.shown) >= len(truth)
    final = display.shown[-1][0]
    s = truth[-1]["score"]
    assert final.white.peg_hole == s["white"]["holes"]
    assert final.black.peg_hole == s["black"]["holes"]


def test_uncertain_piles_are_flagged_not_guessed(tmp_path: Path) -> None:
    views, truth = simulate_match(seed=9, throws=30, pile=2)
    session = Session.start(tmp_path / "m.jsonl", MatchInfo())
    for v in views:
        session.step(v)
    kinds = [e["kind"] for e in read_journal(tmp_path / "m.jsonl").events]
    assert "question" in kinds
    # nothing was guessed: every play recorded is the truth's
    got = per_throw(read_journal(tmp_path / "m.jsonl").events)
    for g, t in zip(got, truth, strict=False):
        if "play" in g:
            assert g["by"] == t["by"] and g["dice"] == t["dice"]


def test_questions_answered_by_the_players(tmp_path: Path) -> None:
    views, truth = simulate_match(seed=9, throws=30, pile=2)
    boards = [t["board"] for t in truth]
    asked: list[QuestionRaised] = []

    def answer(q: QuestionRaised):  # type: ignore[no-untyped-def]
        asked.append(q)
        return next((c for c in q.options if list(c.board) in boards), None)

    session = Session.start(tmp_path / "m.jsonl", MatchInfo(), answer=answer)
    for v in views:
        session.step(v)
    got = per_throw(read_journal(tmp_path / "m.jsonl").events)
    assert asked and len(got) == len(truth)
    assert [g["score"] for g in got] == [t["score"] for t in truth]


def test_resume_after_every_commit_gives_the_same_journal(tmp_path: Path) -> None:
    views, _ = simulate_match(seed=2, throws=12, pile=15)
    whole = tmp_path / "whole.jsonl"
    s = Session.start(whole, MatchInfo())
    for v in views:
        s.step(v)
    s.close()
    reference = whole.read_bytes()
    lines = reference.splitlines(keepends=True)
    # cut the journal after every line, and in the middle of a few: resume must finish it
    cuts = list(range(1, len(lines), 3)) + [len(b"".join(lines[:7])) + 5]
    for k, cut in enumerate(cuts):
        part = tmp_path / f"part{k}.jsonl"
        data = b"".join(lines[:cut]) if cut < len(lines) else reference[:cut]
        if k == len(cuts) - 1:
            data = reference[:cut]
        part.write_bytes(data)
        session, found = Session.resume(part)
        for v in views[found.next_frame:]:
            session.step(v)
        session.close()
        assert part.read_bytes() == reference, f"cut {cut}"


def test_decision_from_a_button(tmp_path: Path) -> None:
    session = Session.start(tmp_path / "m.jsonl", MatchInfo())
    with pytest.raises(SessionError, match="no decision"):
        session.decide(Choice.GO)


def test_resume_refuses_a_foreign_journal(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text('{"kind": "throw"}\n')
    with pytest.raises(SessionError, match="header"):
        Session.resume(p)
    assert p.read_text() == '{"kind": "throw"}\n'  # untouched


def test_misread_dice_are_taken_back_when_the_men_tell(tmp_path: Path) -> None:
    from dataclasses import replace

    from tablier.replay import compare, truth_from_json

    views, truth = simulate_match(seed=9, throws=6, pile=15)  # 4-5 played 1/5 1/6
    first = tuple(truth[0]["dice"])
    wrong = (6, 6) if sorted(first) != [6, 6] else (1, 1)
    # the camera misreads the first throw while the dice lie settled, reads them right after
    thrown = [i for i, v in enumerate(views) if v.dice == first]
    settled = thrown[:3]
    views = [replace(v, dice=wrong) if i in settled else v for i, v in enumerate(views)]
    session = Session.start(tmp_path / "m.jsonl", MatchInfo())
    for v in views:
        session.step(v)
    events = read_journal(tmp_path / "m.jsonl").events
    kinds = [e["kind"] for e in events]
    assert "retract" in kinds
    verdict = compare(truth_from_json(truth), events)
    assert verdict.exact, verdict.text()
    assert any("retract" in f for f in verdict.flagged)
    # and a resumed session rebuilds the same match from the journal
    resumed, _ = Session.resume(tmp_path / "m.jsonl")
    assert resumed.game.score == session.game.score


def test_unreadable_dice_are_asked_then_called_by_hand(tmp_path: Path) -> None:
    from dataclasses import replace

    from tablier.replay import compare, truth_from_json

    views, truth = simulate_match(seed=9, throws=4, pile=15)
    first = tuple(truth[0]["dice"])
    hidden = [i for i, v in enumerate(views) if v.dice == first][:3]
    views = [replace(v, dice=None) if i in hidden else v for i, v in enumerate(views)]
    session = Session.start(tmp_path / "m.jsonl", MatchInfo())
    for i, v in enumerate(views):
        session.step(v)
        if i == hidden[-1]:
            assert session.open_question is not None
            assert session.open_question.about == "dice"
            with pytest.raises(SessionError, match="choose"):
                session.answer(99)
            n = next(k for k, c in enumerate(session.open_question.options, start=1)
                     if c.dice is not None and sorted(c.dice) == sorted(first))
            session.answer(n)
    events = read_journal(tmp_path / "m.jsonl").events
    assert [e["kind"] for e in events].count("question") == 1
    assert compare(truth_from_json(truth), events).exact


def test_a_button_decides_to_go(tmp_path: Path) -> None:
    from tablier.engine import Color
    from tablier.hardware import Decision, EventKind, MarkerEvent, RecordingMarkers

    views, truth = simulate_match(seed=2, throws=60, pile=15, go_rate=0.0)
    hole = next(i for i, t in enumerate(truth) if t["decision"] == "stay")
    display = RecordingMarkers()
    session = Session.start(tmp_path / "m.jsonl", MatchInfo(), displays=[display])
    pressed = False
    for v in views:
        session.step(v)
        turn = session.game.state.turn
        if not pressed and turn is not None and turn.won_hole and turn.decision is None:
            assert sum(1 for e in session.game.history if e.kind == "throw") == hole + 1
            display.press(MarkerEvent(EventKind.CORRECT))
            display.press(MarkerEvent(EventKind.DECISION, Color(turn.roller.value),
                                      Decision.GO))
            pressed = True
            break
    assert pressed
    session.step(views[-1])  # the next frame polls the buttons
    kinds = [(e["kind"], e.get("choice")) for e in read_journal(tmp_path / "m.jsonl").events]
    assert ("decision", "go") in kinds and ("releve", None) in kinds
    assert ("notice", None) in kinds
    assert session.tracker.board == (15,) + (0,) * 22 + (-15,)


def test_a_failing_display_does_not_stop_the_match(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    class Unplugged(Recorder):
        def show(self, marks: Marks, *, status: Any = "idle") -> None:
            raise OSError("device disconnected")

        def poll_events(self) -> list[Any]:
            raise OSError("device disconnected")

    views, truth = simulate_match(seed=3, throws=5, pile=15)
    good = Recorder()
    session = Session.start(tmp_path / "m.jsonl", MatchInfo(), displays=[Unplugged(), good])
    for v in views:
        session.step(v)
    assert len(per_throw(read_journal(tmp_path / "m.jsonl").events)) == len(truth)
    assert len(good.shown) > len(truth)
    assert "device disconnected" in caplog.text


def test_markers_left_wrong_are_noticed(tmp_path: Path) -> None:
    from dataclasses import replace

    from tablier.engine import Score

    views, truth = simulate_match(seed=3, throws=12, pile=15)
    untouched = Marks.from_scores(Score(), Score())  # nobody ever moves a jeton
    views = [replace(v, marks=untouched) if v.fields is not None else v for v in views]
    session = Session.start(tmp_path / "m.jsonl", MatchInfo())
    for v in views:
        session.step(v)
    notices = [e["text"] for e in read_journal(tmp_path / "m.jsonl").events
               if e["kind"] == "notice"]
    scored = sum(1 for t in truth if t["score"]["white"]["points"] or t["score"]["black"]["points"]
                 or t["score"]["white"]["holes"] or t["score"]["black"]["holes"])
    assert scored and notices
    assert all("differ from the score" in n for n in notices)
    assert any("jeton at 0, should be at" in n for n in notices)


@pytest.mark.parametrize("flat_later", [False, True])
def test_a_cocked_die_the_players_accept_is_called_by_hand(tmp_path: Path,
                                                          flat_later: bool) -> None:
    from dataclasses import replace

    from tablier.replay import compare, truth_from_json

    views, truth = simulate_match(seed=9, throws=5, pile=15)
    second = tuple(truth[1]["dice"])
    where = next(v.dice_at for i, v in enumerate(views)
                 if v.dice == second and i > 3 * 4 and v.dice_at)
    lying = [i for i, v in enumerate(views) if v.dice_at == where]
    settled = [i for i in lying if views[i].fields == views[lying[0]].fields]
    # the second throw lands with a die cocked against a man; it stays so while the men move,
    # or (flat_later) the reader later reads it as lying flat where it fell
    for i in lying:
        if i in settled or not flat_later:
            views[i] = replace(views[i], dice=None, dice_seen=2, bad_throw="cocked")
    session = Session.start(tmp_path / "m.jsonl", MatchInfo())
    for i, v in enumerate(views):
        lines = session.step(v)
        if i in settled and any(e["kind"] == "reroll" for e in lines):
            assert "witness" in next(e["text"] for e in lines if e["kind"] == "reroll")
            session.throw_by_hand(second)  # both players accept the inclined die
    events = read_journal(tmp_path / "m.jsonl").events
    assert [e["kind"] for e in events].count("reroll") == 1
    verdict = compare(truth_from_json(truth), events)
    assert verdict.exact, verdict.text()
    resumed, _ = Session.resume(tmp_path / "m.jsonl")
    assert resumed.game.score == session.game.score


def test_a_die_resting_on_the_other_is_told_as_such(tmp_path: Path) -> None:
    from dataclasses import replace

    views, truth = simulate_match(seed=9, throws=5, pile=15)
    second = tuple(truth[1]["dice"])
    where = next(v.dice_at for i, v in enumerate(views)
                 if v.dice == second and i > 3 * 4 and v.dice_at)
    # the second throw lands one die on the other: one die seen, the throw bad
    views = [replace(v, dice=None, dice_seen=1, bad_throw="on_die") if v.dice_at == where
             else v for v in views]
    session = Session.start(tmp_path / "m.jsonl", MatchInfo())
    told = [e["text"] for v in views for e in session.step(v) if e["kind"] == "reroll"]
    assert told and told[0] == "one die rests on the other: throw again"


def test_a_bad_throw_the_camera_cannot_tell_is_thrown_again(tmp_path: Path) -> None:
    # One die resting squarely on the other hides it: the camera sees one die and cannot read
    # the throw, so the players are asked; they throw again instead, and that throw counts.
    from dataclasses import replace

    from tablier.replay import compare, truth_from_json

    views, truth = simulate_match(seed=9, throws=4, pile=15)
    cup = next(i for i, v in enumerate(views) if v.occluded)
    stack = replace(views[cup - 1], dice=None, dice_seen=1, dice_at=((400.0, 300.0),))
    views = views[:cup] + [views[cup]] + [stack] * 3 + views[cup:]
    views = [replace(v, frame=n, t=n / 10) for n, v in enumerate(views)]
    session = Session.start(tmp_path / "m.jsonl", MatchInfo())
    asked = []
    for v in views:
        session.step(v)
        if session.open_question is not None:
            asked.append(session.open_question)
    assert asked and all(q.about == "dice" for q in asked)
    assert "throw again" in asked[0].question
    assert session.open_question is None
    events = read_journal(tmp_path / "m.jsonl").events
    assert [e["kind"] for e in events].count("question") == 1
    assert compare(truth_from_json(truth), events).exact
