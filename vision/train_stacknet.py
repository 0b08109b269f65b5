r"""Teach the stack net to tell a die resting on the other from a lone die (needs torch).

When a frame shows one die alone, the recogniser (:class:`tablier.vision.recognizer.Recognizer`)
asks the stack net whether it rests on the other die: seen from above, the die below hides
under the top one but for its corners and its side faces, which show beside the top die's
own toward the camera. The net is the dice net's architecture (:mod:`dicenet`) with two
classes (``STACK_CLASSES``), fed a crop ``STACK_WINDOW`` dice wide around the die
(:meth:`Recognizer.stack_crop`), turned so that the side faces lie toward its top, and the
ray's lean. This writes ``vision/stacknet.npz`` (40-pixel crops, asked about dice under
``FINE_DIE_PX`` camera pixels), or with ``--fine`` ``vision/stacknet_fine.npz``
(``STACK_SIDE_FINE`` pixels, for larger dice).

Data: rendered board sets (``tablier render``) of **tuning** seeds only, some rendered with
``--on-die``; one session of each set (``--val-session``, default ``s07``) validates, the rest
trains. Each frame is read by the recogniser without the stack net; its crops:

* each die its dice stage reports (as the stack net is shown them, before a cocked die with
  nothing to lean on is read again) within 8 mm of a true die: ``stacked`` when that die
  rests on the other or carries one (truth reason ``"on_die"``), else ``lone``; once as
  reported, once moved by up to a tenth of a die;
* each true die, moved so: the top die of a stack three times, a lone die once.

The committed ``vision/stacknet.npz``, ``stacknet_s2.npz`` and ``stacknet_s3.npz`` (the
recogniser averages the three for dice under ``FINE_DIE_PX`` camera pixels) were taught in the
sixty-fourth round with 12 epochs and ``--seed 1``, ``2`` and ``3`` on the same crops (the seed-1
caches linked to the ``_s2_`` and ``_s3_`` names; the twelfth epoch kept each time; 48,605
training crops, 20,553 of them stacked, and 7,056 validating; about 13 s an epoch on one
thread once the crops are cached), on all the sets below, rendered again in that round, and
two more at 1024x768. The twenty-seventh round's net was taught on the sets below but
5182-5187, 5216 and 5217. The fine nets ``vision/stacknet_fine.npz``,
``stacknet_fine_s2.npz`` and ``stacknet_fine_s3.npz`` (the recogniser averages the three) were
taught in the sixty-second round with ``--fine``, 12 epochs and ``--seed 1``, ``2`` and ``3`` on
the same crops (the seed-1 caches linked to the ``_s2_`` and ``_s3_`` names, so that only
torch's start changes; the eleventh, twelfth and eleventh epochs kept; 44,878 training crops,
18,202 of them stacked, and 6,520 validating; about 80-180 s an epoch on one thread once the
crops are cached), on all the sets below, rendered again in the sixty-first round. The tuning
sets, 8 sessions of 50 frames: with stacks, rendered by ``tablier render out/tN --seed N
--sessions 8 --frames 50 --occluders 0`` and

* ``--on-die 1 --by-rail 0.3 --on-dames 0.3``: 5093 and 5097 (1640x1232), 5094 and 5098
  (1024x768), 5182 and 5183 (1640x1232), 5216 (1024x768; the coarse nets only);
* ``--on-die 1 --by-rail 0.3``: 5095 (1640x1232), 5096 (1024x768);
* ``--on-die 1 --on-die-reach 0.1 --on-die-hidden --by-rail 0.3 --on-dames 0.3``: 5122
  (1640x1232), 5123 (1024x768), 5184 and 5185 (1640x1232), 5217 (1024x768; the coarse nets
  only): the top die moved so that it hides the die below from the camera, the stacks the
  sixteenth round's net missed most;
* ``--on-die 1 --on-die-reach 0.15 --by-rail 0.3 --on-dames 0.3``: 5186 and 5187 (1640x1232),
  top dice near the middle of the die below;
* lone dice only, the board net's sets, rendered as :mod:`train_boardnet` says: 5066,
  5067, 5068 and 5071 (1024x768), 5063, 5064, 5056, 5073, 5082 and 5083 (1640x1232).

    pip install -e '.[train]'
    python -m tablier.vision.train_stacknet out/sn [--fine --threads 1 --seed N] \
        out/t50{93,94,95,96,97,98,66,67,63,56,64,71,73,82,83,68} out/t5122 out/t5123 \
        out/t518{2,3,4,5,6,7} [out/t5216 out/t5217]

The crops of the coarse nets were drawn by commit 36c3481's recogniser (the net before them,
the twenty-seventh round's taught further in the fifty-first, is that commit's
``vision/stacknet.npz``; the sixteenth round's, trained without 5122 and 5123, is commit
201afad's), those of the fine nets by the sixty-first round's, each by a throwaway script that
wrote this module's caches a few sets at a time (a stack net's answers do not change which
dice it is shown).

The crops of each set are cached in the work folder (``stack_<set folder>_s<seed>_<validation
session>.npz``, ``stack_fine_...`` with ``--fine``), so keep the set folders' names.
``--init NPZ`` starts from those weights instead of a random start (with ``--lr``, the
schedule's largest rate, lower than its 3e-3 to teach a net further); the fifty-first round
taught the committed net further so on four more sets of stacks, and kept it
(docs/vision.md).
"""

