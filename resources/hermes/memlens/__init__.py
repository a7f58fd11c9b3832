"""MemLens as a Hermes Agent memory provider (installed by ``memlens hermes install``).

The behaviour lives in the memlens package (``engine/faces/hermes.py``); this file only joins it to
Hermes's ``MemoryProvider`` base class and registers it. ``memlens.json`` beside this file names the
memory file and, when Hermes runs in another Python environment than MemLens, the folder holding
MemLens's packages (added at the end of ``sys.path``, so Hermes's own packages come first).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent.memory_provider import MemoryProvider

_FOLDER = Path(__file__).resolve().parent


def _settings() -> dict:
    try:
        value = json.loads((_FOLDER / "memlens.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


try:
    from engine.faces.hermes import HermesMemory
except ImportError:
    _packages = _settings().get("packages")
    if not _packages:
        raise
    sys.path.append(str(_packages))
    from engine.faces.hermes import HermesMemory


class MemLensMemoryProvider(HermesMemory, MemoryProvider):
    """MemLens's provider: ``HermesMemory`` first, so its hooks replace the base class's defaults."""


def register(ctx) -> None:
    ctx.register_memory_provider(MemLensMemoryProvider(_settings()))
