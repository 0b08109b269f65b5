"""``python -m tablier`` runs the same command line as ``tablier``."""

from tablier.cli import main

raise SystemExit(main())