from __future__ import annotations

import json
import math
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from tablier.calibration.calibration import Calibration
from tablier.vision import dicenet, train_boardnet, train_dicenet
from tablier.vision.board import BoardQuad
from tablier.vision.evaluate import frames, sessions
from tablier.vision.imageio import read_image
from tablier.vision.recognizer import (
    STACK_CLASSES,
    STACK_NET,
    STACK_NET_FINE,
    STACK_SIDE_FINE,
    DieSighting,
    Recognizer,
)

MATCH_MM = 8.0
"""A die the recogniser reports within this many millimetres of a true die is that die."""

LONE, STACKED = 0, 1


class _Watcher(Recognizer):
    """The recogniser without the stack net, keeping the surface's placement of each frame
    and the dice as the stack net is shown them (before the later stages amend them)."""

    def __init__(self, calibration: Calibration) -> None:
        super().__init__(calibration, stack_net=False)
        self.quad: BoardQuad | None = None
        self.dice: tuple[DieSighting, ...] = ()

    def _read_dice(self, image: Any, quad: BoardQuad, rect: Any, gain: Any,
                   unread: list[Any] | None = None) -> tuple[DieSighting, ...]:
        self.quad = quad
        self.dice = super()._read_dice(image, quad, rect, gain, unread)
        return self.dice


def _label(die: dict[str, Any]) -> int | None:
    if die.get("reason") == "on_die":
        return STACKED
    if die.get("value") is not None or die.get("reason") == "cocked":
        return LONE
    return None


def _frame_crops(crops: train_dicenet._Crops, watcher: _Watcher, image: Any,
                 found: Sequence[DieSighting], truth: Sequence[dict[str, Any]]) -> None:
    quad = watcher.quad
    eye = None if quad is None else watcher._camera_place(quad)
    if quad is None or eye is None:
        return
    die_mm = watcher.calibration.geometry.die_size
    rng = crops.rng

    def add(center: Sequence[float], label: int, jitter: bool) -> None:
        c = (float(center[0]), float(center[1]))
        if jitter:
            c = (c[0] + float(rng.uniform(-0.1, 0.1)) * die_mm,
                 c[1] + float(rng.uniform(-0.1, 0.1)) * die_mm)
        crop, tilt = watcher.stack_crop(image, quad, c, eye, crops.side)
        crops.x.append(crop.astype(np.float16))
        crops.y.append(label)
        crops.extra.append((1.0, tilt))

    for d in found:
        near = [t for t in truth if math.dist(t["center_mm"], d.center_mm) < MATCH_MM]
        label = _label(near[0]) if near else None
        if label is not None:
            add(d.center_mm, label, False)
            add(d.center_mm, label, True)
    stacked = [t for t in truth if t.get("reason") == "on_die"]
    if stacked:
        # NOTE: the renderer lists the die below first; its top face is hidden
        for _ in range(3):
            add(stacked[-1]["center_mm"], STACKED, True)
        return
    for t in truth:
        label = _label(t)
        if label is not None:
            add(t["center_mm"], label, True)


