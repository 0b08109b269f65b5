"""Read the dice on any photograph: where each die is, its top face, and bad throws.

The reader needs no calibration. It looks for pips (small dark round blobs on a bright body),
groups pips into faces by their shape and spacing, keeps only groups that form a real die
pattern (1 to 6: the layout is checked, not just the count), groups faces into dice, and
takes as the top face the face seen most squarely (its pips the roundest): on an oblique view
the side faces show too, foreshortened. A die whose best face is not clearly flat is reported
with ``value=None`` and ``reason="cocked"``; one cut by the image border, ``"out_of_view"``.

Every tuned number is a field of :class:`DiceConfig`; a calibration may pass its own.

Run as a module to see what it found::

    python -m tablier.vision.dice IMAGE [--debug OUT_DIR] [--json]

usage: python -m tablier.vision.dice [-h] [--debug DIR] [--json] IMAGE

Read the dice on a photograph and optionally write an annotated picture.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

REASONS = ("cocked", "on_die", "out_of_view")
"""Why a die that is seen has no value: the bad throws of the rules, plus a cut-off view."""


@dataclass(frozen=True)
class DiceConfig:
    """Tuned values of the dice reader (chosen on the tuning sets only)."""

    work_side: int = 1000
    """The image is shrunk so that its longer side is at most this many pixels."""
    block: int = 31
    """Window (pixels, odd) of the local mean that a pip must be darker than."""
    offset: float = 30.0
    """How much darker than the local mean (grey levels) a pixel must be to belong to a pip."""
    pip_area: tuple[int, int] = (8, 1500)
    """Smallest and largest pip area, pixels at the working scale."""
    split_area: float = 4.0
    """Blobs up to this many times the largest pip area are cut again (blurred pips)."""
    pip_fill: float = 0.8
    """Least ratio of a blob's area to the area of its moment ellipse (a pip is an ellipse)."""
    pip_ratio: float = 0.25
    """Least minor/major axis ratio of any pip (side faces included)."""
    pip_contrast: float = 45.0
    """Least grey-level difference between a pip and the die body around it."""
    shape_tolerance: float = 0.45
    """Largest shape difference between two pips of one face (affine-invariant measure)."""
    link: float = 7.6
    """Largest distance between neighbouring pips of one face, in pip radii."""
    pattern_tolerance: float = 0.9
    """Largest misfit of a face to its die pattern, in pip radii."""
    spacing: tuple[float, float] = (1.6, 3.4)
    """Range of the corner-pip offset from the face centre, in pip radii (per axis)."""
    six_aspect: tuple[float, float] = (0.6, 1.6)
    """Range of the row step of a six over its half column gap."""
    same_die: float = 12.5
    """A face this near another (pip radii) and clearly more foreshortened is its side face."""
    same_die_close: float = 8.0
    """Faces whose centres are nearer than this (pip radii) always belong to one die."""
    side_ratio_gap: float = 0.12
    """Roundness gap (minor/major) that marks one of two nearby faces as a side face."""
    side_max_ratio: float = 0.85
    """A face rounder than this is not taken for a side face by its position alone."""
    side_alignment: float = 0.8
    """|cos| between a side face's minor axis and its offset from the top face, at least."""
    away_weight: float = 0.05
    """Weight (per pip radius) of being farther from the camera when picking the top face."""
    side_radius: float = 0.85
    """A nearby face with pips smaller than this times the other's is a side face."""
    rival_radius: float = 0.6
    """A face with pips smaller than this times the top's cannot make the die look cocked."""
    min_face_ratio: float = 0.45
    """A lone face with pips flatter than this is no die (a side face or a stain)."""
    top_ratio: float = 0.55
    """A top face seen flat has pips at least this round (minor/major)."""
    cocked_shape: float = 0.45
    """A top face whose foreshortening differs this much (log axis ratio) from the other dice'
    top faces is tilted: the die is cocked."""
    size_per_radius: float = 11.0
    """Die edge length in pip radii (to report ``size``)."""
    one_radius: float = 1.25
    """The lone pip of a one is this much larger than other pips on the same dice."""
    border: float = 0.35
    """A die whose face centre is nearer the image border than this times its size is cut."""
    one_body: tuple[float, ...] = (2.2, 3.0, 3.8)
    """Rings (pip radii) around a lone pip that must be die body for it to be a one."""
    one_dark_share: float = 0.04
    """Largest share of dark samples on those rings (text, a label's print, a stain)."""
    body_min: float = 110.0
    """Least grey level of the die body around a pip."""


