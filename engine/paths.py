"""Where things live by default: the memory file (``$MEMLENS_DB``, else the platform's
user data folder) and its config (``memlens.toml`` beside it, else the user config folder)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from engine.errors import MemLensError


def default_memory_path() -> Path:
    env = os.environ.get("MEMLENS_DB")
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir("memlens")) / "memory.sqlite"


def config_path_for(memory_path: Path, explicit: Path | None = None) -> Path | None:
    """The config that applies to ``memory_path``; an explicit path must exist."""
    if explicit is not None:
        if not explicit.is_file():
            raise MemLensError(f"no config file at {explicit}")
        return explicit
    for candidate in (memory_path.parent / "memlens.toml",
                      Path(platformdirs.user_config_dir("memlens")) / "memlens.toml"):
        if candidate.is_file():
            return candidate
    return None
