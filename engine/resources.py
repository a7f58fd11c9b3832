"""Finding files under the top-level ``resources/`` folder (demo data, icons, styles)."""

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import MemLensError


def resource_path(*parts: str) -> Path:
    """``resources/<parts>``; ``$MEMLENS_RESOURCES`` overrides the folder (used by packaged builds)."""
    root = Path(os.environ.get("MEMLENS_RESOURCES") or Path(__file__).resolve().parents[1] / "resources")
    path = root.joinpath(*parts)
    if not path.exists():
        raise MemLensError(f"resource missing: {path} (is MemLens installed completely?)")
    return path
