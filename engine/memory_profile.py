"""The facade's profile and session-snapshot methods (a mixin of ``Memory``; DESIGN §8).

Saving a profile file takes the memory's write transaction first: that lock is shared by
every process using this memory, so two front ends saving at once are serialised and the
second one's stale version is refused instead of silently overwriting the first.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.agents import profile as profile_files
from engine.agents import snapshot as snapshots
from engine.errors import Conflict, InvalidInput
from engine.agents.profile import Profile, ProfileVersion
from engine.store.records import load_facts
from engine.agents.snapshot import Snapshot

if TYPE_CHECKING:
    from engine.memory import Memory

RELEVANT_K = 10
# Search always returns its top k, however weak; a snapshot lists only hits that share a word
# with the query or are close in meaning (the offline model puts unrelated facts near 0.1,
# paraphrases from 0.5 up), so a small memory's unrelated facts are not shown as "relevant".
RELEVANT_MIN_COSINE = 0.3


class ProfileMethods:
    """``profile``, ``save_profile``, ``profile_versions``, ``snapshot`` and ``preview_snapshot``."""

    @property
    def profile_folder(self: "Memory") -> Path:
        return profile_files.folder_for(self.path, self.settings.memory.profile_dir)

    def profile(self: "Memory") -> Profile:
        """MEMORY.md and USER.md as on disk now, each with the version to pass back when saving."""
        return profile_files.read_profile(self.profile_folder, self.settings.memory.profile_budget)

    def save_profile(self: "Memory", name: str, text: str, expected_version: str) -> Profile:
        """Replace one profile file's text, atomically, if it is still at ``expected_version``.

        ``expected_version`` is the ``version`` of that file in the ``profile()`` the text was
        based on (``"absent"`` for a file not created yet). A file changed since raises
        ``Conflict`` and nothing is written; a secret raises ``SecretRejected``; a text over
        the budget is saved and the returned profile carries the warning. Saving the same
        text again changes nothing and journals nothing.
        """
        name = profile_files.canonical_name(name)
        text = profile_files.check_text(name, text)
        if not isinstance(expected_version, str) or not expected_version:
            raise InvalidInput("expected_version must be the version string read with the profile")
        folder = self.profile_folder
        with self._store.guard(), self._store.transaction() as db:
            current = profile_files.read_file(folder, name)  # read again under the lock
            if current.version != expected_version:
                raise Conflict(f"{name} changed since it was read (on disk or by another program); "
                               f"nothing was written: read it again and redo the edit")
            if current.exists and not current.problem and current.text == text:
                return self.profile()
            profile_files.record_save(db, current, text, self.clock(), self.actor)
            # Last inside the transaction: if the file cannot be written the journal rolls back too.
            profile_files.replace_file(folder / name, text)
        return self.profile()

    def profile_versions(self: "Memory", name: str) -> list[ProfileVersion]:
        """Every text saved to ``name`` through MemLens, oldest first (revision 1, 2, ...)."""
        name = profile_files.canonical_name(name)
        with self._store.guard():
            return profile_files.saved_versions(self._store.db, name)

    def snapshot(self: "Memory", session_id: str, query: str | None = None,
                 max_chars: int | None = None) -> Snapshot:
        """The session's frozen digest: made and stored by the first call, the same bytes after.

        Later calls for the session return the stored snapshot whatever their ``query`` and
        ``max_chars`` (the stored ones are on the result); a new session sees the current state.
        """
        max_chars = self.settings.memory.snapshot_max_chars if max_chars is None else max_chars
        query, max_chars = snapshots.check_request(session_id, query, max_chars)
        with self._store.guard():
            found = snapshots.load_frozen(self._store.db, session_id)
            if found is not None:
                return found
            draft = self._compose(session_id, query, max_chars)
            with self._store.transaction() as db:
                created = snapshots.freeze(db, draft, self.actor)
                if created:
                    return Snapshot(**{**draft.__dict__, "created": True})
                return snapshots.load_frozen(db, session_id)  # another process froze it first

    def preview_snapshot(self: "Memory", query: str | None = None, max_chars: int | None = None) -> Snapshot:
        """What a new session's snapshot would be now; nothing is stored."""
        max_chars = self.settings.memory.snapshot_max_chars if max_chars is None else max_chars
        query, max_chars = snapshots.check_request(None, query, max_chars, preview=True)
        with self._store.guard():
            return self._compose(None, query, max_chars)

    def _compose(self: "Memory", session_id: str | None, query: str | None, max_chars: int) -> Snapshot:
        now = self.clock()
        hits = self.search(query, top_k=RELEVANT_K) if query else []
        relevant = [h.fact for h in hits if h.bm25 > 0 or h.cosine >= RELEVANT_MIN_COSINE]
        db = self._store.db
        todo_ids, recent_ids = snapshots.open_todos(db, now), snapshots.recent(db, now)
        facts = load_facts(db, [*todo_ids, *recent_ids])
        text, cited = snapshots.compose(self.profile(), query, relevant, [facts[i] for i in todo_ids],
                                        [facts[i] for i in recent_ids], max_chars)
        return Snapshot(session_id, text, cited, now if session_id is not None else None, query, max_chars)
