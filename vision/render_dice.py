"""Draw realistic dice onto an image and say exactly what was drawn.

The one public drawing function, kept stable because the board renderer calls it::

    render_die(canvas, *, value, center, size, rotation=0.0, cocked=0.0, cock_direction=0.0,
               elevation=0.0, view_tilt=0.0, view_direction=90.0, body_rgb=(236, 232, 218),
               pip_rgb=(24, 22, 20), light_rgb=(255, 255, 255),
               light_direction=(-0.35, -0.45, 0.82), ambient=0.55, shadow=0.45,
               pip_radius=0.09, pip_spacing=0.27, corner_radius=0.14,
               cocked_limit=12.0, lean=(0.0, 0.0)) -> DieTruth

``canvas`` is an HxWx3 uint8 RGB array, changed in place. The die is a cube with rounded edges
and corners, seen by an orthographic camera tilted ``view_tilt`` degrees from the vertical
and/or, for a pinhole camera over the board, leaning outward by ``lean`` (see its docstring),
with its shadow cast on the ground along the light. Coordinates are image pixels: x to the right, y
down; "up" is toward the camera. Side faces show when the view is oblique or the die is cocked,
and they carry their own pips (opposite faces sum to 7), so a reader must find the top face.

:class:`DieTruth` gives the ground truth a reader is scored against: the value of the upward
face (or ``None`` with a ``reason`` when the throw is bad: ``"cocked"``, ``"on_die"``,
``"out_of_view"``), the image position of the upward face's centre, the size, the projected
outline of the top face and of the whole die.

Run as a module to regenerate the rendered dice sets with their truth::

    python -m tablier.vision.render_dice fixtures/dice/rendered
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

# Reasons a die is seen but its value is not read (shared with the reader).
REASONS = ("cocked", "on_die", "out_of_view")

# Face normals of the canonical die and their values: opposite faces sum to 7.
_FACE_NORMALS: dict[int, tuple[float, float, float]] = {
    1: (0.0, 0.0, 1.0), 6: (0.0, 0.0, -1.0),
    2: (1.0, 0.0, 0.0), 5: (-1.0, 0.0, 0.0),
    3: (0.0, 1.0, 0.0), 4: (0.0, -1.0, 0.0),
}
# An in-face "right" direction for every face, so the patterns of 2, 3 and 6 have an
# orientation that turns with the die.
_FACE_RIGHT: dict[int, tuple[float, float, float]] = {
    1: (1.0, 0.0, 0.0), 6: (0.0, 1.0, 0.0),
    2: (0.0, 1.0, 0.0), 5: (0.0, 0.0, 1.0),
    3: (0.0, 0.0, 1.0), 4: (1.0, 0.0, 0.0),
}
# Pip positions in units of the pip spacing, (right, down) in the face's own frame.
PIP_LAYOUTS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}
_SUPERSAMPLE = 3


@dataclass(frozen=True)
class DieTruth:
    """What :func:`render_die` drew: the answer a dice reader is scored against."""

    value: int | None
    """The upward face 1..6, or None when the throw is bad (see ``reason``)."""
    top_value: int
    """The face that points most upward, even when the die is cocked."""
    center: tuple[float, float]
    """Image position (x, y) of the centre of the upward face."""
    size: float
    """Edge length of the die in pixels (before foreshortening)."""
    top_face: tuple[tuple[float, float], ...]
    """The four projected corners of the upward face, in image pixels."""
    outline: tuple[tuple[float, float], ...]
    """The convex outline of the whole die as seen, in image pixels."""
    tilt: float
    """Angle in degrees between the upward face's normal and the vertical."""
    reason: str | None = None
    """Why ``value`` is None: "cocked", "on_die" or "out_of_view"; None when readable."""
    pips: tuple[tuple[float, float], ...] = ()
    """The convex outline of the upward face's pips, in image pixels: the die is
    "out_of_view" when any of it lies outside the picture (a pip cut off), not when only a
    corner of the face is."""

    def to_json(self) -> dict[str, object]:
        """Return the truth as plain JSON-able data.

        Returns:
            A dict of the fields, tuples as lists.

        Raises:
            Nothing.
        """
        data = asdict(self)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in data.items()}


def _rotation(axis: NDArray[np.float64], angle: float) -> NDArray[np.float64]:
    """Rotation matrix about a unit ``axis`` by ``angle`` radians (Rodrigues)."""
    x, y, z = axis / (np.linalg.norm(axis) or 1.0)
    c, s = math.cos(angle), math.sin(angle)
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    out: NDArray[np.float64] = np.eye(3) + s * k + (1 - c) * (k @ k)
    return out


