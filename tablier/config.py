"""The companion's settings: which camera, calibration, markers and journal folder to use.

Read from a TOML file (``tablier.toml`` in the working directory, or the file named by
``--config`` or the ``TABLIER_CONFIG`` environment variable, read when :func:`load_config` is
called, never at import). Every key is optional::

    camera = "picamera"              # or "cam:0", "cam:0@1280x960", "cam:/dev/video0",
                                     # "file:recorded/frames"
    calibration = "calibration.json"
    markers = ["gpio:", "serial:///dev/tablier-pegs"]
    journal_dir = "tablier-journal"
    still_frames = 1
    white = "Anne"
    black = "Bruno"
    place = "Lyon"

>>> Config().still_frames
1
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """The configuration file is unreadable or holds a bad value."""


@dataclass(frozen=True)
class Config:
    """Settings for ``tablier watch`` and ``tablier replay``."""

    camera: str = ""
    """The frame source; empty means the Pi camera if present, else the first USB webcam."""
    calibration: str = "calibration.json"
    """The calibration file written by ``tablier calibrate``."""
    markers: tuple[str, ...] = ("console:",)
    """Marker display URLs (``console:``, ``gpio:``, ``serial:///dev/...``, ``pegsim://``)."""
    journal_dir: str = "tablier-journal"
    """Where match journals go."""
    still_frames: int = 1
    """Still readings in a row that make a still board (the recogniser already compares
    each frame with the one before, so one is enough)."""
    white: str = "White"
    """White's player."""
    black: str = "Black"
    """Black's player."""
    place: str = ""
    """Where the match is played."""
    rules: Mapping[str, Any] = field(default_factory=dict)
    """Agreed rule options (see :func:`tablier.session.rule_options`)."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, origin: str = "config") -> Config:
        """Build settings from parsed TOML or JSON.

        Args:
            data: the keys and values.
            origin: the file, for messages.

        Returns:
            The settings.

        Raises:
            ConfigError: for an unknown key or a value of the wrong type.

        >>> Config.from_mapping({"markers": "gpio:"}).markers
        ('gpio:',)
        >>> Config.from_mapping({"colour": "red"})
        Traceback (most recent call last):
        ...
        tablier.config.ConfigError: config: unknown key 'colour'
        """
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise ConfigError(f"{origin}: unknown key {key!r}")
            if key == "markers":
                value = (value,) if isinstance(value, str) else value
                if not (isinstance(value, (list, tuple)) and all(isinstance(v, str)
                                                                 for v in value)):
                    raise ConfigError(f"{origin}: markers must be URLs, not {value!r}")
                value = tuple(value)
            elif key == "still_frames":
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ConfigError(f"{origin}: still_frames must be 1 or more, not {value!r}")
            elif key == "rules":
                if not isinstance(value, Mapping):
                    raise ConfigError(f"{origin}: rules must be a table, not {value!r}")
                value = dict(value)
            elif not isinstance(value, str):
                raise ConfigError(f"{origin}: {key} must be text, not {value!r}")
            values[key] = value
        return cls(**values)


def load_config(path: str | Path | None = None) -> Config:
    """Read the settings.

    Args:
        path: the file; None reads ``TABLIER_CONFIG`` or ``./tablier.toml`` when they exist,
            else returns the defaults.

    Returns:
        The settings.

    Raises:
        ConfigError: if the file named does not exist, cannot be parsed or holds bad values.
    """
    if path is None:
        env = os.environ.get("TABLIER_CONFIG")
        if env:
            path = env
        elif Path("tablier.toml").is_file():
            path = "tablier.toml"
        else:
            return Config()
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration {p}: {exc.strerror}") from None
    if p.suffix == ".json":
        import json

        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"{p}: not JSON ({exc})") from None
    else:
        try:
            import tomllib
        except ImportError:  # Python 3.10
            raise ConfigError(f"{p}: TOML needs Python 3.11; use a .json file") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{p}: not TOML ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: not a table of settings")
    return Config.from_mapping(data, origin=str(p))


__all__ = ["Config", "ConfigError", "load_config"]
