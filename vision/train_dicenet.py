"""Regenerate the dice net's training data and train it (needs the ``train`` extra: torch).

Data (the project's split: nothing here is ever a measuring image):

* rendered frames, 480x360, written by :func:`tablier.vision.render_dice.write_set`: seeds
  10000..13499 to train (and 14000..17999, of which only the frames with a bad throw), seeds
  20000..20499 to validate;
* the real photographs of the **tune** split of ``fixtures/dice/real``; a hashed fifth of
  them (SHA-256 of ``"dicenet:" + stem``, first 8 hex digits, modulo 5 == 0) validates, the
  rest trains.

Crops are made the way the reader will make them: the classical reader (net off) reads each
frame, with and without the board's normal, and every die it reports (but those out of view)
is cropped at its reported centre and size, labelled by the matching rule of
:mod:`tablier.vision.dice_eval` (a report matching no die is ``not_a_die``). Jittered crops
around the true dice (centre +-10% of the size, size +-15%, any turn, mirrored) and crops of
the background away from every die are added. With the board's normal known the crop is
rectified (see :mod:`tablier.vision.dicenet`).

Run from the repository root (about 15 minutes on one core)::

    pip install -e '.[train]'
    python -m tablier.vision.train_dicenet out/dicenet [--epochs 14]

It writes the frames and crops under the given folder, prints the validation figures of
every epoch, keeps the epoch with the lowest validation loss and writes its weights to
``vision/dicenet.npz`` (or ``--weights``).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib
import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray
from tablier.vision import dicenet
from tablier.vision.dice import DiceConfig, Die, _second_opinion, load_image, read_dice
from tablier.vision.dice_eval import (
    Sample,
    load_real_set,
    load_rendered_set,
    nearest_report,
    score_image,
)
from tablier.vision.render_dice import write_set

TRAIN_SEEDS = (10000, 3500)
"""First seed and count of the rendered training frames."""
RARE_SEEDS = (14000, 4000)
"""First seed and count of more rendered training frames, of which only those with a bad
throw (cocked or out of view) are cropped: bad throws are rare."""
VALIDATION_SEEDS = (20000, 500)
"""First seed and count of the rendered validation frames."""
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "dice" / "real"
"""The real photographs (only their tune split is used)."""


@dataclasses.dataclass(frozen=True)
class _Truth:
    value: int | None
    reason: str | None
    center: tuple[float, float]
    size: float
    box: tuple[float, float, float, float]


def real_validation(name: str) -> bool:
    """Whether a real tune photograph validates (a hashed fifth) rather than trains.

    Args:
        name: the photograph's stem, e.g. ``"dice_3"``.

    Returns:
        True for the validation fifth.

    Raises:
        Nothing.

    >>> real_validation("dice_3") in (True, False)
    True
    """
    return int(hashlib.sha256(f"dicenet:{name}".encode()).hexdigest()[:8], 16) % 5 == 0


def match(truth: Sequence[_Truth], found: Sequence[Die]) -> dict[int, int]:
    """Report index -> true die index, by the rule of :func:`dice_eval.score_image`.

    Args:
        truth: the true dice.
        found: the reports.

    Returns:
        The matched pairs.

    Raises:
        Nothing.
    """
    claimed: dict[int, int] = {}
    for i, t in enumerate(truth):
        best = nearest_report(t.box, found, claimed)
        if best is not None:
            claimed[best] = i
    return claimed


def _label(t: _Truth) -> int | None:
    if t.value is not None:
        return t.value - 1
    return {"cocked": dicenet.COCKED, "out_of_view": dicenet.OUT_OF_VIEW}.get(t.reason or "")


class _Crops:
    """Crops with labels and rectified flags, gathered as they come (``side`` x ``side``
    pixels: what :meth:`arrays` gives when there are none)."""

    def __init__(self, rng: np.random.Generator, side: int = dicenet.SIDE) -> None:
        self.rng = rng
        self.side = side
        self.x: list[NDArray[np.float16]] = []
        self.y: list[int] = []
        self.extra: list[tuple[float, float]] = []

    def add(self, grey: NDArray[np.uint8], center: tuple[float, float], size: float,
            label: int, normal: Sequence[float] | None, *, jitter: bool) -> None:
        rng = self.rng
        if jitter:
            center = (center[0] + float(rng.uniform(-0.1, 0.1)) * size,
                      center[1] + float(rng.uniform(-0.1, 0.1)) * size)
            size *= float(rng.uniform(0.85, 1.15))
        # A rectified crop is turned by the die's lean: only mirrored, never turned.
        angle = float(rng.uniform(0, 360)) if normal is None else 0.0
        crop = dicenet.crop_die(grey, center, size, board_normal=normal, angle=angle,
                                flip=bool(rng.random() < 0.5))
        self.x.append(crop.astype(np.float16))
        self.y.append(label)
        h, w = grey.shape
        self.extra.append((0.0 if normal is None else 1.0,
                           dicenet.lean(center, (w, h), normal)))

    def background(self, grey: NDArray[np.uint8], truth: Sequence[_Truth], size: float,
                   normal: Sequence[float] | None, count: int) -> None:
        h, w = grey.shape
        done = 0
        for _ in range(count * 20):
            if done == count:
                break
            s = size * float(self.rng.uniform(0.6, 1.4))
            c = (float(self.rng.uniform(0.5 * s, w - 0.5 * s)),
                 float(self.rng.uniform(0.5 * s, h - 0.5 * s)))
            if all(math.hypot(c[0] - t.center[0], c[1] - t.center[1]) > 1.5 * max(t.size, s)
                   for t in truth):
                self.add(grey, c, s, dicenet.NOT_A_DIE, normal, jitter=False)
                done += 1

    def arrays(self) -> dict[str, NDArray[Any]]:
        return {"x": np.stack(self.x) if self.x else np.zeros((0, self.side, self.side),
                                                                np.float16),
                "y": np.asarray(self.y, np.int64),
                "extra": np.asarray(self.extra, np.float32).reshape(-1, 2)}


def _frame_crops(crops: _Crops, image: NDArray[np.uint8], truth: Sequence[_Truth],
                 normal: Sequence[float] | None, *, copies: int, cocked_copies: int) -> None:
    """Crops of one image, read without and (if known) with the board's normal."""
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), dtype=np.uint8)
    sizes = [t.size for t in truth if t.size > 0]
    for used in ([None, normal] if normal is not None else [None]):
        cfg = DiceConfig(net=False, board_normal=None if used is None else (
            float(used[0]), float(used[1]), float(used[2])))
        found = list(read_dice(cfg, image).dice)
        pairs = match(truth, found)
        for k, d in enumerate(found):
            label = _label(truth[pairs[k]]) if k in pairs else dicenet.NOT_A_DIE
            # The net is not asked about the dice the rules find out of view.
            if label is None or (d.reason == "out_of_view") != (label == dicenet.OUT_OF_VIEW):
                continue
            n = cocked_copies if label in (dicenet.COCKED, dicenet.OUT_OF_VIEW) else 2
            for j in range(n):
                crops.add(grey, d.center, d.size, label, used, jitter=j > 0)
        for t in truth:
            label = _label(t)
            h, w = grey.shape
            inside = min(t.center[0], t.center[1], w - 1 - t.center[0], h - 1 - t.center[1])
            if label is None or t.size <= 0 or inside < (
                    0.0 if label == dicenet.OUT_OF_VIEW else 0.5 * t.size):
                continue
            rare = label in (dicenet.COCKED, dicenet.OUT_OF_VIEW)
            for _ in range(cocked_copies if rare else copies):
                crops.add(grey, t.center, t.size, label, used, jitter=True)
        if sizes:
            crops.background(grey, truth, float(np.median(sizes)), used, 2)


