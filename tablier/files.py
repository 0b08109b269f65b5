"""Files that must survive a crash or a power cut: written whole, or not at all."""

from __future__ import annotations

import os
from pathlib import Path


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries to the disk (after a file in it was made or renamed).

    Args:
        folder: the folder.

    Raises:
        Nothing: not every platform lets a folder be opened, and that is not an error.
    """
    # NOTE: a new file's directory entry must reach the disk too, or a power cut can lose the
    # whole file.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_durably(path: str | Path, text: str) -> None:
    """Replace a file's text so that a crash or power cut leaves the old text or the new.

    The text goes to ``NAME.tmp`` beside it, is flushed to the disk, then renamed over it.

    Args:
        path: the file.
        text: its new text (UTF-8).

    Raises:
        OSError: naming the file and why, if it cannot be written; the old file is left as it
            was.
    """
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(p)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        failed = OSError(f"cannot write {str(p)!r}: {exc.strerror or exc}")
        failed.errno = exc.errno
        raise failed from None
    fsync_dir(p.parent)
