"""Reading one JSON request for the contract commands (``jans``, ``marks``, ``school``)."""

from __future__ import annotations

import json
import sys
from typing import Any

from tablier.cli import UsageError


def parse_json(text: str, what: str = "request") -> Any:
    """Parse JSON text, or refuse it in one line.

    Args:
        text: the JSON text.
        what: the name of the input in the message (``request``, ``position``, ...).

    Returns:
        The parsed value.

    Raises:
        UsageError: if ``text`` is not JSON; the message names the line and column.

    >>> parse_json('{"dice": [6, 4]}')
    {'dice': [6, 4]}
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{what}: not JSON ({exc.msg}: line {exc.lineno} column "
                         f"{exc.colno})") from None


def read_json(source: str, what: str = "request") -> Any:
    """Read and parse one JSON request from a file, or from stdin when ``source`` is ``-``.

    Args:
        source: a file name, or ``-`` for standard input.
        what: the name of the input in the message.

    Returns:
        The parsed value.

    Raises:
        UsageError: if the file cannot be read, is not UTF-8 text, or is not JSON.
    """
    try:
        if source == "-":
            text = sys.stdin.read()
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        raise UsageError(f"--json: cannot read {source!r} ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{what}: {source!r} is not UTF-8 text") from None
    return parse_json(text, what)
