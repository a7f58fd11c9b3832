"""Moving memories in and out: export, restore of a MemLens export, and other tools' files."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any, Callable

from engine.agents import profile as profile_files
from engine.agents.service import AgentFiles
from engine.errors import Conflict, InvalidInput, StoreError
from engine.io import importers, transfer
from engine.io.jsonl import open_input, read_records
from engine.plans.service import PlanService, Progress
from engine.search.index_sync import IndexSync
from engine.store.context import Context
from engine.store.plans import Plan


class Transfers:
    def __init__(self, ctx: Context, index: IndexSync, plans: PlanService, agent_files: AgentFiles) -> None:
        self._ctx, self._index, self._plans, self._agent_files = ctx, index, plans, agent_files
        plans.writers["import"] = transfer.restore

    def export(self, stream: IO[str]) -> int:
        with self._ctx.store.guard():
            return transfer.write_export(stream, self._ctx.store.db, self._ctx.clock())

    def import_file(self, path: Path, *, dry_run: bool = False, defaults: dict[str, Any] | None = None,
                    progress: Progress | None = None) -> Plan:
        with open_input(Path(path)) as stream:
            entries = list(read_records(stream))
        if not entries or not transfer.is_export_header(entries[0][1].value):
            return self._plans.absorb([raw for _, raw in entries], dry_run=dry_run, defaults=defaults,
                                      progress=progress)
        records = [(k, raw.value, raw.error) for k, (_, raw) in enumerate(entries[1:])]
        ctx = self._ctx
        with ctx.store.guard():
            items = transfer.plan_restore(ctx.store.db, records, ctx.settings.memory)
            if ctx.read_only:
                raise StoreError(f"{ctx.path} is read-only: nothing was written")
            plan = self._plans.store_draft("import", items)
            if not dry_run:
                self._index.ready()
                self._plans.apply_loaded(plan, None, {})
            return plan

    def import_from(self, fmt: str, path: Path | str, *, dry_run: bool = False,
                    defaults: dict[str, Any] | None = None, progress: Callable[[int, int], None] | None = None,
                    as_profile: bool = False) -> Plan:
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
        plan = self._plans.absorb(batch.items, dry_run=dry_run, defaults=defaults, progress=progress)
        if not dry_run:
            for name, (text, version) in texts.items():
                self._agent_files.save(name, text, version)
        return plan

    def _profile_to_save(self, batch: importers.Batch, path: Path) -> dict[str, tuple[str, str]]:
        """name -> (text, version to replace), refused before anything is written when it cannot be saved."""
        if not batch.profile:
            raise InvalidInput(f"{path} has no MEMORY.md or USER.md to use as the profile")
        current = self._agent_files.profile()
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
