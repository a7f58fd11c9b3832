"""mem0: the JSON that ``Memory.get_all()`` returns, saved to a file.

Older mem0 versions return a list of memories; newer ones ``{"results": [...]}``. Each
memory is ``{id, memory, hash, metadata, created_at, updated_at, user_id, agent_id, run_id}``
(the hosted platform adds ``categories``). It becomes one absorb item:

- ``memory`` -> text; ``id`` -> source ``mem0:<id>``;
- scope: ``run_id`` -> run (the run id as session id), else ``user_id`` -> user, else agent;
- ``created_at`` (else ``updated_at``) -> created_at, so decay and the timeline see the real age;
- ``metadata.tags`` and ``categories`` -> tags, when they are lists of strings.

mem0's ``hash`` is ignored: absorb computes its own and finds duplicates with it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.errors import InvalidInput
from engine.io.importers.common import Batch, decode, iso_time, read_bytes, string_list


def read(path: Path) -> Batch:
    entries = _entries(path)
    batch = Batch()
    for number, entry in enumerate(entries, start=1):
        item = _item(entry, f"mem0 entry {number}")
        if isinstance(item, str):
            batch.reject(item)
        else:
            batch.add(item)
    return batch


def _entries(path: Path) -> list[Any]:
    """The list of memories, or one error for a file that is not a mem0 export at all."""
    text, error = decode(read_bytes(path), str(path))
    if error:
        raise InvalidInput(f"not a mem0 export: {error}")
    if not text.strip():
        raise InvalidInput(f"{path} is empty; a mem0 export is a JSON list of memories")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidInput(f"{path} is not a mem0 export: not valid JSON ({err.msg} at line {err.lineno}, "
                           f"column {err.colno})") from None
    except RecursionError:
        raise InvalidInput(f"{path} is not a mem0 export: JSON nested too deeply") from None
    if isinstance(value, dict) and isinstance(value.get("results"), list):
        value = value["results"]
    if not isinstance(value, list):
        raise InvalidInput(f"{path} is not a mem0 export: expected a JSON list of memories or "
                           f'{{"results": [...]}}, got {type(value).__name__}')
    return value


def _id(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return str(value).strip() or None


def _item(entry: Any, label: str) -> dict[str, Any] | str:
    """The absorb item for one memory, or the message saying why it cannot be one."""
    if not isinstance(entry, dict):
        return f"{label}: expected an object, got {type(entry).__name__}"
    text = entry.get("memory")
    if not isinstance(text, str) or not text.strip():
        return f"{label}: no 'memory' text"
    item: dict[str, Any] = {"text": text}
    if (ident := _id(entry.get("id"))) is not None:
        item["source"] = f"mem0:{ident}"
    if (run := _id(entry.get("run_id"))) is not None:
        item["scope"], item["session_id"] = "run", run
    else:
        item["scope"] = "user" if _id(entry.get("user_id")) is not None else "agent"
    for key in ("created_at", "updated_at"):
        stamp = entry.get(key)
        if stamp is None:
            continue
        if iso_time(stamp) is None:
            return f"{label}: {key} is not an ISO-8601 time"
        item.setdefault("created_at", stamp)
    metadata = entry.get("metadata")
    tags = string_list(metadata.get("tags")) if isinstance(metadata, dict) else None
    categories = string_list(entry.get("categories"))
    if tags or categories:
        item["tags"] = list(dict.fromkeys([*(tags or []), *(categories or [])]))
    return item
