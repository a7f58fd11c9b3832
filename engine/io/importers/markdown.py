"""A folder of Markdown notes (Obsidian, Logseq-style pages, plain ``notes/``): one fact per bullet or paragraph.

Every ``*.md`` under the folder (recursively; hidden folders such as ``.git`` or
``.obsidian`` skipped) is read. Headings, code blocks, tables and rules are not facts and are
skipped; a paragraph's or a bullet's wrapped lines are joined into one text; a nested
bullet is a fact of its own; an unchecked task (``- [ ] …``) is tagged ``todo`` so the
session snapshot lists it. Front matter is read with a tiny parser for the two common
``tags:`` forms (``tags: [a, b]`` and a ``- a`` list below) and a ``date:`` / ``created:``
kept as the facts' creation time: a YAML library would be a new dependency for two keys.
The source names the file and the fact's number in it (``markdown:notes/x.md#2``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterator

from engine.errors import InvalidInput, MemLensError
from engine.io.importers.common import Batch, decode, iso_time, read_bytes, shown_label

_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])(?:\s+(.*))?$")
_TASK = re.compile(r"^\[([ xX])\]\s*(.*)$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_QUOTE = re.compile(r"^\s{0,3}(>\s?)+")
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


def read(path: Path) -> Batch:
    root, files = _files(path)
    batch = Batch()
    for file in files:
        # The label becomes each fact's source, which absorb scans like any field; errors use a
        # redacted form, since a rejected entry's message is stored in the plan.
        label = f"markdown:{file.relative_to(root).as_posix()}"
        shown = shown_label(label)
        try:
            data = read_bytes(file)
        except MemLensError as err:  # one unreadable or oversized note must not stop the others
            batch.reject(f"{label}: {err}" if shown == label else f"{shown}: cannot be read")
            continue
        text, error = decode(data, shown)
        if error:
            batch.reject(error)
            continue
        _read_note(text, label, batch)
    return batch


def _files(path: Path) -> tuple[Path, list[Path]]:
    if path.is_file():
        return path.parent, [path]
    if not path.is_dir():
        raise InvalidInput(f"no such file or folder: {path}")
    found = []
    for folder, subfolders, names in os.walk(path):  # os.walk does not follow symlinked folders: no loops
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        found += [Path(folder) / n for n in sorted(names) if n.lower().endswith(".md")]
    if not found:
        raise InvalidInput(f"{path} holds no .md files")
    return path, found


def _read_note(text: str, label: str, batch: Batch) -> None:
    meta, body = front_matter(text)
    common: dict[str, Any] = {}
    if meta.get("tags"):
        common["tags"] = meta["tags"]
    if meta.get("created_at"):
        common["created_at"] = meta["created_at"]
    for number, (fact, todo) in enumerate(blocks(body), start=1):
        item = {"text": fact, "source": f"{label}#{number}", **common}
        if todo:
            item["tags"] = [*common.get("tags", []), "todo"]
        batch.add(item)


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """({"tags": [...], "created_at": ISO}, body); text without a closed ``---`` block is all body."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((k for k in range(1, len(lines)) if lines[k].strip() in ("---", "...")), None)
    if end is None:
        return {}, text
    meta: dict[str, Any] = {}
    header = lines[1:end]
    for k, line in enumerate(header):
        found = _KEY.match(line)
        if not found:
            continue
        key, value = found.group(1).lower(), found.group(2).strip()
        if key in ("tags", "tag"):
            meta["tags"] = _tag_values(value, header[k + 1:])
        elif key in ("created", "date", "created_at") and "created_at" not in meta:
            # An unparseable date is dropped, not an error: the note's facts are still worth having.
            stamp = iso_time(value.strip("'\""))
            if stamp:
                meta["created_at"] = stamp
    return meta, "\n".join(lines[end + 1:])


def _tag_values(value: str, following: list[str]) -> list[str]:
    if value.startswith("[") and value.endswith("]"):
        parts = value[1:-1].split(",")
    elif value:
        parts = value.split(",")
    else:  # the block form: indented "- a" lines right below
        parts = []
        for line in following:
            item = re.match(r"^\s*-\s+(.*)$", line)
            if not item:
                break
            parts.append(item.group(1))
    tags = (p.strip().strip("'\"").lstrip("#").strip() for p in parts)
    return [t for t in tags if t]


def blocks(body: str) -> Iterator[tuple[str, bool]]:
    """(text, is an open task) for each bullet or paragraph, wrapped lines joined."""
    current: list[str] = []
    todo = False
    is_bullet = False
    fence: str | None = None
    for line in body.splitlines():
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            continue
        if opening := _FENCE.match(line):
            fence = opening.group(1)
        elif current and not is_bullet and _SETEXT.match(line):
            current = []  # the paragraph was a heading underlined with === or ---
            continue
        if fence is not None or not line.strip() or _HEADING.match(line) or _RULE.match(line) \
                or line.lstrip().startswith("|"):
            yield from _flush(current, todo)
            current, todo, is_bullet = [], False, False
            continue
        line = _QUOTE.sub("", line)
        if bullet := _BULLET.match(line):
            yield from _flush(current, todo)
            content = (bullet.group(1) or "").strip()
            task = _TASK.match(content)
            todo, is_bullet = bool(task and task.group(1) == " "), True
            current = [task.group(2) if task else content]
        else:
            current.append(line.strip())
    yield from _flush(current, todo)


def _flush(lines: list[str], todo: bool) -> Iterator[tuple[str, bool]]:
    text = " ".join(part for part in lines if part)
    if text:
        yield text, todo