@dataclass(frozen=True)
class Die:
    """One die seen on the image."""

    value: int | None
    """The top face 1..6, or None when it cannot be read (see ``reason``)."""
    center: tuple[float, float]
    """Centre (x, y) of the top face, in the input image's pixels."""
    size: float
    """Estimated edge length of the die, in the input image's pixels."""
    confidence: float
    """0..1: how sure the reader is of ``value`` (or of the bad throw)."""
    reason: str | None = None
    """Why ``value`` is None: one of :data:`REASONS`; None when the die is read."""

    def to_json(self) -> dict[str, object]:
        """Return the die as in the ``tablier dice --json`` contract.

        Returns:
            ``{"value", "center", "size", "confidence"}`` plus ``"reason"`` when unread.

        Raises:
            Nothing.
        """
        out: dict[str, object] = {
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "size": round(self.size, 1),
            "confidence": round(self.confidence, 3),
        }
        if self.value is None:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class DiceReading:
    """What the dice reader saw on one image."""

    image_size: tuple[int, int]
    """(width, height) of the input image."""
    dice: tuple[Die, ...]
    """Every die found, read or not, from left to right."""
    debug: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    """Intermediate results for ``--debug`` pictures (pips and faces at input scale)."""

    def to_json(self) -> dict[str, object]:
        """Return the reading as in the ``tablier dice --json`` contract.

        Returns:
            ``{"image": [w, h], "dice": [...]}``.

        Raises:
            Nothing.
        """
        return {"image": [self.image_size[0], self.image_size[1]],
                "dice": [d.to_json() for d in self.dice]}


@dataclass(frozen=True)
class _Pip:
    x: float
    y: float
    cov: NDArray[np.float64]  # 2x2 second moments; the pip is the ellipse x^T (4 cov)^-1 x = 1
    radius: float  # geometric mean radius
    ratio: float  # minor / major axis
    dark: float  # mean grey inside
    body: float  # grey of the die body around it


@dataclass(frozen=True)
class _Face:
    pips: tuple[int, ...]
    value: int
    center: tuple[float, float]
    radius: float
    ratio: float
    misfit: float
    minor: tuple[float, float]  # unit vector along the pips' minor axis (the foreshortening)
    cov: NDArray[np.float64]  # mean second moments of its pips (the face's foreshortening)


# Phase 1: pips -----------------------------------------------------------------------------

def _to_grey(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    if image.ndim == 2:
        return image
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), dtype=np.uint8)


def _find_pips(cfg: DiceConfig, grey: NDArray[np.uint8]) -> list[_Pip]:
    """Dark, elliptic, high-contrast blobs on a bright surround."""
    mask = np.asarray(cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                            cv2.THRESH_BINARY_INV, cfg.block, cfg.offset),
                      dtype=np.uint8)
    pips, rejected = _blobs_to_pips(cfg, grey, mask)
    if rejected:
        # NOTE: blur (a die still rolling, focus) joins neighbouring pips through their
        # half-dark gap; a blob that is no pip is cut again at half its own depth.
        pips.extend(_blobs_to_pips(cfg, grey, _split_mask(cfg, grey, rejected))[0])
    return pips


def _split_mask(cfg: DiceConfig, grey: NDArray[np.uint8],
                rejected: Sequence[tuple[int, int, int, int, NDArray[np.bool_]]]
                ) -> NDArray[np.uint8]:
    out = np.zeros_like(grey)
    for x, y, bw, bh, comp in rejected:
        patch = grey[y:y + bh, x:x + bw]
        inside = patch[comp]
        x0, y0 = max(x - 2, 0), max(y - 2, 0)
        around = grey[y0:y + bh + 2, x0:x + bw + 2]
        level = (float(np.percentile(inside, 10)) + float(np.percentile(around, 90))) / 2
        out[y:y + bh, x:x + bw][comp & (patch < level)] = 255
    return out


