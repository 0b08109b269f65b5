"""Where to look in the rectified board image: slots, jeton spots, holes, rail samples.

The rectified image shows the whole board (rails included) straight from above at ``scale``
pixels per millimetre, so every place of :class:`~tablier.calibration.geometry.BoardGeometry`
is a fixed pixel. A :class:`SampleLayout` precomputes, for each kind of place, the flat pixel
indices of a small disc around it, so reading a frame is a few numpy gathers.

>>> layout = SampleLayout.build(BoardGeometry(), 0.8)
>>> layout.shape
(448, 480)
>>> layout.slots.centers.shape
(120, 2)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from tablier.calibration.geometry import JETON_REST, JETON_SPOTS, BoardGeometry
from tablier.engine import Color

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]


@dataclass(frozen=True, eq=False)
class Probes:
    """A set of equal discs in the rectified image; one row of ``index`` per disc."""

    centers: FloatArray
    """Nx2 disc centres in rectified pixels."""
    mm: FloatArray
    """Nx2 disc centres in board millimetres."""
    index: IntArray
    """NxP flat pixel indices (row-major, into an image of the layout's shape)."""
    offsets: FloatArray
    """Px2 pixel offsets of the disc (x, y), shared by every row."""

    @classmethod
    def build(cls, centers_mm: npt.ArrayLike, radius_mm: float, scale: float,
              shape: tuple[int, int], *, inner_mm: float = 0.0) -> Probes:
        """Build discs of ``radius_mm`` around ``centers_mm``.

        Args:
            centers_mm: Nx2 centres, board millimetres.
            radius_mm: disc radius, millimetres.
            scale: rectified pixels per millimetre.
            shape: rectified image (height, width).
            inner_mm: radius of a hole in the middle (a ring), millimetres.

        Returns:
            The probes.

        Raises:
            ValueError: if the disc is smaller than one pixel.
        """
        r = radius_mm * scale
        if r < 0.7:
            raise ValueError(f"probe radius {radius_mm!r} mm is below one pixel at scale {scale}")
        ri = int(np.ceil(r))
        yy, xx = np.mgrid[-ri:ri + 1, -ri:ri + 1]
        keep = (xx**2 + yy**2 <= r * r) & (xx**2 + yy**2 >= (inner_mm * scale) ** 2)
        offsets = np.stack([xx[keep], yy[keep]], axis=1).astype(np.float64)
        mm = np.asarray(centers_mm, np.float64).reshape(-1, 2)
        centers = mm * scale
        px = np.round(centers[:, None, :] + offsets[None, :, :]).astype(np.intp)
        h, w = shape
        px[..., 0] = np.clip(px[..., 0], 0, w - 1)
        px[..., 1] = np.clip(px[..., 1], 0, h - 1)
        index = px[..., 1] * w + px[..., 0]
        return cls(centers=centers, mm=mm, index=index, offsets=offsets)

    def subset(self, rows: npt.ArrayLike) -> Probes:
        """The discs ``rows`` only, in that order.

        >>> p = Probes.build([(1, 1), (5, 1), (9, 1)], 1.0, 2.0, (8, 24))
        >>> q = p.subset([2, 0])
        >>> q.mm.tolist(), bool((q.index == p.index[[2, 0]]).all())
        ([[9.0, 1.0], [1.0, 1.0]], True)
        """
        r = np.asarray(rows, np.intp).reshape(-1)
        return Probes(centers=self.centers[r], mm=self.mm[r], index=self.index[r],
                      offsets=self.offsets)

    def means(self, flat: npt.NDArray[np.float32] | Image) -> npt.NDArray[np.float32]:
        """Mean colour of every disc.

        Args:
            flat: the rectified image reshaped to (H*W)x3.

        Returns:
            Nx3 float32 means.

        Raises:
            Nothing.
        """
        return np.asarray(flat[self.index].mean(axis=1, dtype=np.float32), np.float32)

    def masked_means(self, flat: npt.NDArray[np.float32] | Image, keep: npt.NDArray[np.bool_]
                     ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Mean colour of the kept pixels of every disc, and the kept share.

        Args:
            flat: the rectified image reshaped to (H*W)x3.
            keep: NxP booleans, the pixels to use.

        Returns:
            Nx3 means (the full mean where nothing is kept) and the N kept fractions.

        Raises:
            Nothing.
        """
        vals = flat[self.index].astype(np.float32)
        k = keep.astype(np.float32)
        n = k.sum(axis=1)
        # NOTE: einsum leaves out the NxPx3 product. For a uint8 image (the callers') the sums
        # stay below 2**24 and so are exact in float32 in any order: the means are unchanged.
        sums = np.einsum("npc,np->nc", vals, k)
        full = vals.mean(axis=1)
        means = np.where(n[:, None] > 0, sums / np.maximum(n, 1)[:, None], full)
        return means.astype(np.float32), (n / k.shape[1]).astype(np.float32)

    def near(self, points: npt.ArrayLike, radius: float) -> npt.NDArray[np.bool_]:
        """Which disc pixels lie within ``radius`` pixels of any of ``points``.

        Args:
            points: Mx2 rectified pixels.
            radius: pixels.

        Returns:
            NxP booleans.

        Raises:
            Nothing.
        """
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        out = np.zeros(self.index.shape, bool)
        for p in pts:
            d = self.centers - p
            close = np.nonzero((np.abs(d) < radius + np.abs(self.offsets).max() + 1).all(axis=1))[0]
            for i in close:
                q = self.centers[i] + self.offsets - p
                out[i] |= (q**2).sum(axis=1) <= radius * radius
        return out


@dataclass(frozen=True, eq=False)
class SampleLayout:
    """Every probe of the rectified board, for one geometry and scale."""

    geometry: BoardGeometry
    """The board."""
    scale: float
    """Rectified pixels per millimetre."""
    shape: tuple[int, int]
    """Rectified image (height, width)."""
    slots: Probes
    """One disc per dame slot: field f (White's numbering) slot k is row ``(f-1)*slots + k``."""
    rings: Probes
    """A ring around each dame slot (read when a die hides the slot's middle)."""
    jetons: Probes
    """One disc per jeton place, in the order of ``jeton_keys``."""
    jeton_keys: tuple[tuple[str, int, int], ...]
    """(``"rest"``, 0, i) or (colour value, spot, index) for each jeton place."""
    holes: Probes
    """One disc per rail hole, in the order of ``hole_keys``."""
    hole_keys: tuple[tuple[str, int], ...]
    """(colour value, hole 0..12) or (``"pavillon"``, 0) for each hole."""
    flags: Probes
    """Where the pavillon's flag shows beside each hole of ``hole_keys``."""
    rail: Probes
    """Small discs along the rails away from holes and markers (for light and occlusion)."""
    surface: Probes
    """Small discs over the playing surface on a grid (for occlusion), row by row."""
    surface_grid: tuple[int, int]
    """Rows and columns of the surface grid."""

    @classmethod
    def build(cls, geometry: BoardGeometry, scale: float) -> SampleLayout:
        """Compute every probe.

        Args:
            geometry: the board.
            scale: rectified pixels per millimetre (0.3 .. 4).

        Returns:
            The layout.

        Raises:
            ValueError: if ``scale`` is out of range.
        """
        if not 0.3 <= scale <= 4.0:
            raise ValueError(f"rectified scale must be 0.3..4 px/mm, not {scale!r}")
        g = geometry
        w, h = g.size
        shape = (round(h * scale), round(w * scale))
        slot_mm = [c for f in range(1, 25) for c in g.slot_centers(f)]
        slots = Probes.build(slot_mm, 0.3 * g.checker_diameter, scale, shape)
        rings = Probes.build(slot_mm, 0.44 * g.checker_diameter, scale, shape,
                             inner_mm=0.3 * g.checker_diameter)
        jkeys: list[tuple[str, int, int]] = [("rest", JETON_REST, i) for i in range(3)]
        jmm = [g.jeton_center(Color.WHITE, JETON_REST, i) for i in range(3)]
        for color in (Color.WHITE, Color.BLACK):
            for spot in JETON_SPOTS:
                for i in (0, 1):
                    jkeys.append((color.value, spot, i))
                    jmm.append(g.jeton_center(color, spot, i))
        jetons = Probes.build(jmm, 0.3 * g.jeton_diameter, scale, shape)
        hkeys: list[tuple[str, int]] = []
        hmm: list[tuple[float, float]] = []
        fmm: list[tuple[float, float]] = []
        for color in (Color.WHITE, Color.BLACK):
            for k in range(13):
                hkeys.append((color.value, k))
                c = g.hole_center(color, k)
                hmm.append(c)
                fmm.append((c[0] + 14.0, c[1]) if k else (c[0], c[1] + 14.0))
        hkeys.append(("pavillon", 0))
        c = g.pavillon_hole()
        hmm.append(c)
        fmm.append((c[0], c[1] + 14.0))
        radius = max(0.35 * g.hole_diameter, 0.8 / scale)
        holes = Probes.build(hmm, radius, scale, shape)
        flags = Probes.build(fmm, max(3.0, 0.8 / scale), scale, shape)
        all_holes = hmm + [g.pavillon_hole(), *g.spare_holes()]
        rail_mm: list[tuple[float, float]] = []
        step = 9.0
        for y in (g.rail * 0.3, g.rail * 0.5, g.rail * 0.7):
            for yy in (y, h - y):
                for x in np.arange(g.rail + 4.0, w - g.rail - 3.0, step):
                    rail_mm.append((float(x), yy))
        for x in (g.rail * 0.3, g.rail * 0.5, g.rail * 0.7):
            for xx in (x, w - x):
                for y in np.arange(g.rail + 4.0, h - g.rail - 3.0, step):
                    rail_mm.append((xx, float(y)))
        rail_mm = [p for p in rail_mm
                   if min(np.hypot(p[0] - q[0], p[1] - q[1]) for q in all_holes) > 11.0]
        rail = Probes.build(rail_mm, max(2.5, 0.8 / scale), scale, shape)
        x0, y0, x1, y1 = g.surface
        # NOTE: columns every half field, so a talon column's twin (field 3's) is 4 columns on.
        xs = np.arange(x0 + g.field_width / 4, x1 - 5, g.field_width / 2)
        ys = np.arange(y0 + 10, y1 - 5, 20.0)
        surf_mm = [(float(x), float(y)) for y in ys for x in xs]
        surface = Probes.build(surf_mm, max(2.5, 0.8 / scale), scale, shape)
        return cls(geometry=g, scale=scale, shape=shape, slots=slots, rings=rings, jetons=jetons,
                   jeton_keys=tuple(jkeys), holes=holes, hole_keys=tuple(hkeys), flags=flags,
                   rail=rail, surface=surface,
                   surface_grid=(len(ys), len(xs)))

    def to_pixels(self, mm: npt.ArrayLike) -> FloatArray:
        """Board millimetres to rectified pixels."""
        return np.asarray(mm, np.float64) * self.scale