def _align(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rotation taking unit vector ``a`` onto unit vector ``b``."""
    v = np.cross(a, b)
    c = float(np.dot(a, b))
    if np.linalg.norm(v) < 1e-9:
        if c > 0:
            return np.eye(3)
        perp = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        return _rotation(np.cross(a, perp), math.pi)
    return _rotation(v, math.acos(max(-1.0, min(1.0, c))))


def _rounded_square(half: float, radius: float, steps: int = 6) -> NDArray[np.float64]:
    """Outline of a square of half-width ``half`` with rounded corners, as (N, 2) points."""
    r = max(0.0, min(radius, half))
    inner = half - r
    pts: list[tuple[float, float]] = []
    for cx, cy, start in ((inner, inner, 0.0), (-inner, inner, 90.0),
                          (-inner, -inner, 180.0), (inner, -inner, 270.0)):
        for i in range(steps + 1):
            a = math.radians(start + 90.0 * i / steps)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)


def _circle(steps: int = 20) -> NDArray[np.float64]:
    a = np.linspace(0.0, 2 * math.pi, steps, endpoint=False)
    return np.stack([np.cos(a), np.sin(a)], axis=1)


def _pip_rings(value: int, spacing: float, radius: float, size: float,
               steps: int = 20) -> list[NDArray[np.float64]]:
    """Each pip of the face ``value`` as a ring of ``steps`` points, in the face's own (right,
    down) axes, pixels."""
    ring = _circle(steps)
    return [np.array([px, py], dtype=np.float64)[None, :] * spacing * size + ring * radius * size
            for px, py in PIP_LAYOUTS[value]]


def _rounded(pts: Iterable[Sequence[float]]) -> tuple[tuple[float, float], ...]:
    """Points as plain floats to 0.01 px, as the truth holds them."""
    return tuple((round(float(p[0]), 2), round(float(p[1]), 2)) for p in pts)


CUBE_CORNERS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)],
                        dtype=np.float64)
"""The corners of a cube of edge 2 about its centre, in the die's own axes."""


def die_pose(value: int, rotation: float = 0.0, cocked: float = 0.0,
             cock_direction: float = 0.0) -> NDArray[np.float64]:
    """The rotation taking a die's own axes to the world's (z up): face ``value`` up, turned by
    ``rotation`` degrees about the vertical, then tilted ``cocked`` degrees with its top
    toward ``cock_direction`` (degrees, 0 = +x, 90 = +y)."""
    up = np.array([0.0, 0.0, 1.0])
    pose = _align(np.array(_FACE_NORMALS[value]), up)
    pose = _rotation(up, math.radians(rotation)) @ pose
    if cocked:
        cd = math.radians(cock_direction)
        axis = np.array([-math.sin(cd), math.cos(cd), 0.0])
        pose = _rotation(axis, math.radians(cocked)) @ pose
    return pose


