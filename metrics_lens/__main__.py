"""``python -m metrics_lens``: the ``metrics-lens`` command."""

from metrics_lens.cli import main

raise SystemExit(main())