def _blobs_to_pips(cfg: DiceConfig, grey: NDArray[np.uint8], mask: NDArray[np.uint8]
                   ) -> tuple[list[_Pip], list[tuple[int, int, int, int, NDArray[np.bool_]]]]:
    """Pips among the blobs of ``mask``, and the blobs that were too large or too odd."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return [], []
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    keep = (area >= cfg.pip_area[0]) & (area <= cfg.pip_area[1] * cfg.split_area)
    keep[0] = False
    if not keep.any():
        return [], []
    # Second moments of every component at once.
    ys, xs = np.nonzero(labels)
    lab = labels[ys, xs]
    sel = keep[lab]
    ys, xs, lab = ys[sel].astype(np.float64), xs[sel].astype(np.float64), lab[sel]
    n = count
    s1 = np.bincount(lab, minlength=n).astype(np.float64)
    s1[s1 == 0] = 1.0
    mx = np.bincount(lab, xs, n) / s1
    my = np.bincount(lab, ys, n) / s1
    dx, dy = xs - mx[lab], ys - my[lab]
    cxx = np.bincount(lab, dx * dx, n) / s1 + 1.0 / 12
    cyy = np.bincount(lab, dy * dy, n) / s1 + 1.0 / 12
    cxy = np.bincount(lab, dx * dy, n) / s1
    dark = np.bincount(lab, grey[ys.astype(np.intp), xs.astype(np.intp)], n) / s1
    tr, det = cxx + cyy, cxx * cyy - cxy * cxy
    disc = np.sqrt(np.maximum(tr * tr / 4 - det, 0.0))
    lmax, lmin = tr / 2 + disc, np.maximum(tr / 2 - disc, 1e-6)
    major, minor = 2 * np.sqrt(lmax), 2 * np.sqrt(lmin)
    fill = area / (math.pi * major * minor)
    ratio = minor / major
    ok = (keep & (fill >= cfg.pip_fill) & (fill <= 1.25) & (ratio >= cfg.pip_ratio)
          & (area <= cfg.pip_area[1]))
    rejected = []
    for i in np.flatnonzero(keep & ~ok & (area >= 2 * cfg.pip_area[0])):
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        rejected.append((x, y, bw, bh, labels[y:y + bh, x:x + bw] == i))
    h, w = grey.shape
    pips: list[_Pip] = []
    angles = np.linspace(0.0, 2 * math.pi, 12, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    for i in np.flatnonzero(ok):
        cov = np.array([[cxx[i], cxy[i]], [cxy[i], cyy[i]]])
        # Die body: sample a ring 1.7 pip radii out, along the pip's own ellipse.
        vals, vecs = np.linalg.eigh(cov)
        axes = vecs * (2 * np.sqrt(np.maximum(vals, 1e-6)))[None, :]
        pts = (ring * 1.7) @ axes.T + np.array([mx[i], my[i]])
        px = np.clip(np.round(pts[:, 0]).astype(np.intp), 0, w - 1)
        py = np.clip(np.round(pts[:, 1]).astype(np.intp), 0, h - 1)
        body = float(np.percentile(grey[py, px], 60))
        if body - dark[i] < cfg.pip_contrast or body < cfg.body_min:
            continue
        pips.append(_Pip(float(mx[i]), float(my[i]), cov, float(math.sqrt(major[i] * minor[i])),
                         float(ratio[i]), float(dark[i]), body))
    return pips, rejected


# Phase 2: faces ----------------------------------------------------------------------------

def _whitener(cov: NDArray[np.float64]) -> NDArray[np.float64]:
    """Map taking the pip ellipse to a circle of radius 1 (up to rotation)."""
    vals, vecs = np.linalg.eigh(cov)
    out: NDArray[np.float64] = (vecs / (2 * np.sqrt(np.maximum(vals, 1e-9)))[None, :]).T
    return out


def _shape_distance(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """Affine-invariant difference of two ellipse shapes, scale ignored."""
    wa = _whitener(a)
    m = wa @ b @ wa.T
    ev = np.linalg.eigvalsh(m)
    ev = ev / math.sqrt(max(ev[0] * ev[1], 1e-12))
    return float(abs(math.log(max(ev[1], 1e-9))))


def _pattern_misfit(pts: NDArray[np.float64], cfg: DiceConfig) -> tuple[int, float]:
    """Check that whitened pip positions (units of pip radius) form a die pattern.

    Returns:
        (value, misfit in pip radii); value 0 when the layout is no die face.
    """
    k = len(pts)
    if k == 1:
        return 1, 0.0
    c = pts.mean(axis=0)
    q = pts - c
    lo, hi = cfg.spacing
    if k == 2:
        half = float(np.linalg.norm(q[0]))  # centre to pip = corner offset * sqrt 2
        h = half / math.sqrt(2)
        return (2, 0.0) if lo <= h <= hi else (0, math.inf)
    if k == 3:
        d = np.linalg.norm(q, axis=1)
        mid = int(np.argmin(d))
        ends = [i for i in range(3) if i != mid]
        bend = float(np.linalg.norm(q[ends[0]] + q[ends[1]]) / 2 + d[mid])
        h = float(np.linalg.norm(q[ends[0]] - q[ends[1]]) / 2) / math.sqrt(2)
        gap = abs(float(d[ends[0]] - d[ends[1]]))
        if not lo <= h <= hi:
            return 0, math.inf
        return 3, bend + gap / 2
    if k in (4, 5):
        d = np.linalg.norm(q, axis=1)
        misfit = 0.0
        if k == 5:
            mid = int(np.argmin(d))
            misfit += float(d[mid])
            q = np.delete(q, mid, axis=0)
            q = q - q.mean(axis=0)
            d = np.linalg.norm(q, axis=1)
        # Corners of a square: same distance from the centre, 90 degrees apart.
        h = float(d.mean()) / math.sqrt(2)
        if not lo <= h <= hi:
            return 0, math.inf
        ang = np.sort(np.arctan2(q[:, 1], q[:, 0]))
        steps = np.diff(np.concatenate([ang, ang[:1] + 2 * math.pi]))
        misfit = max(misfit, float(np.abs(d - d.mean()).max()),
                     float(np.abs(steps - math.pi / 2).max()) * float(d.mean()))
        return k, misfit
    if k == 6:
        # Two columns of three. NOTE: a six's spread is nearly the same along and across its
        # columns, so every pip-pair direction is tried as the column axis.
        best = (0, math.inf)
        for i in range(6):
            for j in range(i + 1, 6):
                along = q[j] - q[i]
                norm = float(np.linalg.norm(along))
                if norm < 1e-6:
                    continue
                along = along / norm
                fit = _six_misfit(q, along, cfg)
                if fit < best[1]:
                    best = (6, fit)
        return best
    return 0, math.inf


def _six_misfit(q: NDArray[np.float64], along: NDArray[np.float64], cfg: DiceConfig) -> float:
    """Misfit of six centred points to two columns of three running along ``along``."""
    across = np.array([-along[1], along[0]])
    u, v = q @ along, q @ across
    order = np.argsort(v)
    left, right = order[:3], order[3:]
    half_gap = float((v[right].mean() - v[left].mean()) / 2)
    lo, hi = cfg.spacing
    if not lo <= half_gap <= hi:
        return math.inf
    terms = []
    rows = []
    for side in (left, right):
        su = np.sort(u[side])
        rows.append(su)
        terms.append(float(np.abs(v[side] - v[side].mean()).max()))
        terms.append(abs(float(su[1] - (su[0] + su[2]) / 2)))
    terms.append(float(np.abs(rows[0] - rows[1]).max()))
    misfit = max(terms)
    step = float((rows[0][2] - rows[0][0] + rows[1][2] - rows[1][0]) / 4)
    if not cfg.six_aspect[0] <= step / half_gap <= cfg.six_aspect[1]:
        return math.inf
    return misfit


def _lone_pip_on_body(cfg: DiceConfig, grey: NDArray[np.uint8], pip: _Pip) -> bool:
    """Whether a lone pip sits on a clean die face: bright all round, nothing dark near."""
    h, w = grey.shape
    vals, vecs = np.linalg.eigh(pip.cov)
    axes = vecs * (2 * np.sqrt(np.maximum(vals, 1e-6)))[None, :]
    angles = np.linspace(0.0, 2 * math.pi, 24, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    samples = []
    for radius in cfg.one_body:
        pts = (ring * radius) @ axes.T + np.array([pip.x, pip.y])
        px = np.round(pts[:, 0]).astype(np.intp)
        py = np.round(pts[:, 1]).astype(np.intp)
        inside = (px >= 0) & (px < w) & (py >= 0) & (py < h)
        samples.append(grey[py[inside], px[inside]].astype(np.float64))
    vals_all = np.concatenate(samples)
    if vals_all.size < 24:
        return False
    cut = (pip.dark + pip.body) / 2
    return float(np.mean(vals_all < cut)) <= cfg.one_dark_share


def _fit_face(pips: Sequence[_Pip], members: Sequence[int], cfg: DiceConfig) -> _Face | None:
    cov = np.mean([pips[i].cov for i in members], axis=0)
    wt = _whitener(cov)
    xy = np.array([[pips[i].x, pips[i].y] for i in members])
    value, misfit = _pattern_misfit(xy @ wt.T, cfg)
    if value == 0 or misfit > cfg.pattern_tolerance:
        # NOTE: blur stretches pips along the motion, not the face: try the plain layout too.
        r = float(np.mean([pips[i].radius for i in members]))
        value, misfit = _pattern_misfit(xy / r, cfg)
    if value == 0 or misfit > cfg.pattern_tolerance:
        return None
    radius = float(np.mean([pips[i].radius for i in members]))
    ratio = float(np.mean([pips[i].ratio for i in members]))
    cx, cy = xy.mean(axis=0)
    _, vecs = np.linalg.eigh(cov)
    minor = (float(vecs[0, 0]), float(vecs[1, 0]))
    if value == 1:
        radius /= cfg.one_radius
    return _Face(tuple(members), value, (float(cx), float(cy)), radius, ratio, misfit, minor,
                 cov)


def _components(n: int, edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _find_faces(cfg: DiceConfig, grey: NDArray[np.uint8], pips: Sequence[_Pip]) -> list[_Face]:
    n = len(pips)
    edges = []
    for i in range(n):
        for j in range(i + 1, n):
            a, b = pips[i], pips[j]
            if max(a.radius, b.radius) > 1.6 * min(a.radius, b.radius):
                continue
            d = np.array([b.x - a.x, b.y - a.y])
            cov = (a.cov + b.cov) / 2
            if float(np.linalg.norm(_whitener(cov) @ d)) > cfg.link:
                continue
            if _shape_distance(a.cov, b.cov) > cfg.shape_tolerance:
                continue
            edges.append((i, j))
    faces: list[_Face] = []
    for group in _components(n, edges):
        faces.extend(_faces_in_group(cfg, pips, group, edges))
    # A lone pip is a one only on a clean face; a rounder lone pip elsewhere is a speck.
    return [f for f in faces if f.value != 1 or _lone_pip_on_body(cfg, grey, pips[f.pips[0]])]


def _faces_in_group(cfg: DiceConfig, pips: Sequence[_Pip], group: list[int],
                    edges: Sequence[tuple[int, int]]) -> list[_Face]:
    """Faces within one linked group: the whole group, or failing that, its parts."""
    if len(group) <= 6:
        face = _fit_face(pips, group, cfg)
        if face is not None:
            return [face]
    if len(group) == 1:
        return []
    # Split by pip shape (roundness) first, then by dropping the weakest link.
    order = sorted(group, key=lambda i: pips[i].ratio)
    ratios = [pips[i].ratio for i in order]
    gaps = np.diff(ratios)
    cut = int(np.argmax(gaps)) + 1
    if gaps[cut - 1] > 0.12:
        parts = [order[:cut], order[cut:]]
    else:
        # Split at the longest link (whitened distance) of the group.
        inside = set(group)
        sub = [(a, b) for a, b in edges if a in inside and b in inside]
        if not sub:
            return []

        def length(e: tuple[int, int]) -> float:
            a, b = pips[e[0]], pips[e[1]]
            d = np.array([b.x - a.x, b.y - a.y])
            return float(np.linalg.norm(_whitener((a.cov + b.cov) / 2) @ d))

        worst = max(sub, key=length)
        rest = [e for e in sub if e != worst]
        idx = {g: k for k, g in enumerate(group)}
        comps = _components(len(group), [(idx[a], idx[b]) for a, b in rest])
        if len(comps) == 1:
            return _faces_in_group(cfg, pips, group, rest) if rest else []
        parts = [[group[k] for k in comp] for comp in comps]
    out: list[_Face] = []
    for part in parts:
        inside = set(part)
        out.extend(_faces_in_group(cfg, pips, part,
                                   [(a, b) for a, b in edges if a in inside and b in inside]))
    return out


# Phase 3: dice -----------------------------------------------------------------------------

def _is_side_of(cfg: DiceConfig, top: _Face, face: _Face) -> tuple[bool, float]:
    """Whether ``face`` can be a side face of the die whose upper face is ``top``.

    Returns:
        (answer, distance between the face centres in pip radii).
    """
    r = max(top.radius, face.radius)
    dx, dy = face.center[0] - top.center[0], face.center[1] - top.center[1]
    d = math.hypot(dx, dy) / r
    if d < cfg.same_die_close:
        return True, d
    if d >= cfg.same_die:
        return False, d
    lesser = (top.ratio - face.ratio > cfg.side_ratio_gap
              or face.radius < cfg.side_radius * top.radius)
    # A side face is foreshortened across the edge it shares with the top face, so it lies
    # along its own minor axis (or the top's) from the top face.
    flat = face if face.ratio <= top.ratio else top
    unit = (dx / (d * r), dy / (d * r))
    aligned = flat.ratio < cfg.side_max_ratio and abs(
        unit[0] * flat.minor[0] + unit[1] * flat.minor[1]) > cfg.side_alignment
    return lesser or aligned, d


def _group_faces(cfg: DiceConfig, faces: Sequence[_Face]) -> list[list[_Face]]:
    """Faces in order of roundness: each joins the nearest die it is a side of, or starts one."""
    groups: list[list[_Face]] = []
    for face in sorted(faces, key=lambda f: f.ratio, reverse=True):
        best: tuple[float, list[_Face]] | None = None
        for group in groups:
            side, d = _is_side_of(cfg, group[0], face)
            if side and (best is None or d < best[0]):
                best = (d, group)
        if best is None:
            groups.append([face])
        else:
            best[1].append(face)
    return groups


def _away_direction(groups: Sequence[Sequence[_Face]]) -> tuple[float, float]:
    """The image direction pointing away from the camera, voted by dice showing side faces.

    On an oblique view the side faces of a die lie between its top face and the camera; the
    roundest face of most dice is their top, so the mean offset from side faces to the
    roundest face points away from the camera.
    """
    vx = vy = 0.0
    for group in groups:
        if len(group) < 2:
            continue
        top = max(group, key=lambda f: f.ratio)
        for f in group:
            if f is top:
                continue
            dx, dy = top.center[0] - f.center[0], top.center[1] - f.center[1]
            n = math.hypot(dx, dy) or 1.0
            weight = max(0.0, top.ratio - f.ratio) + 0.05
            vx, vy = vx + weight * dx / n, vy + weight * dy / n
    n = math.hypot(vx, vy)
    return (vx / n, vy / n) if n > 1e-9 else (0.0, 0.0)


def _top_score(cfg: DiceConfig, face: _Face, group: Sequence[_Face],
               away: tuple[float, float]) -> float:
    """How much ``face`` looks like the top of its die: round, and farthest from the camera."""
    cx = sum(f.center[0] for f in group) / len(group)
    cy = sum(f.center[1] for f in group) / len(group)
    r = max(f.radius for f in group)
    reach = ((face.center[0] - cx) * away[0] + (face.center[1] - cy) * away[1]) / r
    return face.ratio + cfg.away_weight * reach


def _odd_tops(cfg: DiceConfig, tops: Sequence[_Face]) -> set[int]:
    """Dice whose top face is foreshortened unlike the others' (tilted: cocked).

    Top faces of dice lying flat are parallel to the board, so their pips share one shape;
    a die leaning on a dame or the rail shows a top face of another shape. Of two dice that
    disagree, the more foreshortened one is taken as the leaning one.
    """
    flat = [i for i, f in enumerate(tops) if f.ratio >= cfg.top_ratio]
    if len(flat) < 2:
        return set()
    dist = np.zeros((len(flat), len(flat)))
    for a in range(len(flat)):
        for b in range(a + 1, len(flat)):
            d = _shape_distance(tops[flat[a]].cov, tops[flat[b]].cov)
            dist[a, b] = dist[b, a] = d
    odd: set[int] = set()
    if len(flat) == 2:
        if dist[0, 1] > cfg.cocked_shape:
            odd.add(min(flat, key=lambda i: tops[i].ratio))
        return odd
    for a in range(len(flat)):
        others = np.delete(dist[a], a)
        if float(np.median(others)) > cfg.cocked_shape:
            odd.add(flat[a])
    return odd


def _dice_from_faces(cfg: DiceConfig, faces: Sequence[_Face], scale: float,
                     image_size: tuple[int, int]) -> list[Die]:
    groups = _group_faces(cfg, faces)
    away = _away_direction(groups)
    # Top face of every die, and how clearly it beats the next candidate.
    tops: list[tuple[_Face, float, list[_Face]]] = []
    for group in groups:
        scored = sorted(((_top_score(cfg, f, group, away), f) for f in group),
                        key=lambda sf: sf[0], reverse=True)
        top = scored[0][1]
        if top.ratio < cfg.top_ratio and len(group) == 1:
            continue  # a lone flat face: a side face whose top was not seen, or a stain
        lead = scored[0][0] - scored[1][0] if len(scored) > 1 else 1.0
        tops.append((top, lead, group))
    odd = _odd_tops(cfg, [t[0] for t in tops])
    dice: list[Die] = []
    w, h = image_size
    for k, (top, lead, _) in enumerate(tops):
        size_in = cfg.size_per_radius * top.radius / scale
        cx, cy = top.center[0] / scale, top.center[1] / scale
        confidence = float(np.clip(1.0 - top.misfit / (2 * cfg.pattern_tolerance), 0.0, 1.0))
        confidence *= float(np.clip(0.5 + lead / (2 * cfg.side_ratio_gap), 0.0, 1.0))
        reason: str | None = None
        if min(cx, cy, w - 1 - cx, h - 1 - cy) < cfg.border * size_in:
            reason = "out_of_view"
            confidence = 0.5
        elif top.ratio < cfg.top_ratio or k in odd:
            reason = "cocked"
            confidence = 0.6 if k in odd else float(np.clip(1.0 - top.ratio, 0.2, 1.0))
        dice.append(Die(value=None if reason else top.value, center=(cx, cy), size=size_in,
                        confidence=round(confidence, 3), reason=reason))
    dice.sort(key=lambda d: (d.center[0], d.center[1]))
    return dice


def read_dice(cfg: DiceConfig, image: NDArray[np.uint8]) -> DiceReading:
    """Find every die on an image and read its top face.

    Args:
        cfg: the tuned values (``DiceConfig()`` for the defaults).
        image: HxWx3 uint8 RGB, or HxW uint8 grey.

    Returns:
        The :class:`DiceReading`: every die seen, with its value or the reason it has none.

    Raises:
        ValueError: if ``image`` is not an HxWx3 or HxW uint8 array of at least 16x16 pixels.

    >>> import numpy as np
    >>> read_dice(DiceConfig(), np.full((48, 64, 3), 200, np.uint8)).to_json()
    {'image': [64, 48], 'dice': []}
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or not (
            image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 3)):
        raise ValueError("image must be an HxWx3 (RGB) or HxW uint8 array, got "
                         f"{getattr(image, 'shape', None)} {getattr(image, 'dtype', None)}")
    h, w = image.shape[:2]
    if min(h, w) < 16:
        raise ValueError(f"image is too small to hold dice: {w}x{h}")
    scale = min(1.0, cfg.work_side / max(w, h))
    grey = _to_grey(image)
    if scale < 1.0:
        grey = np.asarray(cv2.resize(grey, (round(w * scale), round(h * scale)),
                                     interpolation=cv2.INTER_AREA), dtype=np.uint8)
    pips = _find_pips(cfg, grey)
    faces = _find_faces(cfg, grey, pips)
    dice = _dice_from_faces(cfg, faces, scale, (w, h))
    debug: dict[str, object] = {
        "pips": [(p.x / scale, p.y / scale, p.radius / scale, p.ratio) for p in pips],
        "faces": [(f.value, f.center[0] / scale, f.center[1] / scale, f.ratio, f.misfit,
                   [(pips[i].x / scale, pips[i].y / scale) for i in f.pips]) for f in faces],
    }
    return DiceReading(image_size=(w, h), dice=tuple(dice), debug=debug)