def _rendered_truth(folder: Path) -> list[tuple[Path, list[_Truth], tuple[float, ...]]]:
    data = json.loads((folder / "truth.json").read_text())
    out = []
    for frame in data["frames"]:
        truth = []
        for die in frame["dice"]:
            xs = [p[0] for p in die["top_face"]]
            ys = [p[1] for p in die["top_face"]]
            truth.append(_Truth(die["value"], die["reason"], tuple(die["center"]), die["size"],
                                (min(xs), min(ys), max(xs), max(ys))))
        out.append((folder / frame["image"], truth, tuple(frame["board_normal"])))
    return out


def _real_truth(validation: bool) -> list[tuple[Path, list[_Truth]]]:
    out = []
    for sample in load_real_set(REAL, "tune"):
        if real_validation(sample.name) != validation:
            continue
        image = load_image(sample.path)
        found = list(read_dice(DiceConfig(net=False), image).dice)
        truth: list[_Truth] = []
        for t in sample.truth:
            x0, y0, x1, y1 = t.box
            # The box holds the top face's pips: about 0.72 of the die's edge (not for a one).
            size = max(x1 - x0, y1 - y0) / 0.72 if t.value != 1 else 0.0
            truth.append(_Truth(t.value, None, ((x0 + x1) / 2, (y0 + y1) / 2), size, t.box))
        pairs = match(truth, found)
        sizes = [d.size for d in found]
        fixed: list[_Truth] = []
        for i, die in enumerate(truth):
            mine = [found[k].size for k, j in pairs.items() if j == i]
            size = mine[0] if mine else die.size or (float(np.median(sizes)) if sizes else 0.0)
            fixed.append(dataclasses.replace(die, size=size))
        out.append((sample.path, fixed))
    return out


