"""tablier: a companion for the real game of trictrac.

The application (command line, session loop, tracker, journal) lives here; the rules are in
:mod:`tablier.engine`, the camera in :mod:`tablier.vision` and :mod:`tablier.calibration`, and
the marker displays in :mod:`tablier.hardware`.
"""

__version__ = "0.1.0"
