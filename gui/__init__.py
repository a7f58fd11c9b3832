"""MemLens desktop app (PySide6). Not built yet: see the desktop-app issues."""