def render_die(
    canvas: NDArray[np.uint8],
    *,
    value: int,
    center: tuple[float, float],
    size: float,
    rotation: float = 0.0,
    cocked: float = 0.0,
    cock_direction: float = 0.0,
    elevation: float = 0.0,
    stand: float = 0.0,
    view_tilt: float = 0.0,
    view_direction: float = 90.0,
    body_rgb: tuple[int, int, int] = (236, 232, 218),
    pip_rgb: tuple[int, int, int] = (24, 22, 20),
    light_rgb: tuple[int, int, int] = (255, 255, 255),
    light_direction: tuple[float, float, float] = (-0.35, -0.45, 0.82),
    ambient: float = 0.55,
    shadow: float = 0.45,
    pip_radius: float = 0.09,
    pip_spacing: float = 0.27,
    corner_radius: float = 0.14,
    cocked_limit: float = 12.0,
    lean: tuple[float, float] = (0.0, 0.0),
    bodies: NDArray[np.float32] | None = None,
) -> DieTruth:
    """Draw one die onto ``canvas`` (in place) and return its ground truth.

    Args:
        canvas: HxWx3 uint8 RGB image, changed in place.
        value: the face that points up, 1..6.
        center: image position (x, y) of the ground point under the die's centre.
        size: edge length of the die in pixels (> 2).
        rotation: turn of the die about the vertical, degrees.
        cocked: tilt of the die away from lying flat, degrees (0 = flat). A die leaning on a
            dame or the rail; the truth's value is None, reason "cocked", when the tilt is at
            least ``cocked_limit``.
        cock_direction: image direction (degrees, 0 = +x, 90 = +y) toward which the top leans.
        elevation: height of the die's lowest point above the ground, pixels: a die resting
            on another die has ``elevation`` about ``size`` (reason "on_die" when above a
            quarter of ``size``). The shadow falls on the ground.
        stand: height of the surface the die lies on, pixels: the top of a pile of dames (a
            die lying flat on a man is good, so this is not "on_die"). The die is raised by it
            and its shadow falls on that surface (drawn there also where it would reach past
            the dame's edge).
        view_tilt: angle of the camera from the vertical, degrees (0 = straight down).
        view_direction: image direction (degrees) in which the camera stands; side faces
            facing it are seen (90 = the camera is below the image, as in a webcam on a desk).
        body_rgb: colour of the die's body.
        pip_rgb: colour of the pips.
        light_rgb: colour of the light (multiplies the body colour).
        light_direction: vector toward the light (x right, y down, z up); normalised here.
        ambient: share of light that reaches faces turned away from the light, 0..1.
        shadow: darkness of the cast shadow, 0 (none) .. 1 (black).
        pip_radius: pip radius as a fraction of ``size``.
        pip_spacing: distance of the outer pips from the face centre, fraction of ``size``.
        corner_radius: rounding of the edges, fraction of ``size``.
        cocked_limit: tilt in degrees from which the die counts as cocked.
        lean: image shift (x, y) per pixel of height above the ground: a pinhole camera whose
            image plane is parallel to the board, at height H (pixels) above the point N of
            the image, sees a die at p with ``lean = (p - N) / H`` (its top drawn outward,
            the side faces that face N showing). Added to the ``view_tilt`` projection.
        bodies: an HxW float32 mask (0..1) of the dice drawn before on ``canvas``, or None.
            This die's shadow does not darken them (two dice lying side by side: a light
            above the board cannot shade one's top face by the other, both being as high),
            and this die's body is added to it (changed in place).

    Returns:
        The :class:`DieTruth` of what was drawn.

    Raises:
        ValueError: if ``value`` is not 1..6, ``size`` is not above 2 pixels, or the canvas is
            not an HxWx3 uint8 array.
    """
    if value not in _FACE_NORMALS:
        raise ValueError(f"die value must be 1..6, got {value!r}")
    if not size > 2:
        raise ValueError(f"die size must be above 2 pixels, got {size!r}")
    if canvas.ndim != 3 or canvas.shape[2] != 3 or canvas.dtype != np.uint8:
        raise ValueError(f"canvas must be HxWx3 uint8, got {canvas.shape} {canvas.dtype}")
    if bodies is not None and bodies.shape != canvas.shape[:2]:
        raise ValueError(f"bodies must be {canvas.shape[:2]}, got {bodies.shape}")

    pose = die_pose(value, rotation, cocked, cock_direction)
    vd = math.radians(view_direction)
    view = _rotation(np.array([math.sin(vd), -math.cos(vd), 0.0]), math.radians(view_tilt))

    # Cube corners in the world; the lowest point rests at `elevation`.
    half = size / 2.0
    signs = CUBE_CORNERS
    corners = (pose @ (signs * half).T).T
    lift = stand + elevation - float(corners[:, 2].min())
    offset = np.array([0.0, 0.0, lift])

    shear = np.array(lean, dtype=np.float64)

    def project(points: NDArray[np.float64]) -> NDArray[np.float64]:
        cam = (view @ points.T).T
        return cam[:, :2] + points[:, 2:3] * shear[None, :] + np.array(center, dtype=np.float64)

    light = np.array(light_direction, dtype=np.float64)
    light = light / (np.linalg.norm(light) or 1.0)
    body = np.array(body_rgb, dtype=np.float64) * np.array(light_rgb, dtype=np.float64) / 255.0

    # Faces: world normal, right vector, visibility, shade.
    faces = []
    # Direction toward the camera, for each face's visibility: the view rotation's z axis,
    # tipped by the lean (a pinhole's ray).
    to_camera = view.T @ np.array([0.0, 0.0, 1.0])
    to_camera = to_camera - np.array([shear[0], shear[1], 0.0])
    to_camera /= np.linalg.norm(to_camera)
    for face_value, normal in _FACE_NORMALS.items():
        n_world = pose @ np.array(normal)
        r_world = pose @ np.array(_FACE_RIGHT[face_value])
        d_world = np.cross(n_world, r_world)
        facing = float(n_world @ to_camera)
        lambert = max(0.0, float(n_world @ light))
        shade = ambient + (1.0 - ambient) * lambert
        faces.append((face_value, n_world, r_world, d_world, facing, shade))
    top = max(faces, key=lambda f: f[1][2])
    tilt = math.degrees(math.acos(max(-1.0, min(1.0, float(top[1][2])))))

    # Outline of the rounded body: spheres at the inner corners, sampled.
    rad = corner_radius * size
    inner = (pose @ (signs * (half - rad)).T).T + offset
    ring = _sphere_points() * rad
    body_pts = (inner[:, None, :] + ring[None, :, :]).reshape(-1, 3)
    outline_2d = cv2.convexHull(project(body_pts).astype(np.float32)).reshape(-1, 2)

    # Shadow: the body projected along the light onto what it stands on.
    lz = max(light[2], 0.15)
    ground = body_pts - np.outer((body_pts[:, 2] - stand) / lz, light)
    shadow_2d = cv2.convexHull(project(ground).astype(np.float32)).reshape(-1, 2)

    # Local patch, supersampled.
    pad = int(size * 0.3) + 4
    allpts = np.vstack([outline_2d, shadow_2d])
    x0 = math.floor(allpts[:, 0].min()) - pad
    y0 = math.floor(allpts[:, 1].min()) - pad
    x1 = math.ceil(allpts[:, 0].max()) + pad
    y1 = math.ceil(allpts[:, 1].max()) + pad
    hgt, wid = canvas.shape[:2]
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, wid), min(y1, hgt)
    truth_center, top_quad = _top_truth(top[1], top[2], top[3], offset, half, project)
    top3 = top[1] * half + offset
    # NOTE: eight points round each pip: within 0.1 px of its disc
    top_rings = np.vstack([top3[None, :] + ring @ np.vstack([top[2], top[3]])
                           for ring in _pip_rings(top[0], pip_spacing, pip_radius, size, 8)])
    pips_2d = np.asarray(cv2.convexHull(project(top_rings).astype(np.float32)),
                         dtype=np.float64).reshape(-1, 2)
    reason = _reason(tilt, elevation, size, pips_2d, wid, hgt, cocked_limit)
    truth = DieTruth(
        value=None if reason else int(top[0]), top_value=int(top[0]),
        center=(round(truth_center[0], 2), round(truth_center[1], 2)), size=float(size),
        top_face=_rounded(top_quad),
        outline=_rounded(outline_2d),
        tilt=round(tilt, 2), reason=reason,
        pips=_rounded(pips_2d))
    if cx0 >= cx1 or cy0 >= cy1:
        return truth

    ss = _SUPERSAMPLE
    pw, ph = (x1 - x0) * ss, (y1 - y0) * ss
    origin = np.array([x0, y0], dtype=np.float64)

    def to_patch(pts: NDArray[np.float64]) -> NDArray[np.int32]:
        return np.round((pts - origin) * ss * 16).astype(np.int32)

    def fill(img: NDArray[np.float32], pts: NDArray[np.float64],
             colour: float | tuple[float, ...]) -> None:
        cv2.fillPoly(img, [to_patch(pts)], colour, lineType=cv2.LINE_AA, shift=4)

    # Shadow mask, soft.
    smask = np.zeros((ph, pw), np.float32)
    fill(smask, shadow_2d.astype(np.float64), 1.0)
    smask = np.asarray(cv2.GaussianBlur(smask, (0, 0), sigmaX=max(1.0, size * 0.06 * ss)),
                       dtype=np.float32)

    # Body: silhouette in the mean shade of the visible faces, then each face.
    colour = np.zeros((ph, pw, 3), np.float32)
    alpha = np.zeros((ph, pw), np.float32)
    visible = sorted((f for f in faces if f[4] > 1e-6), key=lambda f: f[4])
    mean_shade = float(np.mean([f[5] for f in visible])) if visible else ambient
    fill(colour, outline_2d.astype(np.float64), tuple(float(c) for c in body * mean_shade * 0.92))
    fill(alpha, outline_2d.astype(np.float64), 1.0)
    face_outline = _rounded_square(half - rad * 0.55, rad * 0.9)
    for face_value, n_world, r_world, d_world, facing, shade in visible:
        centre3 = n_world * half + offset

        def face_to_world(uv: NDArray[np.float64], c3: NDArray[np.float64] = centre3,
                          r3: NDArray[np.float64] = r_world,
                          d3: NDArray[np.float64] = d_world) -> NDArray[np.float64]:
            return c3[None, :] + uv[:, :1] * r3[None, :] + uv[:, 1:2] * d3[None, :]

        # NOTE: faces seen very obliquely get a little darker, like the rounded rim.
        tone = body * shade * (0.85 + 0.15 * min(1.0, facing * 1.5))
        fill(colour, project(face_to_world(face_outline)), tuple(float(c) for c in tone))
        pip_tone = np.array(pip_rgb, dtype=np.float64) * (0.6 + 0.4 * shade)
        for ring_uv in _pip_rings(face_value, pip_spacing, pip_radius, size):
            fill(colour, project(face_to_world(ring_uv)), tuple(float(c) for c in pip_tone))

    # Down-sample and composite: shadow first, then the die.
    small = (x1 - x0, y1 - y0)
    smask = np.asarray(cv2.resize(smask, small, interpolation=cv2.INTER_AREA), dtype=np.float32)
    colour = np.asarray(cv2.resize(colour, small, interpolation=cv2.INTER_AREA), dtype=np.float32)
    alpha = np.asarray(cv2.resize(alpha, small, interpolation=cv2.INTER_AREA), dtype=np.float32)
    sl = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
    region = canvas[cy0:cy1, cx0:cx1].astype(np.float32)
    cast = np.clip(smask[sl], 0.0, 1.0)
    a = np.clip(alpha[sl], 0.0, 1.0)
    if bodies is not None:
        cast = cast * (1.0 - bodies[cy0:cy1, cx0:cx1])
        np.maximum(bodies[cy0:cy1, cx0:cx1], a, out=bodies[cy0:cy1, cx0:cx1])
    region *= (1.0 - shadow * cast)[:, :, None]
    region = region * (1.0 - a[:, :, None]) + colour[sl] * a[:, :, None]
    canvas[cy0:cy1, cx0:cx1] = np.clip(region + 0.5, 0, 255).astype(np.uint8)
    return truth


