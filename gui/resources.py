"""Icons and the style sheet, found through the engine's one resource helper."""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QIcon

from engine import resource_path


@cache
def icon(name: str) -> QIcon:
    return QIcon(str(resource_path("icons", f"{name}.svg")))


def style_sheet() -> str:
    return resource_path("styles", "app.qss").read_text(encoding="utf-8")
