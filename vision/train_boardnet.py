r"""Teach the dice net to read the recogniser's straightened views of a board (needs torch).

The board reader (:class:`tablier.vision.recognizer.Recognizer`) reads the dice in small
views of the board drawn as if seen from straight above, at one scale whatever the camera.
Drawn up from a 1024x768 frame (a die of 16-20 camera pixels) such a view is soft, and the
hand-written rules lose pips there: a six's rows run together, a corner pip by the die's dark
edge fails the contrast test. This trains the dice net's architecture (:mod:`dicenet`) on
those views, as a second opinion on each die the rules report, and writes
``vision/boardnet.npz``.

Data: rendered board sets (``tablier render``) of **tuning** seeds only, given on the command
line; one session of each set (``--val-session``, default ``s07``) validates, the rest
trains. Each frame is read by the recogniser with the rules alone; every view the dice
reader is given is kept with the ray to the camera and what the rules found in it. Crops:

* each die the rules report, labelled by the frame's truth (its value, ``cocked``, or
  ``not_a_die`` when no true die lies within 8 mm), once as reported and once jittered;
* each true die in view, once per frame, jittered (centre +-10 % of its size, size +-15 %,
  mirrored): twice, a cocked die four times;
* one place of each view away from every die (``not_a_die``: rims of dames, rails, points).

Every crop is turned so that the die's side faces, seen from the camera, lie on its upper
side (:func:`dicenet.ray_lean`), and the net is told how far the ray leans.

The committed ``vision/boardnet.npz`` (since the fourteenth round) was trained with 14 epochs
and ``--seed 2``, the epoch of least validation loss kept (about 3 minutes on one core once
the crops are cached), on these tuning sets, each 8 sessions of 50 frames rendered by
``tablier render out/tN --seed N --sessions 8 --frames 50`` with:

* 1024x768 (``--size 1024x768``): 5065 (``--no-parallax``), 5066 (``--by-rail 0.3
  --on-dames 0.3``), 5067 and 5071 (the same with ``--cocked 0.3``), 5068 (``--depth 25
  --by-rail 0.3 --on-dames 0.3``);
* 1640x1232: 5063 and 5064 (``--by-rail 0.3 --on-dames 0.3``), 5056 and 5073 (the same with
  ``--cocked 0.3``), 5082 and 5083 (the same with ``--cocked 0.5``), 5041 (4 sessions,
  ``--cocked 0.3``), 5061 (``--depth 25 --by-rail 0.3 --on-dames 0.3``).

    pip install -e '.[train]'
    python -m tablier.vision.train_boardnet out/bn --seed 2 --weights vision/boardnet.npz \
        out/t50{65,66,67,68,71,63,64,56,41,61,73,82,83}

A set's crops are drawn from its folder's name, so keep the names ``tN``. The committed net's
crops were drawn before the sixteenth round's light-gain mend (``checkers.RAIL_DARK``): since
then session s05 of 5056, whose rail has almost no blue, gives other dice candidates (4,839
training crops of 5056 instead of 4,813). To rebuild the net byte for byte, draw 5056's crops
at commit 9f58c32 (checked: the same crops as the cache they were trained from). The net of the
twelfth and thirteenth rounds was trained without 5082 and 5083, with seed 1, on crops drawn
by commit 48f79e6's script (``docs/vision.md``, fourteenth round, compares the two).

The crops of each set are cached in the work folder (``crops_<set folder>_s<seed>_<validation
session>.npz``): a set added later is read alone, and a set's crops do not depend on which sets
are read with it. Another ``--seed`` or ``--val-session`` draws the crops again.
``--widths`` trains a wider net (:func:`dicenet.shapes`), ``--threads`` gives torch more
threads.
"""

from __future__ import annotations

import argparse
import json
import math
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray
from tablier.calibration.calibration import Calibration
from tablier.vision import dicenet, train_dicenet
from tablier.vision.evaluate import frames, sessions
from tablier.vision.imageio import read_image
from tablier.vision.recognizer import BOARD_NET, Recognizer, _StraightViewReader

MATCH_MM = 8.0
"""A die the rules report within this many millimetres of a true die is that die."""


class _Crops(train_dicenet._Crops):
    """Crops with labels and (rectified, lean) inputs, each turned by its view's ray."""

    def add_view(self, grey: NDArray[np.uint8], center: tuple[float, float], size: float,
                 label: int, ray: Sequence[float], *, jitter: bool) -> None:
        rng = self.rng
        if jitter:
            center = (center[0] + float(rng.uniform(-0.1, 0.1)) * size,
                      center[1] + float(rng.uniform(-0.1, 0.1)) * size)
            size *= float(rng.uniform(0.85, 1.15))
        away, lean = dicenet.ray_lean(ray)
        crop = dicenet.crop_die(grey, center, size, away=away, flip=bool(rng.random() < 0.5))
        self.x.append(crop.astype(np.float16))
        self.y.append(label)
        self.extra.append((1.0, lean))