def make_crops(folder: Path, seeds: tuple[int, int], *, validation: bool,
               seed: int) -> dict[str, NDArray[Any]]:
    """Render (if needed) and crop one part of the data.

    Args:
        folder: where the frames are written.
        seeds: (first seed, count) of the rendered frames.
        validation: which fifth of the real tune photographs to take.
        seed: seed of the jitter.

    Returns:
        ``{"x": (N, SIDE, SIDE) float16, "y": (N,) int64, "extra": (N, 2) float32}``
        (see :func:`dicenet.forward`).

    Raises:
        OSError: if the frames cannot be written.
    """
    if not (folder / "truth.json").is_file():
        write_set(folder, seeds[0], seeds[1], width=480, height=360)
    crops = _Crops(np.random.default_rng(seed))
    copies = 1 if validation else 2
    for path, truth, normal in _rendered_truth(folder):
        _frame_crops(crops, load_image(path), truth, normal, copies=copies,
                     cocked_copies=copies * 4)
    if not validation:
        rare = folder.parent / "rare"
        if not (rare / "truth.json").is_file():
            write_set(rare, RARE_SEEDS[0], RARE_SEEDS[1], width=480, height=360)
        for path, truth, normal in _rendered_truth(rare):
            if any(t.reason for t in truth):
                _frame_crops(crops, load_image(path), truth, normal, copies=copies,
                             cocked_copies=copies * 4)
    for path, truth in _real_truth(validation):
        _frame_crops(crops, load_image(path), truth, None, copies=copies * 4,
                     cocked_copies=0)
    return crops.arrays()


