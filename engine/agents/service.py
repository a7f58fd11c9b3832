"""The agent's side of one open memory: the profile files and the frozen session snapshots."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from engine.agents import profile as profile_files
from engine.agents import snapshot as snapshots
from engine.agents.profile import Profile, ProfileVersion
from engine.agents.snapshot import Snapshot
from engine.errors import Conflict, InvalidInput
from engine.search.hybrid import Hit
from engine.store.context import Context
from engine.store.journal import changes_between, high_water
from engine.store.records import Fact, load_facts

RELEVANT_K = 10
# Search always returns its top k, however weak; a snapshot lists only hits that share a word
# with the query or are close in meaning (the offline model puts unrelated facts near 0.1,
# paraphrases from 0.5 up), so a small memory's unrelated facts are not shown as "relevant".
RELEVANT_MIN_COSINE = 0.3


class AgentFiles:
    """``search(query, top_k)`` finds a snapshot's relevant facts (the facade's search, reranker included)."""

    def __init__(self, ctx: Context, search: Callable[..., list[Hit]]) -> None:
        self._ctx = ctx
        self._search = search

    @property
    def folder(self) -> Path:
        return profile_files.folder_for(self._ctx.path, self._ctx.settings.memory.profile_dir)

    def profile(self) -> Profile:
        folder, settings = self.folder, self._ctx.settings.memory
        profile = profile_files.read_profile(folder, settings.profile_budget)
        shared = profile_files.sharing(self._ctx.path, folder, settings.profile_dir)
        return dataclasses.replace(profile, shared_with=shared) if shared else profile

    def save(self, name: str, text: str, expected_version: str) -> Profile:
        name = profile_files.canonical_name(name)
        text = profile_files.check_text(name, text)
        if not isinstance(expected_version, str) or not expected_version:
            raise InvalidInput("expected_version must be the version string read with the profile")
        folder, ctx = self.folder, self._ctx
        with ctx.store.guard(), ctx.store.transaction() as db:
            current = profile_files.read_file(folder, name)  # read again under the lock
            if current.version != expected_version:
                raise Conflict(f"{name} changed since it was read (on disk or by another program); "
                               f"nothing was written: read it again and redo the edit")
            if current.exists and not current.problem and current.text == text:
                return self.profile()
            mark = high_water(db)
            profile_files.record_save(db, current, text, ctx.clock(), ctx.actor)
            changes = changes_between(db, mark)
            # Last inside the transaction: if the file cannot be written the journal rolls back too.
            profile_files.replace_file(folder / name, text)
        return dataclasses.replace(self.profile(), changes=changes)

    def versions(self, name: str) -> list[ProfileVersion]:
        name = profile_files.canonical_name(name)
        with self._ctx.store.guard():
            return profile_files.saved_versions(self._ctx.store.db, name)

    def snapshot(self, session_id: str, query: str | None = None, max_chars: int | None = None, *,
                 with_profile: bool = True) -> Snapshot:
        ctx = self._ctx
        max_chars = ctx.settings.memory.snapshot_max_chars if max_chars is None else max_chars
        query, max_chars = snapshots.check_request(session_id, query, max_chars)
        with ctx.store.guard():
            found = snapshots.load_frozen(ctx.store.db, session_id)
            if found is not None:
                return found
        # The search outside the store's guard: its second pass takes tenths of a second, in which other
        # threads' reads and writes go on. Frozen meanwhile by another thread or process: that one stands.
        hits = self._relevant(query)
        with ctx.store.guard():
            found = snapshots.load_frozen(ctx.store.db, session_id)
            if found is not None:
                return found
            draft = self._compose(session_id, query, max_chars, hits, with_profile)
            with ctx.store.transaction() as db:
                created = snapshots.freeze(db, draft, ctx.actor)
                if created:
                    return Snapshot(**{**draft.__dict__, "created": True})
                return snapshots.load_frozen(db, session_id)  # another process froze it first

    def preview(self, query: str | None = None, max_chars: int | None = None) -> Snapshot:
        ctx = self._ctx
        max_chars = ctx.settings.memory.snapshot_max_chars if max_chars is None else max_chars
        query, max_chars = snapshots.check_request(None, query, max_chars, preview=True)
        hits = self._relevant(query)
        with ctx.store.guard():
            return self._compose(None, query, max_chars, hits)

    def _relevant(self, query: str | None) -> list[Fact]:
        hits = self._search(query, top_k=RELEVANT_K) if query else []
        return [h.fact for h in hits if h.bm25 > 0 or h.cosine >= RELEVANT_MIN_COSINE]

    def _compose(self, session_id: str | None, query: str | None, max_chars: int, relevant: list[Fact],
                 with_profile: bool = True) -> Snapshot:
        now = self._ctx.clock()
        db = self._ctx.store.db
        todo_ids, recent_ids = snapshots.open_todos(db, now), snapshots.recent(db, now)
        facts = load_facts(db, [*todo_ids, *recent_ids])
        profile = self.profile()
        if not with_profile:
            profile = dataclasses.replace(profile, files=())
        text, cited = snapshots.compose(profile, query, relevant, [facts[i] for i in todo_ids],
                                        [facts[i] for i in recent_ids], max_chars)
        return Snapshot(session_id, text, cited, now if session_id is not None else None, query, max_chars)