# Loading, evaluation and the debug entry ---------------------------------------------------

def load_image(path: str | Path) -> NDArray[np.uint8]:
    """Read an image file as HxWx3 uint8 RGB.

    Args:
        path: the image file.

    Returns:
        The image, RGB.

    Raises:
        ValueError: if the file is missing, unreadable, truncated or not an image; the message
            names the file.
    """
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"no such image file: {str(p)!r}")
    data = np.fromfile(str(p), dtype=np.uint8)
    if data.size == 0:
        raise ValueError(f"image file is empty: {str(p)!r}")
    _check_complete(p, data)
    bgr = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if bgr is None:
        raise ValueError(f"not a readable image: {str(p)!r}")
    return np.ascontiguousarray(bgr[:, :, ::-1])


def _check_complete(path: Path, data: NDArray[np.uint8]) -> None:
    """Refuse a JPEG or PNG whose end marker is missing (a truncated file)."""
    head = bytes(data[:8])
    tail = bytes(data[-64:])
    if head[:3] == b"\xff\xd8\xff" and b"\xff\xd9" not in tail:
        raise ValueError(f"truncated JPEG image: {str(path)!r}")
    if head == b"\x89PNG\r\n\x1a\n" and b"IEND" not in tail:
        raise ValueError(f"truncated PNG image: {str(path)!r}")


