"""``python -m gui``: the desktop app (what ``make run`` starts)."""

import sys

from gui.app import main

sys.exit(main())
