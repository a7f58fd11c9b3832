"""Render resources/icons/app.svg into the hicolor icon sizes (PNG) with QtSvg, at build time.

``python packaging/render_icons.py OUT_DIR`` writes ``OUT_DIR/hicolor/<N>x<N>/apps/io.memlens.MemLens.png``
for each size and the SVG itself under ``hicolor/scalable/apps/``, the layout of
``share/icons`` that desktop environments look in. Nothing binary is committed.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QRectF, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

APP_ID = "io.memlens.MemLens"
SIZES = (16, 32, 48, 64, 128, 256, 512)
SOURCE = Path(__file__).resolve().parents[1] / "resources" / "icons" / "app.svg"


def render(renderer: QSvgRenderer, size: int, out: Path) -> None:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"render_icons: cannot write {out}")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python packaging/render_icons.py OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        print(f"render_icons: {SOURCE} is not a valid SVG", file=sys.stderr)
        return 1
    for size in SIZES:
        render(renderer, size, out / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png")
    scalable = out / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, scalable)
    print(f"rendered {len(SIZES)} sizes and the scalable icon into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
