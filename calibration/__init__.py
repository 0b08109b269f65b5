"""Camera and board calibration: markers, board geometry, colour profiles.

:class:`Calibration` is the versioned JSON file (``Calibration.load`` checks it);
:func:`calibrate_frame` makes one from a reference frame of a match's start and
:func:`draw_overlay` shows what it found.
"""

from tablier.calibration.calibration import (
    VERSION,
    Calibration,
    CalibrationError,
    ColourProfile,
    Lens,
    Thresholds,
)
from tablier.calibration.geometry import BoardGeometry, white_field

__all__ = ["VERSION", "BoardGeometry", "Calibration", "CalibrationError", "ColourProfile",
           "Lens", "Thresholds", "calibrate_frame", "draw_overlay", "white_field"]


def __getattr__(name: str) -> object:
    # NOTE: the calibration flow uses the vision stages, which use this package: imported on
    # first use to keep the import order simple.
    if name in ("calibrate_frame", "draw_overlay"):
        from tablier.calibration import flow
        return getattr(flow, name)
    raise AttributeError(f"module 'tablier.calibration' has no attribute {name!r}")
