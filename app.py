"""Metrics Lens: see how classification and ranking metrics behave on your scores.

Start with ``make run``. The frame (page config, sidebar, navigation) lives in ``ui.frame.shell``.
"""

from ui.frame import shell

shell.run_app()
