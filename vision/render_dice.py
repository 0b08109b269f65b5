"""Draw realistic dice onto an image and say exactly what was drawn.

The one public drawing function, kept stable because the board renderer calls it::

    render_die(canvas, *, value, center, size, rotation=0.0, cocked=0.0, cock_direction=0.0,
               elevation=0.0, view_tilt=0.0, view_direction=90.0, body_rgb=(236, 232, 218),
               pip_rgb=(24, 22, 20), light_rgb=(255, 255, 255),
               light_direction=(-0.35, -0.45, 0.82), ambient=0.55, shadow=0.45,
               pip_radius=0.09, pip_spacing=0.27, corner_radius=0.14,
               cocked_limit=12.0) -> DieTruth

``canvas`` is an HxWx3 uint8 RGB array, changed in place. The die is a cube with rounded edges
and corners, seen by an orthographic camera tilted ``view_tilt`` degrees from the vertical, with
its shadow cast on the ground along the light. Coordinates are image pixels: x to the right, y
down; "up" is toward the camera. Side faces show when the view is oblique or the die is cocked,
and they carry their own pips (opposite faces sum to 7), so a reader must find the top face.

:class:`DieTruth` gives the ground truth a reader is scored against: the value of the upward
face (or ``None`` with a ``reason`` when the throw is bad: ``"cocked"``, ``"on_die"``,
``"out_of_view"``), the image position of the upward face's centre, the size, the projected
outline of the top face and of the whole die.

Run as a module to write a rendered dice set with its truth::

    python -m tablier.vision.render_dice OUT_DIR --seed 1 --count 40
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
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

    # Pose: face `value` up, turned, cocked; then the camera's view rotation.
    up = np.array([0.0, 0.0, 1.0])
    pose = _align(np.array(_FACE_NORMALS[value]), up)
    pose = _rotation(up, math.radians(rotation)) @ pose
    if cocked:
        cd = math.radians(cock_direction)
        axis = np.array([-math.sin(cd), math.cos(cd), 0.0])
        pose = _rotation(axis, math.radians(cocked)) @ pose
    vd = math.radians(view_direction)
    view = _rotation(np.array([math.sin(vd), -math.cos(vd), 0.0]), math.radians(view_tilt))

    # Cube corners in the world; the lowest point rests at `elevation`.
    half = size / 2.0
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)],
                     dtype=np.float64)
    corners = (pose @ (signs * half).T).T
    lift = elevation - float(corners[:, 2].min())
    offset = np.array([0.0, 0.0, lift])

    def project(points: NDArray[np.float64]) -> NDArray[np.float64]:
        cam = (view @ points.T).T
        return cam[:, :2] + np.array(center, dtype=np.float64)

    light = np.array(light_direction, dtype=np.float64)
    light = light / (np.linalg.norm(light) or 1.0)
    body = np.array(body_rgb, dtype=np.float64) * np.array(light_rgb, dtype=np.float64) / 255.0

    # Faces: world normal, right vector, visibility, shade.
    faces = []
    for face_value, normal in _FACE_NORMALS.items():
        n_world = pose @ np.array(normal)
        r_world = pose @ np.array(_FACE_RIGHT[face_value])
        d_world = np.cross(n_world, r_world)
        facing = float((view @ n_world)[2])
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

    # Shadow: the body projected onto the ground along the light.
    lz = max(light[2], 0.15)
    ground = body_pts - np.outer(body_pts[:, 2] / lz, light)
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
    reason = _reason(tilt, elevation, size, top_quad, wid, hgt, cocked_limit)
    truth = DieTruth(
        value=None if reason else int(top[0]), top_value=int(top[0]),
        center=(round(truth_center[0], 2), round(truth_center[1], 2)), size=float(size),
        top_face=tuple((round(float(x), 2), round(float(y), 2)) for x, y in top_quad),
        outline=tuple((round(float(x), 2), round(float(y), 2)) for x, y in outline_2d),
        tilt=round(tilt, 2), reason=reason)
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
    pip = _circle()
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
        for px, py in PIP_LAYOUTS[face_value]:
            centre_uv = np.array([px, py], dtype=np.float64) * pip_spacing * size
            ring_uv = centre_uv[None, :] + pip * pip_radius * size
            fill(colour, project(face_to_world(ring_uv)), tuple(float(c) for c in pip_tone))

    # Down-sample and composite: shadow first, then the die.
    small = (x1 - x0, y1 - y0)
    smask = np.asarray(cv2.resize(smask, small, interpolation=cv2.INTER_AREA), dtype=np.float32)
    colour = np.asarray(cv2.resize(colour, small, interpolation=cv2.INTER_AREA), dtype=np.float32)
    alpha = np.asarray(cv2.resize(alpha, small, interpolation=cv2.INTER_AREA), dtype=np.float32)
    sl = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
    region = canvas[cy0:cy1, cx0:cx1].astype(np.float32)
    region *= (1.0 - shadow * np.clip(smask[sl], 0.0, 1.0))[:, :, None]
    a = np.clip(alpha[sl], 0.0, 1.0)[:, :, None]
    region = region * (1.0 - a) + colour[sl] * a
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


def _reason(tilt: float, elevation: float, size: float, quad: NDArray[np.float64],
            width: int, height: int, cocked_limit: float) -> str | None:
    if elevation > 0.25 * size:
        return "on_die"
    if tilt >= cocked_limit:
        return "cocked"
    inside = ((quad[:, 0] >= 0) & (quad[:, 0] <= width - 1)
              & (quad[:, 1] >= 0) & (quad[:, 1] <= height - 1))
    if not bool(inside.all()):
        return "out_of_view"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Write ``count`` single-die sample images with their truth as JSON (a quick look).

    Args:
        argv: command-line arguments without the program name.

    Returns:
        0.

    Raises:
        SystemExit: on bad arguments (argparse).
    """
    parser = argparse.ArgumentParser(prog="python -m tablier.vision.render_dice",
                                     description="Draw sample dice with their truth.")
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=12)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.count):
        canvas = np.full((240, 320, 3), (196, 160, 120), np.uint8)
        truth = render_die(canvas, value=int(rng.integers(1, 7)), center=(160.0, 130.0),
                           size=float(rng.uniform(40, 80)), rotation=float(rng.uniform(0, 90)),
                           view_tilt=float(rng.uniform(0, 35)),
                           cocked=float(rng.choice([0.0, 25.0])))
        cv2.imwrite(str(args.out / f"die_{i:03d}.png"), canvas[:, :, ::-1])
        (args.out / f"die_{i:03d}.json").write_text(json.dumps(truth.to_json()) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
