"""Replaying a recorded game through the whole pipeline, and judging it against its truth.

A recorded game is a folder under ``fixtures/games/``: the frames, the calibration of the camera
that took them, and the ground truth of every throw. :func:`find_game` locates one (the bundled
demo by default, found from the package's location, not the working directory);
:func:`compare` checks a journal against the truth, throw by throw.

``sim:SEED`` names a simulated match instead (:mod:`tablier.simulate`): a perfect camera, no
vision, the same tracker, engine, markers and journal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tablier
from tablier.tracker import Board, BoardView, Candidate, FieldView, QuestionRaised, Side

DEMO = Path("fixtures") / "games" / "demo"
"""The bundled demo game, relative to the repository root."""

BAD_THROW = frozenset({"cocked", "on_die", "off_board", "stacked", "off board", "on die"})
"""Reasons a die is not read that make the throw void (the seeds' dice rules)."""


class GameError(ValueError):
    """A recorded game cannot be found or read."""


def repo_root() -> Path:
    """The repository (or source tree) that holds this package.

    Returns:
        The folder above the ``tablier`` package.

    Raises:
        Nothing.
    """
    return Path(tablier.__file__).resolve().parent.parent


def find_game(spec: str | None) -> Path:
    """Locate a recorded game folder.

    Args:
        spec: a folder, or a name under ``fixtures/games/``; None for the bundled demo.

    Returns:
        The folder.

    Raises:
        GameError: if there is no such game (the message says where it looked).
    """
    if spec is None:
        demo = repo_root() / DEMO
        if not demo.is_dir():
            raise GameError(f"the bundled demo game is missing: no folder {DEMO} in "
                            f"{repo_root()} (it is rendered by the vision part); "
                            f"'tablier replay sim:1' replays a simulated match instead")
        return demo
    p = Path(spec)
    if p.is_dir():
        return p
    named = repo_root() / "fixtures" / "games" / spec
    if named.is_dir():
        return named
    raise GameError(f"no recorded game at {spec!r} (nor {named})")


# Truth ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThrowTruth:
    """What really happened on one throw."""

    by: str
    """Who threw."""
    dice: tuple[int, int]
    """The dice."""
    jans: tuple[tuple[str, str, int], ...]
    """(jan, player, points) owed on it, in any order."""
    board: Board | None
    """The board after the play (the talons after a go); None when not recorded."""
    score: Mapping[str, Any] | None
    """``{"white": {points, holes, bredouille}, "black": ..., "pavillon"}`` after it."""
    decision: str | None = None
    """``"stay"`` / ``"go"`` after a hole won on this throw."""
    decision_known: bool = True
    """False when the truth does not record decisions (then they are not compared)."""
    marks: Mapping[str, Any] | None = None
    """The markers after it: per player ``token_spot``, ``bredouille_token``, ``peg_hole``,
    ``pavillon``, and ``pavillon``."""


def truth_from_json(records: Iterable[Mapping[str, Any]]) -> list[ThrowTruth]:
    """Read a game's truth (``game.json``'s ``throws``, or a simulation's records).

    Args:
        records: one object per throw: ``by``, ``dice``, ``jans`` (``[jan, player, points]``
            or ``{"jan", "player"|"scorer", "points"}``), optional ``board`` (24 signed
            counts) or ``white``/``black`` (own-numbering men), ``score``, ``decision``.

    Returns:
        The truth.

    Raises:
        GameError: if a record is malformed.
    """
    out: list[ThrowTruth] = []
    for i, r in enumerate(records):
        try:
            jans = []
            for j in r.get("jans", []):
                if isinstance(j, Mapping):
                    jans.append((str(j["jan"]), str(j.get("player", j.get("scorer"))),
                                 int(j["points"])))
                else:
                    jans.append((str(j[0]), str(j[1]), int(j[2])))
            board: Board | None = None
            if r.get("board") is not None:
                board = tuple(int(n) for n in r["board"])
            elif r.get("position_after") is not None:
                from tablier.engine import Position

                board = Position.from_notation(str(r["position_after"])).counts
            elif r.get("white") is not None and r.get("black") is not None:
                board = _board_from_men(r["white"], r["black"])
            out.append(ThrowTruth(by=str(r["by"]), dice=(int(r["dice"][0]), int(r["dice"][1])),
                                  jans=tuple(sorted(jans)), board=board,
                                  score=r.get("score"), decision=r.get("decision"),
                                  decision_known="decision" in r,
                                  marks=r.get("marks_after")))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise GameError(f"truth of throw {i + 1} is malformed: {exc!r}") from None
    return out


def _board_from_men(white: Mapping[str, int], black: Mapping[str, int]) -> Board:
    b = [0] * 24
    for f, n in white.items():
        b[int(f) - 1] += int(n)
    for f, n in black.items():
        b[24 - int(f)] -= int(n)
    return tuple(b)


@dataclass(frozen=True)
class Verdict:
    """How a journal compares with the truth."""

    throws: int
    """Throws in the truth."""
    recorded: int
    """Throws in the journal."""
    mismatches: tuple[str, ...]
    """One line per difference."""
    flagged: tuple[str, ...] = field(default_factory=tuple)
    """Uncertain turns: what was asked, and how it was answered."""

    @property
    def exact(self) -> bool:
        """True when every throw, play, jan and mark matches."""
        return not self.mismatches and self.throws == self.recorded

    def text(self) -> str:
        """The verdict as the replay prints it.

        Returns:
            A few lines.

        Raises:
            Nothing.
        """
        if self.exact:
            head = (f"verdict: EXACT - {self.throws} throws: every throw, play, jan and mark "
                    f"as in the ground truth")
        else:
            head = (f"verdict: DIFFERS - {len(self.mismatches)} difference(s) over "
                    f"{self.throws} throws ({self.recorded} recorded)")
        lines = [head]
        lines.extend(f"  {m}" for m in self.mismatches[:20])
        if len(self.mismatches) > 20:
            lines.append(f"  ... and {len(self.mismatches) - 20} more")
        if self.flagged:
            lines.append(f"  {len(self.flagged)} uncertain turn(s) flagged, not guessed:")
            lines.extend(f"    {f}" for f in self.flagged)
        return "\n".join(lines)


def journal_throws(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Group a journal's events by throw (for :func:`compare`).

    Args:
        events: the journal.

    Returns:
        One dict per throw: ``by``, ``dice``, ``jans``, ``decision``, ``board`` (after the
        play, from the commit that recorded it), ``score`` (after the throw's last commit),
        ``flags``.

    Raises:
        Nothing.
    """
    from tablier.engine import Color, IllegalMoveError
    from tablier.session import position_of
    from tablier.tracker import START

    out: list[dict[str, Any]] = []
    board: Board = START
    for e in events:
        kind = e.get("kind")
        if kind == "throw":
            flags = out.pop()["flags"] if out and out[-1].get("retracted") else []
            out.append({"by": e["by"], "dice": tuple(e["dice"]), "jans": [], "decision": None,
                        "board": None, "score": None, "flags": flags})
        elif kind == "releve":
            board = START
        elif kind == "retract" and out:
            flags = out.pop()["flags"]
            pending_flags = [*flags, f"throw {len(out) + 1}: retract: {e.get('text', '')}"]
            out.append({"by": "", "dice": (), "jans": [], "decision": None, "board": None,
                        "score": None, "flags": pending_flags, "retracted": True})
        elif kind == "correction":
            board = tuple(e["board"])
        elif not out:
            continue
        elif kind == "jan":
            out[-1]["jans"].append((e["jan"], e["player"], e["points"]))
        elif kind == "decision":
            out[-1]["decision"] = e["choice"]
            if e["choice"] == "go":
                out[-1]["board"] = board = START
        elif kind == "play":
            mover = Color(e["by"])
            try:
                after = position_of(board, mover).apply([tuple(m) for m in e["moves"]])
            except IllegalMoveError as exc:
                out[-1]["flags"].append(f"throw {len(out)}: play not possible: {exc}")
            else:
                board = after.counts
            out[-1]["board"] = board
        elif kind == "seen":
            out[-1]["score"] = e.get("score")
        elif kind in ("question", "answered", "false_move"):
            out[-1]["flags"].append(f"throw {len(out)}: {kind}: {e.get('text', '')}")
    return out


def compare(truth: Sequence[ThrowTruth], events: Sequence[Mapping[str, Any]]) -> Verdict:
    """Compare a journal with the ground truth, throw by throw.

    Args:
        truth: what really happened.
        events: the journal.

    Returns:
        The verdict.

    Raises:
        Nothing.
    """
    got = journal_throws(events)
    bad: list[str] = []
    flagged: list[str] = []
    for i, t in enumerate(truth):
        n = i + 1
        if i >= len(got):
            bad.append(f"throw {n}: missing from the journal (expected {t.by} {t.dice})")
            continue
        g = got[i]
        flagged.extend(g["flags"])
        if (g["by"], sorted(g["dice"])) != (t.by, sorted(t.dice)):
            bad.append(f"throw {n}: {g['by']} {g['dice']} recorded, {t.by} {t.dice} thrown")
            continue
        if tuple(sorted(g["jans"])) != t.jans:
            bad.append(f"throw {n}: jans {sorted(g['jans'])} recorded, {list(t.jans)} owed")
        if t.decision_known and (t.decision or None) != g["decision"]:
            bad.append(f"throw {n}: decision {g['decision']} recorded, {t.decision} made")
        if t.board is not None and g["board"] is not None and tuple(g["board"]) != t.board:
            bad.append(f"throw {n}: play leaves {list(g['board'])}, truth {list(t.board)}")
        elif t.board is not None and g["board"] is None:
            bad.append(f"throw {n}: the play was never recorded")
        if t.score is not None and g["score"] is not None:
            for who in ("white", "black"):
                want = {k: t.score[who][k] for k in ("points", "holes", "bredouille")
                        if k in t.score[who]}
                have = {k: g["score"][who][k] for k in want}
                if want != have:
                    bad.append(f"throw {n}: {who} marks {have}, truth {want}")
        if t.marks is not None and g["score"] is not None:
            have_marks = _marks_of(g["score"])
            for key in ("white", "black", "pavillon"):
                if key in t.marks and have_marks[key] != t.marks[key]:
                    bad.append(f"throw {n}: {key} markers {have_marks[key]}, truth "
                               f"{t.marks[key]}")
    for j in range(len(truth), len(got)):
        bad.append(f"throw {j + 1}: {got[j]['by']} {got[j]['dice']} recorded but never thrown")
    return Verdict(throws=len(truth), recorded=len(got), mismatches=tuple(bad),
                   flagged=tuple(flagged))


def _marks_of(score: Mapping[str, Any]) -> dict[str, Any]:
    from tablier.engine import Marks, Pavillon, Score

    def one(d: Mapping[str, Any]) -> Score:
        return Score(int(d["points"]), int(d["holes"]), bool(d["bredouille"]))

    m = Marks.from_scores(one(score["white"]), one(score["black"]),
                          Pavillon(score.get("pavillon", "middle")))

    def player(p: Any) -> dict[str, Any]:
        return {"token_spot": p.token_spot, "bredouille_token": p.bredouille_token,
                "peg_hole": p.peg_hole, "pavillon": p.pavillon}

    return {"white": player(m.white), "black": player(m.black), "pavillon": m.pavillon.value}


class TruthAnswer:
    """Answers the tracker's questions from the ground truth, as the players would.

    Every answer is counted: the verdict reports these turns as flagged, not guessed.

    Args:
        truth: the game's truth.
        throw_number: returns the number of the throw being played (1 for the first).
    """

    def __init__(self, truth: Sequence[ThrowTruth], throw_number: Any) -> None:
        self._truth = truth
        self._number = throw_number
        self.asked = 0

    def __call__(self, question: QuestionRaised) -> Candidate | None:
        """Pick the option the truth says was played.

        Args:
            question: the tracker's question.

        Returns:
            The true play, or None when the truth does not settle it.

        Raises:
            Nothing.
        """
        self.asked += 1
        n = int(self._number()) + (1 if question.about == "dice" else 0)
        if not 1 <= n <= len(self._truth):
            return None
        truth = self._truth[n - 1]
        if question.about == "dice":
            return next((c for c in question.options
                         if c.dice is not None and sorted(c.dice) == sorted(truth.dice)), None)
        return next((c for c in question.options if c.board == truth.board
                     and (c.dice is None or sorted(c.dice) == sorted(truth.dice))), None)


# Observations -> views ----------------------------------------------------------------------


def observation_view(obs: Any, *, frame: int, t: float) -> BoardView:
    """Turn the recogniser's ``Observation`` into the tracker's view.

    Args:
        obs: a :class:`tablier.vision.Observation` (read by attribute: ``occluded``,
            ``moving``, ``fields``, ``dice``).
        frame: the frame index.
        t: the frame time.

    Returns:
        The view: stacks seen are lower bounds (a pile counts once); a hand or motion makes
        the frame unread; a die cocked, on the other or off the board is a bad throw.

    Raises:
        Nothing.
    """
    if getattr(obs, "occluded", False):
        return BoardView(frame=frame, t=t, occluded=True)
    if getattr(obs, "moving", False):
        seen = tuple(getattr(obs, "dice", ()) or ())
        return BoardView(frame=frame, t=t, moving=True, dice_seen=len(seen),
                         dice_at=tuple((float(d.center[0]), float(d.center[1])) for d in seen),
                         die_size=(sum(float(d.size) for d in seen) / len(seen)
                                   if seen else 20.0))
    fields: tuple[FieldView, ...] | None = None
    readings = tuple(getattr(obs, "fields", ()) or ())
    if len(readings) == 24:
        fields = tuple(
            FieldView(side=None if r.color is None or r.visible == 0
                      else Side(getattr(r.color, "value", r.color)),
                      visible=int(r.visible), at_least=True,
                      confidence=float(getattr(r, "confidence", 1.0)))
            for r in sorted(readings, key=lambda r: int(r.field)))
    dice = tuple(getattr(obs, "dice", ()) or ())
    bad = next((str(d.reason) for d in dice if d.value is None
                and str(d.reason) in BAD_THROW), None)
    values = [d.value for d in dice]
    read = (int(values[0]), int(values[1])) if len(values) == 2 and None not in values else None
    size = sum(float(d.size) for d in dice) / len(dice) if dice else 20.0
    return BoardView(frame=frame, t=t, dice=read if bad is None else None,
                     dice_seen=len(dice), bad_throw=bad,
                     dice_at=tuple((float(d.center[0]), float(d.center[1])) for d in dice),
                     die_size=size,
                     dice_confidence=min((float(d.confidence) for d in dice), default=1.0),
                     fields=fields, marks=_seen_marks(obs))


def _seen_marks(obs: Any) -> Any:
    reading = getattr(obs, "marks", None)
    if reading is None or not hasattr(reading, "marks"):
        return None
    try:
        return reading.marks()
    except (ValueError, TypeError, IndexError):
        return None


# Recorded games ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedGame:
    """A recorded game's files."""

    folder: Path
    """The game's folder."""
    frames: Path
    """The folder of frames (or a video)."""
    calibration: Path | None
    """The camera's calibration file, None if absent."""
    truth: tuple[ThrowTruth, ...]
    """The ground truth."""
    info: Mapping[str, Any]
    """Header values (players, first to throw, rules, fps)."""
    files: tuple[Path, ...] = ()
    """The frames in order, relative to ``frames``, when the manifest lists them (else every
    picture in ``frames``)."""
    settled: tuple[int, ...] = ()
    """The frames where the dice come to rest (the first of each ``settled`` phase)."""


def load_game(folder: Path) -> RecordedGame:
    """Read a recorded game folder.

    Expected: ``game.json`` (``{"throws": [...], "white", "black", "first", "rules", "fps"}``,
    see :func:`truth_from_json`), the frames in ``frames/`` (or beside ``game.json``) and a
    ``calibration.json``.

    Args:
        folder: the game folder.

    Returns:
        The game.

    Raises:
        GameError: if the truth or the frames are missing or malformed.
    """
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        manifest = folder / "game.json"
    if not manifest.is_file():
        raise GameError(f"{folder} has no manifest.json or game.json (the ground truth of "
                        f"the game)")
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GameError(f"{manifest}: not readable JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("throws"), list):
        raise GameError(f"{manifest}: no 'throws' list")
    listed = data.get("frames")
    files: tuple[Path, ...] = ()
    settled: list[int] = []
    if isinstance(listed, list):
        phases = [str(f.get("phase", "")) if isinstance(f, dict) else "" for f in listed]
        settled = [i for i, ph in enumerate(phases)
                   if ph == "settled" and (i == 0 or phases[i - 1] != "settled")]
        # A "tablier-game" manifest lists its frames (the reference picture is not one).
        try:
            files = tuple(Path(str(f["file"])) for f in listed)
        except (TypeError, KeyError) as exc:
            raise GameError(f"{manifest}: bad 'frames' list ({exc!r})") from None
        frames = folder
        absent = [f for f in files if not (folder / f).is_file()]
        if absent:
            raise GameError(f"{manifest}: {len(absent)} of the {len(files)} frames it lists are "
                            f"not in {folder} (the first: {absent[0]})")
    else:
        frames = folder / str(listed or "frames")
        if not frames.exists():
            frames = folder
    cal = folder / str(data.get("calibration", "calibration.json"))
    return RecordedGame(folder=folder, frames=frames, calibration=cal if cal.is_file() else None,
                        truth=tuple(truth_from_json(data["throws"])),
                        info={k: v for k, v in data.items() if k not in ("throws", "frames")},
                        files=files, settled=tuple(settled))


def frame_views(source: Iterable[Any], recognizer: Any) -> Iterator[tuple[Any, BoardView]]:
    """Recognise every frame of a source and turn it into a view.

    Args:
        source: frames (:class:`tablier.frames.Frame`).
        recognizer: a :class:`tablier.vision.Recognizer`.

    Yields:
        (frame, view); a frame that cannot be read or recognised gives a view with
        ``problem`` set (the match goes on).

    Raises:
        Nothing.
    """
    previous = None
    for frame in source:
        if frame.image is None:
            yield frame, BoardView(frame=frame.index, t=frame.t, problem=frame.problem)
            previous = None
            continue
        try:
            obs = recognizer.recognize(frame.image, previous=previous)
        except ValueError as exc:  # RecognitionError and friends are ValueErrors
            yield frame, BoardView(frame=frame.index, t=frame.t, problem=str(exc))
            previous = None
            continue
        previous = obs
        yield frame, observation_view(obs, frame=frame.index, t=frame.t)


__all__ = ["DEMO", "GameError", "RecordedGame", "ThrowTruth", "TruthAnswer", "Verdict",
           "compare", "find_game", "frame_views", "journal_throws", "load_game",
           "observation_view", "repo_root", "truth_from_json"]