def _model(torch: Any, widths: Sequence[int], outputs: int = len(dicenet.CLASSES),
           side: int = dicenet.SIDE) -> Any:
    nn = torch.nn
    c1, c2, c3, hidden = widths

    class Net(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, c1, 3, padding=1)
            self.conv2 = nn.Conv2d(c1, c2, 3, padding=1)
            self.conv3 = nn.Conv2d(c2, c3, 3, padding=1)
            self.fc1 = nn.Linear(c3 * (side // 8) ** 2 + 2, hidden)
            self.fc2 = nn.Linear(hidden, outputs)
            self.drop = nn.Dropout(0.2)

        def forward(self, x: Any, extra: Any) -> Any:
            f = torch.nn.functional
            for conv in (self.conv1, self.conv2, self.conv3):
                x = f.max_pool2d(f.relu(conv(x)), 2)
            x = torch.cat([x.flatten(1), extra], dim=1)
            return self.fc2(self.drop(f.relu(self.fc1(x))))

    return Net()


def _array_name(key: str) -> str:
    """The weights file's name of a torch parameter (``conv1.weight`` -> ``conv1_w``)."""
    return key.replace(".weight", "_w").replace(".bias", "_b")


def _export(model: Any) -> dict[str, NDArray[np.float32]]:
    return {_array_name(k): v.detach().cpu().numpy().astype(np.float32)
            for k, v in model.state_dict().items()}


def train(train_set: dict[str, NDArray[Any]], val_set: dict[str, NDArray[Any]], *,
          epochs: int, seed: int,
          widths: Sequence[int] = dicenet.WIDTHS,
          threads: int = 1,
          classes: Sequence[str] = dicenet.CLASSES,
          init: dict[str, NDArray[np.float32]] | None = None,
          lr: float = 3e-3) -> dict[str, NDArray[np.float32]]:
    """Train the net; keep the epoch with the lowest validation loss.

    Args:
        train_set: crops of :func:`make_crops` to train on (the net takes crops of their
            side).
        val_set: crops to validate on.
        epochs: passes over the training crops.
        seed: torch's seed.
        widths: channels of the three convolutions and units of the hidden layer.
        threads: torch's threads.
        classes: the net's classes (labels are their indices); the rates of "cocked" on
            rectified crops are printed only for :data:`dicenet.CLASSES`.
        init: weights to start from (as :func:`dicenet.load_weights` returns them, of these
            ``widths`` and ``classes``), or None for torch's random start.
        lr: the one-cycle schedule's largest learning rate.

    Returns:
        The weights, as :func:`dicenet.load_weights` returns them.

    Raises:
        ImportError: if torch is not installed (``pip install -e '.[train]'``).
        ValueError: if ``init`` is not of the net's shape.
    """
    try:
        torch: Any = importlib.import_module("torch")
    except ImportError:
        raise ImportError("torch is not installed (pip install -e '.[train]'); the crops drawn "
                          "so far are kept in the work folder") from None
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    # the crops' side is the net's (the stack net's are larger than the dice nets')
    side = int(train_set["x"].shape[-1])
    dicenet.shapes(widths, len(classes), side)  # refuses bad widths before any work
    model = _model(torch, widths, len(classes), side)
    if init is not None:
        state = model.state_dict()
        if any(_array_name(k) not in init or init[_array_name(k)].shape != tuple(v.shape)
               for k, v in state.items()):
            raise ValueError("the weights to start from are of another net's shape "
                             f"(widths {tuple(widths)}, {len(classes)} classes wanted)")
        model.load_state_dict({k: torch.from_numpy(np.asarray(init[_array_name(k)], np.float32))
                               for k in state})
    x = torch.from_numpy(train_set["x"].astype(np.float32))[:, None]
    y = torch.from_numpy(train_set["y"])
    extra = torch.from_numpy(train_set["extra"])
    vx = torch.from_numpy(val_set["x"].astype(np.float32))[:, None]
    vy = torch.from_numpy(val_set["y"])
    vextra = torch.from_numpy(val_set["extra"])
    counts = np.bincount(train_set["y"], minlength=len(classes)).astype(np.float64)
    weight = torch.tensor((counts.sum() / np.maximum(counts, 1) / len(counts)) ** 0.5,
                          dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3, weight_decay=1e-5)
    steps = epochs * math.ceil(len(x) / 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    best: tuple[float, dict[str, NDArray[np.float32]]] | None = None
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        start = time.perf_counter()
        model.train()
        order = torch.randperm(len(x), generator=gen)
        total = 0.0
        for i in range(0, len(x), 128):
            idx = order[i:i + 128]
            xb, eb = x[idx], extra[idx]
            # The pip patterns look the same turned by a quarter or mirrored; a rectified
            # crop keeps its lean toward the bottom, so it is only mirrored left-right.
            free = (eb[:, 0] == 0)[:, None, None, None]
            k = int(torch.randint(4, (1,), generator=gen))
            xb = torch.where(free, torch.rot90(xb, k, (2, 3)), xb)
            if bool(torch.rand(1, generator=gen) < 0.5):
                xb = torch.flip(xb, (3,))
            xb = xb + 0.05 * torch.randn(xb.shape, generator=gen)
            loss = loss_fn(model(xb, eb), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        model.eval()
        with torch.no_grad():
            logits = torch.cat([model(vx[i:i + 1024], vextra[i:i + 1024])
                                for i in range(0, len(vx), 1024)])
            vloss = float(torch.nn.functional.cross_entropy(logits, vy))
            pred = logits.argmax(1)
            acc = float((pred == vy).float().mean())
        per_class = " ".join(
            f"{name}:{float((pred[vy == c] == c).float().mean()) if (vy == c).any() else 0:.3f}"
            for c, name in enumerate(classes))
        if tuple(classes) == dicenet.CLASSES:
            rect = (vy == dicenet.COCKED) & (vextra[:, 0] == 1)
            rate = float((pred[rect] == dicenet.COCKED).float().mean()) if rect.any() else 0
            per_class += f" cocked rectified:{rate:.3f}"
        print(f"epoch {epoch + 1:2d}  train loss {total / len(x):.4f}  val loss {vloss:.4f}  "
              f"val acc {100 * acc:.2f}%  [{per_class}]  "
              f"{time.perf_counter() - start:.0f} s", flush=True)
        if best is None or vloss < best[0]:
            best = (vloss, _export(model))
    assert best is not None
    return best[1]


THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)
"""The net thresholds tried on the validation images."""


def validate(folder: Path, weights: Path) -> None:
    """Print per-die accuracy on the VALIDATION images, net off and at each threshold.

    The rendered validation frames are read with the board's normal (as the Recognizer
    reads) and without (as ``tablier dice``); the real validation fifth without.

    Args:
        folder: the work folder (its ``val`` frames).
        weights: the weights file to judge.

    Raises:
        OSError: if the frames are missing.
    """
    rendered = load_rendered_set(folder / "val")
    real = [s for s in load_real_set(REAL, "tune") if real_validation(s.name)]
    runs: list[tuple[str, list[Sample], bool]] = [
        ("rendered val, board normal", rendered, True),
        ("rendered val, no normal", rendered, False), ("real val", real, False)]
    for name, samples, calibrated in runs:
        tries: list[tuple[str, DiceConfig | None]] = [("net off", None)]
        for threshold in THRESHOLDS:
            for cocked in ((False, True) if not calibrated else (False,)):
                tries.append((f"net {threshold:.2f}{' +cocked' if cocked else ''}",
                              DiceConfig(net_threshold=threshold, net_weights=str(weights),
                                         net_cocked_uncalibrated=cocked)))
        scores = {label: [0, 0] for label, _ in tries}
        for sample in samples:
            image = load_image(sample.path)
            normal = sample.board_normal if calibrated else None
            base = DiceConfig(net=False, board_normal=normal)
            found = list(read_dice(base, image).dice)
            grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), dtype=np.uint8)
            for label, cfg in tries:
                dice = found if cfg is None else _second_opinion(
                    dataclasses.replace(cfg, board_normal=normal), grey, found)
                counted, correct, _, _, extra, _ = score_image(sample.truth, dice)
                scores[label][0] += correct
                scores[label][1] += counted + extra
        print(name + ": " + "  ".join(f"{label} {100 * c / max(n, 1):.2f}%"
                                      for label, (c, n) in scores.items()), flush=True)


def widths_arg(text: str) -> tuple[int, ...]:
    """Parse ``--widths`` (four whole numbers separated by commas) for argparse."""
    try:
        widths = tuple(int(v) for v in text.split(","))
        dicenet.shapes(widths)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected four positive whole numbers separated by commas, got {text!r}") from None
    return widths


def main(argv: Sequence[str] | None = None) -> int:
    """Make the crops (cached in the folder), train, write the weights.

    Args:
        argv: arguments without the program name.

    Returns:
        0.

    Raises:
        SystemExit: from argparse on bad arguments.
        ImportError: if torch is missing.
    """
    parser = argparse.ArgumentParser(prog="python -m tablier.vision.train_dicenet",
                                     description="Train the dice net (needs torch).")
    parser.add_argument("out", type=Path, help="work folder (frames, crops)")
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", type=Path, default=dicenet.WEIGHTS)
    parser.add_argument("--widths", type=widths_arg, default=dicenet.WIDTHS,
                        help="channels of the three convolutions and hidden units, "
                             "e.g. 16,32,64,128 (default 8,16,32,64)")
    parser.add_argument("--threads", type=int, default=1, help="torch's threads (default 1)")
    parser.add_argument("--validate-only", action="store_true",
                        help="only print the validation figures of --weights")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    if args.validate_only:
        validate(args.out, args.weights)
        return 0
    sets = {}
    for name, seeds, val in (("train", TRAIN_SEEDS, False), ("val", VALIDATION_SEEDS, True)):
        cache = args.out / f"crops_{name}.npz"
        if cache.is_file():
            with np.load(cache) as data:
                sets[name] = {k: data[k] for k in data.files}
        else:
            start = time.perf_counter()
            sets[name] = make_crops(args.out / name, seeds, validation=val, seed=args.seed)
            np.savez(cache, **sets[name])
            print(f"{name}: {len(sets[name]['y'])} crops "
                  f"{np.bincount(sets[name]['y'], minlength=len(dicenet.CLASSES)).tolist()} "
                  f"in {time.perf_counter() - start:.0f} s", flush=True)
    try:
        weights = train(sets["train"], sets["val"], epochs=args.epochs, seed=args.seed,
                        widths=args.widths, threads=max(1, args.threads))
    except ImportError as exc:
        parser.error(str(exc))
    np.savez_compressed(args.weights, allow_pickle=False, **weights)
    print(f"wrote {args.weights}")
    validate(args.out, args.weights)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
