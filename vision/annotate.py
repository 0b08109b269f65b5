"""Draw an observation onto its frame (what ``tablier see`` writes beside its JSON)."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
from tablier.engine import Color
from tablier.vision.board import BoardQuad, project
from tablier.vision.recognizer import Observation, Recognizer

Image = npt.NDArray[np.uint8]


def annotate(recognizer: Recognizer, frame: Image, obs: Observation) -> Image:
    """Draw the board outline, each field's reading, the dice and the flags; on an occluded
    frame, the probes the occlusion test found unlike anything known there.

    Args:
        recognizer: the recogniser that made ``obs``.
        frame: the frame, HxWx3 uint8 RGB.
        obs: its observation.

    Returns:
        An annotated copy, HxWx3 uint8 RGB.

    Raises:
        Nothing.
    """
    out = frame.copy()
    cfg = recognizer.config
    g = cfg.calibration.geometry
    quad = BoardQuad(homography=obs.homography, quad=obs.quad, markers=obs.markers,
                     source=obs.board_source)
    pts = np.round(np.array(obs.quad)).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(out, [pts], True, (255, 255, 0), 2, cv2.LINE_AA)
    scale = max(0.4, frame.shape[1] / 1600)
    for r in obs.fields:
        x, yb, d = g.field_axis(r.field)
        p = project(cfg, quad, [[x, yb + d * (g.field_length + 8)]])[0]
        if r.color is None:
            text, color = "-", (160, 160, 160)
        else:
            text = f"{'W' if r.color is Color.WHITE else 'B'}{r.visible}"
            color = (255, 255, 255) if r.color is Color.WHITE else (40, 40, 40)
        if r.confidence < 0.25:
            color = (255, 60, 60)
        org = (int(p[0]) - int(10 * scale), int(p[1]) + int(5 * scale))
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, (0, 0, 0),
                    int(3 * scale) + 1, cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, color,
                    max(1, int(scale)), cv2.LINE_AA)
    for die in obs.dice:
        c = (int(die.center[0]), int(die.center[1]))
        half = int(die.size * 0.7)
        ok = die.value is not None
        col = (0, 220, 0) if ok else (255, 60, 60)
        cv2.rectangle(out, (c[0] - half, c[1] - half), (c[0] + half, c[1] + half), col, 2)
        label = str(die.value) if ok else str(die.reason)
        cv2.putText(out, label, (c[0] + half + 3, c[1]), cv2.FONT_HERSHEY_SIMPLEX,
                    0.6 * scale, col, max(1, int(2 * scale)), cv2.LINE_AA)
    if obs.occluded and obs.occlusion.odd_mm:
        # NOTE: what the occlusion test saw: each probe unlike anything known there
        for x, y in np.round(project(cfg, quad, list(obs.occlusion.odd_mm))).astype(int):
            cv2.circle(out, (int(x), int(y)), max(3, int(4 * scale)), (255, 0, 255),
                       max(1, int(2 * scale)), cv2.LINE_AA)
    banner = "OCCLUDED" if obs.occluded else ("MOVING" if obs.moving else "still")
    text = f"{banner}  flags: {', '.join(obs.flags) or '-'}"
    cv2.putText(out, text, (10, int(24 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale,
                (0, 0, 0), int(4 * scale) + 1, cv2.LINE_AA)
    cv2.putText(out, text, (10, int(24 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale,
                (255, 255, 0), max(1, int(scale)), cv2.LINE_AA)
    return out