class _Recorder(_StraightViewReader):
    """A dice reader that keeps every view it reads, with the ray and what it found."""

    def __init__(self, inner: _StraightViewReader, log: list[tuple[Any, ...]],
                 place: list[tuple[float, float, float, int]]) -> None:
        super().__init__(inner._module, inner._cfg)
        self.wants_ray = True
        self._log = log
        self._place = place

    def __call__(self, image: NDArray[np.uint8], ray: tuple[float, float, float] | None = None
                 ) -> Sequence[Any]:
        found = super().__call__(image, ray)
        if ray is not None and self._place:
            self._log.append((image, ray, self._place[-1], found))
        return found


class _Watcher(Recognizer):
    """The recogniser with the rules alone, keeping each dice view and where it was drawn."""

    def __init__(self, calibration: Calibration) -> None:
        # NOTE: without the light patches looked at since the fifteenth round: the views
        # the committed net was taught on (its docstring command rebuilds it exactly).
        super().__init__(calibration, dice_net=False, dice_bodies=False)
        self.log: list[tuple[Any, ...]] = []
        self.places: list[tuple[float, float, float, int]] = []
        for name in ("_dice", "_dice_fine"):
            reader = getattr(self, name)
            assert isinstance(reader, _StraightViewReader)
            setattr(self, name, _Recorder(reader, self.log, self.places))

    def _dice_view(self, image: NDArray[np.uint8], quad: Any, center: tuple[float, float],
                   s: float, size: int) -> NDArray[np.uint8]:
        self.places.append((center[0], center[1], s, size))
        return super()._dice_view(image, quad, center, s, size)


def _label(die: dict[str, Any]) -> int | None:
    if die.get("value") is not None:
        return int(die["value"]) - 1
    return dicenet.COCKED if die.get("reason") == "cocked" else None


def _view_crops(crops: _Crops, view: NDArray[np.uint8], ray: Sequence[float],
                place: tuple[float, float, float, int], found: Sequence[Any],
                truth: Sequence[dict[str, Any]], die_mm: float, done: set[int]) -> None:
    """Crops of one view: the dice the rules found, the true dice, one empty place."""
    grey = np.asarray(cv2.cvtColor(view, cv2.COLOR_RGB2GRAY), dtype=np.uint8)
    cx, cy, s, size = place
    rng = crops.rng

    def to_view(mm: Sequence[float]) -> tuple[float, float]:
        return ((float(mm[0]) - cx) * s + size / 2, (float(mm[1]) - cy) * s + size / 2)

    where = [to_view(t["center_mm"]) for t in truth]
    die_px = die_mm * s
    for d in found:
        if d.reason == "out_of_view":
            continue
        near = [k for k, p in enumerate(where)
                if math.dist(p, d.center) < MATCH_MM * s]
        label = _label(truth[near[0]]) if near else dicenet.NOT_A_DIE
        if label is None:
            continue
        for j in range(2):
            crops.add_view(grey, d.center, d.size, label, ray, jitter=j > 0)
    for k, (t, p) in enumerate(zip(truth, where, strict=True)):
        label = _label(t)
        margin = min(p[0], p[1], size - p[0], size - p[1])
        if label is None or k in done or margin < 0.8 * die_px:
            continue
        done.add(k)
        copies = 4 if label == dicenet.COCKED else 2
        for _ in range(copies):
            crops.add_view(grey, p, die_px, label, ray, jitter=True)
    for _ in range(40):
        edge = float(rng.uniform(0.6, 0.9)) * die_px
        c = (float(rng.uniform(edge, size - edge)), float(rng.uniform(edge, size - edge)))
        if all(math.dist(c, p) > 1.5 * die_px for p in where):
            crops.add_view(grey, c, die_px * float(rng.uniform(0.85, 1.15)), dicenet.NOT_A_DIE,
                           ray, jitter=False)
            break


def gather(sets: Sequence[Path], val_session: str, seed: int
           ) -> tuple[dict[str, NDArray[Any]], dict[str, NDArray[Any]]]:
    """Read every frame of the sets and return the training and validation crops.

    Each set's jitter is drawn from its own generator (``seed`` and the set folder's name), so
    that a set's crops are the same whichever sets are gathered with it.
    """
    parts = {"train": _Crops(np.random.default_rng(seed)),
             "val": _Crops(np.random.default_rng(seed))}
    for root in sets:
        rng = np.random.default_rng([seed, zlib.crc32(root.name.encode())])
        parts["train"].rng = parts["val"].rng = rng
        start = time.perf_counter()
        count = 0
        for session in sessions(root):
            calibration = Calibration.load(session / "calibration.json")
            watcher = _Watcher(calibration)
            crops = parts["val" if session.name == val_session else "train"]
            for image_path, truth_path in frames(session):
                truth = json.loads(truth_path.read_text())
                if truth.get("occluded"):
                    continue
                watcher.log.clear()
                watcher.places.clear()
                watcher.recognize(read_image(image_path))
                done: set[int] = set()
                for view, ray, place, found in watcher.log:
                    _view_crops(crops, view, ray, place, found, truth["dice"],
                                calibration.geometry.die_size, done)
                count += 1
        print(f"{root}: {count} frames, {time.perf_counter() - start:.0f} s; crops so far: "
              f"train {len(parts['train'].y)}, validation {len(parts['val'].y)}", flush=True)
    return parts["train"].arrays(), parts["val"].arrays()