def gather(root: Path, val_session: str, seed: int, side: int = dicenet.SIDE
           ) -> tuple[dict[str, NDArray[Any]], dict[str, NDArray[Any]]]:
    """Read every frame of a set and return its training and validation crops, ``side``
    pixels square (``STACK_SIDE_FINE`` for the fine net)."""
    rng = np.random.default_rng([seed, zlib.crc32(root.name.encode())])
    parts = {"train": train_dicenet._Crops(rng, side), "val": train_dicenet._Crops(rng, side)}
    start = time.perf_counter()
    count = 0
    for session in sessions(root):
        watcher = _Watcher(Calibration.load(session / "calibration.json"))
        crops = parts["val" if session.name == val_session else "train"]
        for image_path, truth_path in frames(session):
            truth = json.loads(truth_path.read_text())
            if truth.get("occluded"):
                continue
            image = read_image(image_path)
            watcher.quad, watcher.dice = None, ()
            watcher.recognize(image)
            _frame_crops(crops, watcher, image, watcher.dice, truth["dice"])
            count += 1
    print(f"{root}: {count} frames, {time.perf_counter() - start:.0f} s; crops: "
          f"train {len(parts['train'].y)}, validation {len(parts['val'].y)}", flush=True)
    return parts["train"].arrays(), parts["val"].arrays()


def main(argv: Sequence[str] | None = None) -> int:
    parser = train_boardnet.sets_parser("python -m tablier.vision.train_stacknet", __doc__,
                                        epochs=12, weights=STACK_NET)
    parser.add_argument("--fine", action="store_true",
                        help=f"teach the fine net ({STACK_SIDE_FINE}-pixel crops, for dice of "
                             f"FINE_DIE_PX camera pixels or more); --weights then defaults to "
                             f"vision/{STACK_NET_FINE.name}")
    parser.set_defaults(weights=None)
    args = parser.parse_args(argv)
    side = STACK_SIDE_FINE if args.fine else dicenet.SIDE
    if args.weights is None:
        args.weights = STACK_NET_FINE if args.fine else STACK_NET
    try:
        init = (None if args.init is None
                else dicenet.load_weights(args.init, len(STACK_CLASSES), side))
    except ValueError as exc:
        parser.error(f"--init: {exc}")
    kind = "stack_fine" if args.fine else "stack"
    train_set, val_set = train_boardnet.cached_crops(
        parser, args, lambda root: f"{kind}_{root.name}_s{args.seed}_{args.val_session}.npz",
        lambda root: gather(root, args.val_session, args.seed, side))
    print("train", np.bincount(train_set["y"], minlength=len(STACK_CLASSES)).tolist(),
          "validation", np.bincount(val_set["y"], minlength=len(STACK_CLASSES)).tolist())
    try:
        weights = train_dicenet.train(train_set, val_set, epochs=args.epochs, seed=args.seed,
                                      threads=max(1, args.threads), classes=STACK_CLASSES,
                                      init=init, lr=args.lr)
    except (ImportError, ValueError) as exc:
        parser.error(str(exc))
    np.savez_compressed(args.weights, allow_pickle=False, **weights)
    print(f"wrote {args.weights}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
