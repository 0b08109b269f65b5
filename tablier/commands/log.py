"""Export a match journal: the record (tag pairs, then a line per throw) and a chart.

The record goes to stdout (or --out); the chart of holes over the match is written as a PNG
with --chart. A journal cut short by a crash is exported up to its last complete event, and
the cut is reported on stderr.

examples:
  tablier log tablier-journal/demo.jsonl
  tablier log match.jsonl --out match.txt --chart match.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "export a match journal as a record and a chart"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the command's arguments.

    Args:
        parser: the subcommand's parser.

    Raises:
        Nothing.
    """
    parser.add_argument("journal", type=Path, help="the match journal (.jsonl)")
    parser.add_argument("--out", type=Path, help="write the record here instead of stdout")
    parser.add_argument("--chart", type=Path, help="write the chart of holes here (PNG)")


def run(args: argparse.Namespace) -> int:
    """Export the journal.

    Args:
        args: the parsed arguments.

    Returns:
        0.

    Raises:
        UsageError: if the journal is missing or corrupt, or an output cannot be written.
    """
    from tablier.cli import UsageError
    from tablier.export import format_record, write_chart
    from tablier.journal import JournalError, read_journal

    try:
        found = read_journal(args.journal)
    except JournalError as exc:
        raise UsageError(str(exc)) from None
    if found.truncated:
        print(f"tablier log: {args.journal}: {found.truncated}", file=sys.stderr)
    if args.chart is not None and args.chart.suffix.lower() != ".png":
        raise UsageError(f"--chart: {str(args.chart)!r} must end in .png")
    record = format_record(found.events)
    try:
        if args.out is not None:
            args.out.write_text(record + "\n", encoding="utf-8")
        else:
            sys.stdout.write(record + "\n")
        if args.chart is not None:
            write_chart(found.events, args.chart)
    except OSError as exc:
        raise UsageError(f"cannot write: {exc}") from None
    return 0
