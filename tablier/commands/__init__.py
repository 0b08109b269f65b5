"""One module per ``tablier`` subcommand.

Each module defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``.
"""