def draw_reading(image: NDArray[np.uint8], reading: DiceReading) -> NDArray[np.uint8]:
    """Draw the pips, faces and dice of a reading onto a copy of the image.

    Args:
        image: HxWx3 uint8 RGB, the image that was read.
        reading: what :func:`read_dice` returned for it.

    Returns:
        An annotated HxWx3 uint8 RGB copy.

    Raises:
        Nothing.
    """
    out = image.copy() if image.ndim == 3 else np.dstack([image] * 3)
    pips = reading.debug.get("pips", [])
    faces = reading.debug.get("faces", [])
    assert isinstance(pips, list) and isinstance(faces, list)
    for x, y, r, _ in pips:
        cv2.circle(out, (round(x), round(y)), max(2, round(r)), (0, 160, 255), 1, cv2.LINE_AA)
    for value, cx, cy, ratio, _, members in faces:
        for x, y in members:
            cv2.line(out, (round(cx), round(cy)), (round(x), round(y)), (255, 200, 0), 1)
        cv2.putText(out, f"{value}:{ratio:.2f}", (round(cx) + 4, round(cy) - 4),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.35, (255, 200, 0), 1, cv2.LINE_AA)
    for die in reading.dice:
        half = die.size / 2
        x, y = die.center
        colour = (0, 200, 0) if die.value is not None else (255, 0, 0)
        cv2.rectangle(out, (round(x - half), round(y - half)), (round(x + half), round(y + half)),
                      colour, 2)
        label = str(die.value) if die.value is not None else str(die.reason)
        cv2.putText(out, f"{label} {die.confidence:.2f}", (round(x - half), round(y - half) - 4),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Read one image, print the JSON reading and optionally write an annotated picture.

    Args:
        argv: arguments without the program name.

    Returns:
        0, or 2 when the image cannot be read.

    Raises:
        SystemExit: from argparse on bad arguments.
    """
    parser = argparse.ArgumentParser(
        prog="python -m tablier.vision.dice",
        description="Read the dice on a photograph and optionally write an annotated picture.")
    parser.add_argument("image", metavar="IMAGE")
    parser.add_argument("--debug", metavar="DIR", type=Path,
                        help="write IMAGE-stem.dice.png with pips, faces and dice drawn")
    parser.add_argument("--json", action="store_true", help="(the default) print JSON")
    args = parser.parse_args(argv)
    try:
        image = load_image(args.image)
    except ValueError as exc:
        print(f"dice: {exc}", file=sys.stderr)
        return 2
    reading = read_dice(DiceConfig(), image)
    print(json.dumps(reading.to_json()))
    if args.debug is not None:
        args.debug.mkdir(parents=True, exist_ok=True)
        out = args.debug / f"{Path(args.image).stem}.dice.png"
        cv2.imwrite(str(out), draw_reading(image, reading)[:, :, ::-1])
        print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
