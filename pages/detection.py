"""Detection: COCO's 12 numbers on the user's boxes, AP per category, PR curves and every
library's convention side by side."""

from __future__ import annotations

from ui.frame import shell
from ui.views import detection_view

shell.page_context(require_usable=False)
detection_view.render()