def _sphere_points() -> NDArray[np.float64]:
    pts = []
    for el in np.linspace(-math.pi / 2, math.pi / 2, 7):
        for az in np.linspace(0.0, 2 * math.pi, 12, endpoint=False):
            pts.append((math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)))
    return np.array(pts)


_Projector = Callable[[NDArray[np.float64]], NDArray[np.float64]]


def _top_truth(n: NDArray[np.float64], r: NDArray[np.float64], d: NDArray[np.float64],
               offset: NDArray[np.float64], half: float,
               project: _Projector) -> tuple[tuple[float, float], NDArray[np.float64]]:
    """Centre and corners of the upward face (normal n, in-face axes r, d), projected."""
    c3 = n * half + offset
    quad = np.array([c3 + half * (sx * r + sy * d)
                     for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    centre = project(c3[None, :])[0]
    return (float(centre[0]), float(centre[1])), project(quad)


def _inside(pts: NDArray[np.float64], width: int, height: int) -> bool:
    """Whether every point lies in a picture of ``width`` x ``height`` pixels."""
    return bool(((pts[:, 0] >= 0) & (pts[:, 0] <= width - 1)
                 & (pts[:, 1] >= 0) & (pts[:, 1] <= height - 1)).all())


def _reason(tilt: float, elevation: float, size: float, pips: NDArray[np.float64],
            width: int, height: int, cocked_limit: float) -> str | None:
    if elevation > 0.25 * size:
        return "on_die"
    if tilt >= cocked_limit:
        return "cocked"
    # NOTE: a top face is read from its pips: with a corner of the face cut off but every pip
    # in the picture the value can be read (design.md: null when the top face "cannot be read").
    if not _inside(pips, width, height):
        return "out_of_view"
    return None


SETS: dict[str, tuple[int, int]] = {"tune": (1000, 150), "measure": (2000, 160)}
"""Rendered dice sets (480x360 JPEG): name -> (first seed, number of frames); frame i uses
seed first + i. Thresholds are chosen on "tune" only; "measure" reports accuracy."""


def _background(rng: np.random.Generator, width: int, height: int) -> NDArray[np.uint8]:
    """A wooden or felt surface, HxWx3 uint8 RGB."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if rng.random() < 0.65:
        # Wood: stripes along a random direction, warped, two tones.
        base = np.array(rng.choice([(196, 160, 118), (222, 196, 160), (150, 104, 66),
                                    (230, 214, 180), (120, 80, 50)]), dtype=np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        period = rng.uniform(10, 30)
        warp = 6 * np.sin(v / rng.uniform(40, 120) + rng.uniform(0, 6))
        grain = 0.5 + 0.5 * np.sin((u + warp) * 2 * math.pi / period)
        shade = 1.0 - rng.uniform(0.05, 0.16) * grain ** 3
        img = base[None, None, :] * shade[:, :, None]
    else:
        base = np.array(rng.choice([(40, 100, 60), (30, 70, 45), (120, 30, 35),
                                    (35, 55, 110), (90, 70, 50)]), dtype=np.float32)
        img = np.broadcast_to(base, (height, width, 3)).astype(np.float32)
    img = img + rng.normal(0, 3.0, size=(height, width, 1)).astype(np.float32)
    return np.ascontiguousarray(np.clip(img, 0, 255), dtype=np.uint8)


def _dame(canvas: NDArray[np.uint8], rng: np.random.Generator, center: tuple[float, float],
          radius: float) -> None:
    """A flat round dame (checker) with a rim, drawn in place."""
    colour = rng.choice([(30, 26, 24), (235, 228, 210), (150, 30, 30)])
    c = (round(center[0] * 16), round(center[1] * 16))
    cv2.circle(canvas, c, round(radius * 16), tuple(int(x) for x in colour), -1,
               cv2.LINE_AA, shift=4)
    rim = tuple(int(x * 0.8) for x in colour)
    cv2.circle(canvas, c, round(radius * 0.8 * 16), rim, max(1, round(radius * 0.06)),
               cv2.LINE_AA, shift=4)


FOCAL = 0.85
"""Focal length of the rendered scenes' camera, as a share of the frame's longer side."""


def _move_truth(truth: DieTruth, hom: NDArray[np.float64], width: int,
                height: int) -> DieTruth:
    """The truth of a die drawn on the board plane, seen through the homography ``hom``."""

    def move(pts: Sequence[tuple[float, float]]) -> NDArray[np.float64]:
        a = np.asarray(pts, dtype=np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(a, hom), dtype=np.float64).reshape(-1, 2)

    quad = move(truth.top_face)
    centre = move([truth.center])[0]
    side = float(np.sqrt(abs(cv2.contourArea(quad.astype(np.float32)))))
    pips = move(truth.pips)
    reason = truth.reason if truth.reason or _inside(pips, width, height) else "out_of_view"
    return DieTruth(
        value=None if reason else truth.value, top_value=truth.top_value,
        center=(round(float(centre[0]), 2), round(float(centre[1]), 2)),
        size=round(side, 2),
        top_face=_rounded(quad),
        outline=_rounded(move(truth.outline)),
        tilt=truth.tilt, reason=reason,
        pips=_rounded(pips))


def render_scene(rng: np.random.Generator, *, width: int = 640, height: int = 480,
                 allow_bad: bool = True, die_px: tuple[float, float] | None = None
                 ) -> tuple[NDArray[np.uint8], list[DieTruth]]:
    """Render a photograph-like frame of dice (see :func:`render_scene_with_camera`).

    Args:
        rng: the random generator (seed it for a reproducible frame).
        width: frame width in pixels.
        height: frame height in pixels.
        allow_bad: whether bad throws (cocked, out of view) may be drawn.
        die_px: range of the dice' edge in pixels; by default 38..80 per 480 pixels of the
            frame's shorter side.

    Returns:
        (HxWx3 uint8 RGB frame, truth of every die drawn, in frame pixels).

    Raises:
        ValueError: if the frame is smaller than 64x64.
    """
    image, truths, _ = render_scene_with_camera(rng, width=width, height=height,
                                                allow_bad=allow_bad, die_px=die_px)
    return image, truths


def render_scene_with_camera(
        rng: np.random.Generator, *, width: int = 640, height: int = 480,
        allow_bad: bool = True, die_px: tuple[float, float] | None = None) -> tuple[NDArray[np.uint8], list[DieTruth],
                                         tuple[float, float, float]]:
    """Render a photograph-like frame of dice on a surface, with its truth.

    The scene is drawn on the board plane as a pinhole camera straight above would see it
    (each die leaning outward by its distance from the centre), then the camera is tilted up
    to 30 degrees (a homography). The light, its colour, the dice' size, colours and poses, a
    few dames, blur and noise are drawn from ``rng``. Sometimes (``allow_bad``) one die is
    cocked 22..40 degrees or lies half out of the frame. JPEG compression is left to the
    caller.

    Args:
        rng: the random generator (seed it for a reproducible frame).
        width: frame width in pixels.
        height: frame height in pixels.
        allow_bad: whether bad throws (cocked, out of view) may be drawn.
        die_px: range of the dice' edge in pixels (see :func:`render_scene`).

    Returns:
        (HxWx3 uint8 RGB frame, truth of every die drawn in frame pixels, the board's normal
        in camera coordinates: x right, y down, z along the optical axis; what a calibration
        knows).

    Raises:
        ValueError: if the frame is smaller than 64x64.
    """
    if width < 64 or height < 64:
        raise ValueError(f"frame too small: {width}x{height}")
    focal = FOCAL * max(width, height)
    # Camera: K_out R K_big^-1 takes the board plane (big canvas) to the frame; the canvas is
    # made large enough to hold everything the tilted camera sees.
    tilt = float(rng.uniform(0, 30))
    azimuth = float(rng.uniform(0, 2 * math.pi))
    k_out = np.array([[focal, 0.0, width / 2], [0.0, focal, height / 2], [0.0, 0.0, 1.0]])
    rot = _rotation(np.array([math.cos(azimuth), math.sin(azimuth), 0.0]), math.radians(tilt))
    k_rel = np.array([[focal, 0.0, 0.0], [0.0, focal, 0.0], [0.0, 0.0, 1.0]])
    corners = np.array([[0, 0, 1], [width, 0, 1], [0, height, 1], [width, height, 1]], float)
    rel = (np.linalg.inv(k_out @ rot @ np.linalg.inv(k_rel)) @ corners.T).T
    rel = rel[:, :2] / rel[:, 2:3]
    pad = 0.2 * max(width, height)
    cx_b, cy_b = -rel[:, 0].min() + pad, -rel[:, 1].min() + pad
    big_w = int(np.ceil(rel[:, 0].max() + cx_b + pad))
    big_h = int(np.ceil(rel[:, 1].max() + cy_b + pad))
    canvas = _background(rng, big_w, big_h)
    k_big = np.array([[focal, 0.0, cx_b], [0.0, focal, cy_b], [0.0, 0.0, 1.0]])
    hom = k_out @ rot @ np.linalg.inv(k_big)
    back = np.linalg.inv(hom)

    def to_board(p: tuple[float, float]) -> tuple[float, float]:
        q = back @ np.array([p[0], p[1], 1.0])
        return float(q[0] / q[2]), float(q[1] / q[2])

    scale = min(width, height) / 480.0
    low, high = die_px if die_px is not None else (38 * scale, 80 * scale)
    size = float(rng.uniform(low, high))
    el = math.radians(rng.uniform(40, 80))
    az = rng.uniform(0, 2 * math.pi)
    light = (math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el))
    tint = rng.choice([(255, 255, 255), (255, 236, 205), (228, 236, 255), (255, 245, 230)])
    body = rng.choice([(238, 234, 222), (246, 244, 238), (232, 222, 196), (226, 226, 220)])
    pip = rng.choice([(22, 20, 18), (30, 30, 34), (40, 14, 14), (16, 24, 60)])
    count = int(rng.choice([1, 2, 2, 2, 2, 3]))
    # Places in the frame, apart from each other (one may be pushed to the edge).
    places: list[tuple[float, float]] = []
    margin = size * 1.1
    for _ in range(200):
        if len(places) == count:
            break
        p = (float(rng.uniform(margin, width - margin)),
             float(rng.uniform(margin, height - margin)))
        if all(math.hypot(p[0] - q[0], p[1] - q[1]) > 1.9 * size for q in places):
            places.append(p)
    bad = int(rng.integers(len(places))) if allow_bad and rng.random() < 0.12 else -1
    out_of_view = bad >= 0 and rng.random() < 0.3
    board_places = [to_board(p) for p in places]
    # Dames around, never under a die.
    for _ in range(int(rng.integers(0, 4))):
        d = to_board((float(rng.uniform(0, width)), float(rng.uniform(0, height))))
        r = size * float(rng.uniform(0.7, 0.95))
        if all(math.hypot(d[0] - q[0], d[1] - q[1]) > r + 1.2 * size for q in board_places):
            _dame(canvas, rng, d, r)
    truths = []
    for k, place in enumerate(places):
        cocked = 0.0
        if k == bad and out_of_view:
            side = int(rng.integers(4))
            place = ((0.0, place[1]), (width - 1.0, place[1]), (place[0], 0.0),
                     (place[0], height - 1.0))[side]
        elif k == bad:
            cocked = float(rng.uniform(22, 40))
        at = to_board(place)
        truth = render_die(
            canvas, value=int(rng.integers(1, 7)), center=at,
            size=size * float(rng.uniform(0.96, 1.04)), rotation=float(rng.uniform(0, 90)),
            cocked=cocked, cock_direction=float(rng.uniform(0, 360)),
            lean=((at[0] - cx_b) / focal, (at[1] - cy_b) / focal),
            body_rgb=tuple(int(x) for x in body),  # type: ignore[arg-type]
            pip_rgb=tuple(int(x) for x in pip),  # type: ignore[arg-type]
            light_rgb=tuple(int(x) for x in tint),  # type: ignore[arg-type]
            light_direction=light, ambient=float(rng.uniform(0.45, 0.7)),
            shadow=float(rng.uniform(0.2, 0.6)),
            pip_radius=float(rng.uniform(0.08, 0.1)), pip_spacing=float(rng.uniform(0.24, 0.28)))
        truths.append(_move_truth(truth, hom, width, height))
    frame = cv2.warpPerspective(canvas, hom, (width, height), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REFLECT)
    # Exposure, blur, noise.
    img = frame.astype(np.float32) * float(rng.uniform(0.75, 1.1))
    sigma = float(rng.uniform(0.0, 1.0)) * scale
    if sigma > 0.3:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), sigma), dtype=np.float32)
    img = img + rng.normal(0, rng.uniform(0.5, 5.0), size=img.shape).astype(np.float32)
    normal = (float(rot[0, 2]), float(rot[1, 2]), float(rot[2, 2]))
    return np.asarray(np.clip(img + 0.5, 0, 255), dtype=np.uint8), truths, normal


def render_jpeg(seed: int, *, width: int = 640, height: int = 480
                ) -> tuple[bytes, list[DieTruth], tuple[float, float, float], int]:
    """One frame of a rendered set as :func:`write_set` writes it: the JPEG's bytes, the
    dice' truth, the board's normal and the JPEG quality drawn for it.

    Args:
        seed: the frame's seed.
        width: frame width.
        height: frame height.

    Returns:
        (JPEG bytes, truths, board normal, quality).

    Raises:
        OSError: if the frame cannot be encoded.
    """
    rng = np.random.default_rng(seed)
    image, truths, normal = render_scene_with_camera(rng, width=width, height=height)
    quality = int(rng.integers(70, 93))
    ok, data = cv2.imencode(".jpg", image[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError(f"cannot encode the frame of seed {seed}")
    return data.tobytes(), truths, normal, quality


def write_set(out: Path, first_seed: int, count: int, *, width: int = 640,
              height: int = 480) -> Path:
    """Render ``count`` frames (seeds ``first_seed`` ..) as JPEGs plus one ``truth.json``.

    Args:
        out: the folder to write (created).
        first_seed: seed of the first frame.
        count: number of frames.
        width: frame width.
        height: frame height.

    Returns:
        The path of ``truth.json``.

    Raises:
        OSError: if the folder cannot be written.
    """
    out.mkdir(parents=True, exist_ok=True)
    frames = []
    for i in range(count):
        seed = first_seed + i
        name = f"frame_{seed:05d}.jpg"
        data, truths, normal, quality = render_jpeg(seed, width=width, height=height)
        (out / name).write_bytes(data)
        frames.append({"image": name, "seed": seed, "jpeg_quality": quality,
                       "board_normal": [round(v, 6) for v in normal],
                       "dice": [t.to_json() for t in truths]})
    path = out / "truth.json"
    path.write_text(json.dumps({"generator": "python -m tablier.vision.render_dice",
                                "width": width, "height": height, "frames": frames},
                               indent=1) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the rendered dice sets (or a sample of single dice).

    Args:
        argv: command-line arguments without the program name.

    Returns:
        0.

    Raises:
        SystemExit: on bad arguments (argparse).
    """
    parser = argparse.ArgumentParser(
        prog="python -m tablier.vision.render_dice",
        description="Write the rendered dice sets: fixtures/dice/rendered/{tune,measure}.")
    parser.add_argument("out", type=Path, help="folder to write the sets into")
    parser.add_argument("--set", choices=sorted(SETS), action="append",
                        help="which set(s) to write (default: all)")
    parser.add_argument("--seeds", metavar="FIRST:COUNT",
                        help="write COUNT frames from seed FIRST into OUT itself instead, e.g. "
                             "10000:1000 (the larger tuning set); never a measuring seed")
    args = parser.parse_args(argv)
    if args.seeds:
        try:
            first, count = (int(v) for v in args.seeds.split(":"))
        except ValueError:
            parser.error(f"--seeds must be FIRST:COUNT, got {args.seeds!r}")
        lo, n = SETS["measure"]
        if count < 1 or first < lo + n and first + count > lo:
            parser.error(f"--seeds {args.seeds}: count must be positive and the seeds must "
                         f"not overlap the measuring set ({lo}..{lo + n - 1})")
        print(f"wrote {write_set(args.out, first, count, width=480, height=360)}")
        return 0
    for name in args.set or sorted(SETS):
        first, count = SETS[name]
        path = write_set(args.out / name, first, count, width=480, height=360)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
