"""The facade's importers from other memory tools (a mixin of ``Memory``).

Everything foreign goes through absorb, never straight into the file: duplicates of what
is already stored are reinforced, contradictions are flagged, secrets are rejected, and a
dry run leaves a draft plan the user reviews before anything is written. The profile
option (Hermes files as our MEMORY.md / USER.md) is checked in full before the absorb, so a
refusal leaves nothing half-imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from engine.io import importers
from engine.agents import profile as profile_files
from engine.errors import Conflict, InvalidInput
from engine.store.plans import Plan

if TYPE_CHECKING:
    from engine.memory import Memory


class ImportMethods:
    """``import_from``."""

    def import_from(self: "Memory", fmt: str, path: Path | str, *, dry_run: bool = False,
                    defaults: dict[str, Any] | None = None, progress: Callable[[int, int], None] | None = None,
                    as_profile: bool = False) -> Plan:
        """Bring in a file (or folder) written by another memory tool, as an absorb plan.

        ``fmt`` is one of ``IMPORT_FORMATS``: ``jsonl`` (``import_file``: a MemLens export is
        restored exactly), ``hermes``, ``mem0`` or ``markdown``. One bad entry is one rejected
        plan item and the rest go on; a missing file or one that is not the format at all
        raises ``InvalidInput``. Original times become ``created_at`` and original ids
        ``source``. ``as_profile`` (hermes only) also saves the files as this memory's
        MEMORY.md / USER.md, unless ``dry_run``; it never overwrites a profile file holding
        other text (``Conflict``).
        """
        fmt = importers.check_format(fmt)
        path = Path(path)
        if as_profile and fmt != "hermes":
            raise InvalidInput("only Hermes files can become the profile (as_profile needs format hermes)")
        if fmt == "jsonl":
            return self.import_file(path, dry_run=dry_run, defaults=defaults, progress=progress)
        batch = importers.read(fmt, path)
        texts = self._profile_to_save(batch, path) if as_profile else {}
        if not batch.items:
            raise InvalidInput(f"{path} holds no entries to import")
        plan = self.absorb(batch.items, dry_run=dry_run, defaults=defaults, progress=progress)
        if not dry_run:
            for name, (text, version) in texts.items():
                self.save_profile(name, text, version)
        return plan

    def _profile_to_save(self: "Memory", batch: importers.Batch, path: Path) -> dict[str, tuple[str, str]]:
        """name -> (text, version to replace), refused before anything is written when it cannot be saved."""
        if not batch.profile:
            raise InvalidInput(f"{path} has no MEMORY.md or USER.md to use as the profile")
        current = self.profile()
        texts = {}
        for name, text in batch.profile.items():
            if text is None:
                raise InvalidInput(f"{name} is not valid UTF-8, so it cannot become the profile; nothing was imported")
            profile_files.check_text(name, text)  # a secret or control character: refused now, not after the absorb
            mine = current.file(name)
            if mine.problem is None and mine.text == text:
                continue
            if mine.problem is not None or mine.text.strip():
                raise Conflict(f"this memory's {name} already holds other text ({mine.path}); importing would "
                               f"replace it, so nothing was imported: merge the files by hand, or import "
                               f"without the profile option")
            texts[name] = (text, mine.version)
        return texts