def cache_name(root: Path, seed: int, val_session: str) -> str:
    """The file a set's crops are cached in: they depend on the seed and the validation
    session as well as the set."""
    return f"crops_{root.name}_s{seed}_{val_session}.npz"


def sets_parser(prog: str, doc: str, *, epochs: int, weights: Path) -> argparse.ArgumentParser:
    """The arguments of a net taught on rendered board sets: the work folder, the sets,
    ``--val-session``, ``--epochs``, ``--seed``, ``--weights``, ``--threads``, ``--init``
    and ``--lr``."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for the crops")
    parser.add_argument("sets", type=Path, nargs="+", help="rendered TUNING board sets")
    parser.add_argument("--val-session", default="s07")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", type=Path, default=weights)
    parser.add_argument("--threads", type=int, default=1, help="torch's threads (default 1)")
    parser.add_argument("--init", type=Path, metavar="NPZ",
                        help="weights to start from (default: a random start)")
    parser.add_argument("--lr", type=float, default=3e-3,
                        help="largest learning rate of the one-cycle schedule (default 3e-3)")
    return parser


Parts = tuple[dict[str, NDArray[Any]], dict[str, NDArray[Any]]]


def cached_crops(parser: argparse.ArgumentParser, args: argparse.Namespace,
                 cache_of: Callable[[Path], str], gather_one: Callable[[Path], Parts]) -> Parts:
    """Every set's training and validation crops, each set's read from its cache in
    ``args.out`` (named by ``cache_of``) or gathered (``gather_one``) and cached, joined."""
    names = [root.name for root in args.sets]
    if len(set(names)) != len(names):
        parser.error("two sets share a folder name (each set's crops are cached by it)")
    args.out.mkdir(parents=True, exist_ok=True)
    train_parts: list[dict[str, NDArray[Any]]] = []
    val_parts: list[dict[str, NDArray[Any]]] = []
    for root in args.sets:
        # NOTE: crops are cached per set: adding a set does not read the others again.
        cache = args.out / cache_of(root)
        if cache.exists():
            with np.load(cache) as data:
                one = ({k[6:]: data[k] for k in data.files if k.startswith("train_")},
                       {k[4:]: data[k] for k in data.files if k.startswith("val_")})
            print(f"crops of {root.name} from {cache}", flush=True)
        else:
            one = gather_one(root)
            arrays = {f"train_{k}": v for k, v in one[0].items()}
            arrays.update({f"val_{k}": v for k, v in one[1].items()})
            np.savez_compressed(cache, allow_pickle=False, **arrays)
        train_parts.append(one[0])
        val_parts.append(one[1])
    if not sum(len(part["y"]) for part in val_parts):
        parser.error(f"no validation crops: no set has a session {args.val_session!r} "
                     "(--val-session)")
    return ({k: np.concatenate([p[k] for p in train_parts]) for k in train_parts[0]},
            {k: np.concatenate([p[k] for p in val_parts]) for k in val_parts[0]})


def main(argv: Sequence[str] | None = None) -> int:
    parser = sets_parser("python -m tablier.vision.train_boardnet", __doc__, epochs=14,
                         weights=BOARD_NET)
    parser.add_argument("--widths", type=train_dicenet.widths_arg, default=dicenet.WIDTHS,
                        help="channels of the three convolutions and hidden units "
                             "(default 8,16,32,64)")
    args = parser.parse_args(argv)
    try:
        init = None if args.init is None else dicenet.load_weights(args.init)
    except ValueError as exc:
        parser.error(f"--init: {exc}")
    train_set, val_set = cached_crops(
        parser, args, lambda root: cache_name(root, args.seed, args.val_session),
        lambda root: gather([root], args.val_session, args.seed))
    print("train", np.bincount(train_set["y"], minlength=len(dicenet.CLASSES)).tolist(),
          "validation", np.bincount(val_set["y"], minlength=len(dicenet.CLASSES)).tolist())
    try:
        weights = train_dicenet.train(train_set, val_set, epochs=args.epochs, seed=args.seed,
                                      widths=args.widths, threads=max(1, args.threads), init=init,
                                      lr=args.lr)
    except (ImportError, ValueError) as exc:
        parser.error(str(exc))
    np.savez_compressed(args.weights, allow_pickle=False, **weights)
    print(f"wrote {args.weights}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
