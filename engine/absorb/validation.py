"""Step 1 and 2 of absorb: turn raw input into a checked ``Incoming`` fact.

Every problem is a per-item ``InvalidInput`` (or ``SecretRejected``) whose
message is safe to print: it quotes no more than a field name, a position
or a length, never the value that carried a secret.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from engine.absorb import secrets
from engine.absorb.secrets import SecretFinding
from engine.clock import OUT_OF_RANGE, SECONDS_PER_DAY, parse_time
from engine.config import MemorySettings
from engine.errors import InvalidInput, SecretRejected
from engine.safe_names import shown_name
from engine.store.decay import initial_confidence
from engine.vocabulary import KINDS, SCOPES
from engine.store.migrations import ENTITY_TYPES
from engine.store.records import normalise_text

FIELDS = frozenset({
    "text", "scope", "kind", "tags", "subject", "predicate", "object", "entities", "relations",
    "confidence", "importance", "ttl_days", "session_id", "created_at", "source",
})
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # a lone surrogate (undecodable bytes): not valid UTF-8
# Either of the two: clean text (nearly all) passes with one scan instead of two.
_CONTROL_OR_SURROGATE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
# A single-line field (tag, source, session id, subject, entity name, ...) is printed on one line
# of a report: a line break (any of Unicode's, and tab) would let it forge the lines after it.
_NOT_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
SHORT_LIMIT = 500
MAX_TAGS = 32
MAX_TAG_CHARS = 100
MAX_ENTITIES = 64
# A path or URL joins a token to its neighbours with characters the detector reads as part of
# one run ("notes/ghp_…"), so each piece is scanned on its own as well.
_PIECES = re.compile(r"[/\\#?&;,\s]+")


@dataclass
class Incoming:
    text: str
    scope: str
    kind: str
    tags: list[str] = field(default_factory=list)
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    entities: list[dict[str, str]] = field(default_factory=list)
    relations: list[list[str]] = field(default_factory=list)
    confidence: float | None = None
    importance: float = 0.5
    ttl_days: float | None = None
    session_id: str | None = None
    created_at: float | None = None
    source: str | None = None
    warnings: list[str] = field(default_factory=list)
    # The tags as given, before lower-casing: "AIza…" lower-cased no longer looks like a key.
    raw_tags: list[str] = field(default_factory=list, repr=False)

    def initial_confidence(self) -> float:
        return self.confidence if self.confidence is not None else initial_confidence(self.kind)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in _NOT_STORED and v not in (None, [], {})}


_NOT_STORED = frozenset({"warnings", "raw_tags"})


# Short values the detector in force found no secret in. Tags, entity names, session ids and
# sources repeat from item to item (a batch of 100 scans ~400 such values, most seen before),
# and scanning one costs ~10 µs. Only clean values are kept: a secret is never held here.
_CLEAN: dict[str, None] = {}
_CLEAN_MAX = 16384
_clean_by: list[Any] = [None]  # the detector that judged them (a new one judges afresh)


def secret_in(value: str) -> SecretFinding | None:
    """The absorb detector, also run on each piece of a path-like value; spans are within ``value``."""
    if _clean_by[0] is not secrets.first_secret:
        _CLEAN.clear()
        _clean_by[0] = secrets.first_secret
    elif value in _CLEAN:
        return None
    hit = _secret_in(value)
    if hit is None and len(value) <= SHORT_LIMIT:
        if len(_CLEAN) >= _CLEAN_MAX:
            _CLEAN.clear()
        _CLEAN[value] = None
    return hit


def _secret_in(value: str) -> SecretFinding | None:
    if hit := secrets.first_secret(value):
        return hit
    if not _PIECES.search(value):
        return None
    start = 0
    for piece in _PIECES.split(value):
        at = value.index(piece, start) if piece else start
        if piece and (hit := secrets.first_secret(piece)):
            return SecretFinding(hit.rule, at + hit.start, at + hit.end)
        start = at + len(piece)
    return None


def time_field(value: Any, name: str) -> float:
    """Epoch seconds of an ISO-8601 string; the error names the field, never the value."""
    try:
        return parse_time(value)
    except InvalidInput as err:
        if str(err) == OUT_OF_RANGE:
            raise InvalidInput(f"{name}: {err}") from None
        raise InvalidInput(f"{name} must be an ISO-8601 time such as 2026-11-30T12:00:00Z") from None


def _short_string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    value = value.strip()
    if not value:
        raise InvalidInput(f"{name} is empty")
    if len(value) > SHORT_LIMIT:
        raise InvalidInput(f"{name} is {len(value):,} characters; the limit is {SHORT_LIMIT}")
    if _NOT_ONE_LINE.search(value):
        if _SURROGATE.search(value):
            raise InvalidInput(f"{name} is not valid UTF-8 (a lone surrogate)")
        raise InvalidInput(f"{name} contains control characters or a line break; it must be one line")
    return value


def _unit_number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInput(f"{name} must be a number between 0 and 1")
    if not 0.0 <= value <= 1.0:
        raise InvalidInput(f"{name} must be between 0 and 1")
    return float(value)


def check_text(text: Any, limits: MemorySettings) -> tuple[str, list[str]]:
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    text = text.strip()
    if not text:
        raise InvalidInput("text is empty")
    if len(text) > limits.hard_cap_chars:
        raise InvalidInput(f"text is {len(text):,} characters; the limit is {limits.hard_cap_chars:,}")
    if _CONTROL_OR_SURROGATE.search(text):
        if bad := _CONTROL.search(text):  # a control character is named first, wherever a surrogate is
            raise InvalidInput(f"text contains a control character (code {ord(bad.group()):#04x}) at {bad.start()}")
        bad = _SURROGATE.search(text)
        raise InvalidInput(f"text is not valid UTF-8: a lone surrogate (code {ord(bad.group()):#06x}) at {bad.start()}")
    warnings = []
    if len(text) < limits.min_text_chars or len(text) > limits.max_text_chars:
        warnings.append(f"text is {len(text)} characters; {limits.min_text_chars}-{limits.max_text_chars} "
                        f"reads best as a self-contained fact")
    return text, warnings


def parse_entities(raw: Any) -> list[dict[str, str]]:
    if not isinstance(raw, list) or len(raw) > MAX_ENTITIES:
        raise InvalidInput(f"entities must be a list of at most {MAX_ENTITIES} {{name, type}} objects")
    found = []
    for item in raw:
        if not isinstance(item, dict) or set(item) - {"name", "type"}:
            raise InvalidInput("each entity must be an object with 'name' and 'type'")
        name = _short_string(item.get("name"), "entity name")
        kind = item.get("type")
        if kind not in ENTITY_TYPES:
            raise InvalidInput(f"entity type must be one of {', '.join(ENTITY_TYPES)}")
        found.append({"name": name, "type": kind})
    return found


def parse_relations(raw: Any, entities: list[dict[str, str]]) -> list[list[str]]:
    if not isinstance(raw, list) or len(raw) > MAX_ENTITIES:
        raise InvalidInput(f"relations must be a list of at most {MAX_ENTITIES} [source, type, target] triples")
    known = {normalise_text(e["name"]) for e in entities}
    found = []
    for item in raw:
        if not isinstance(item, list) or len(item) != 3:
            raise InvalidInput("each relation must be a list [source, type, target]")
        src, kind, dst = (_short_string(v, "relation part") for v in item)
        for name in (src, dst):
            if normalise_text(name) not in known:
                raise InvalidInput("a relation names an entity missing from 'entities'")
        found.append([src, kind, dst])
    return found


def _tags(raw: Any) -> tuple[list[str], list[str]]:
    """(tags lower-cased and deduplicated, the same tags as given) for the secret scan."""
    if isinstance(raw, str):
        raw = raw.split(",")
    if not isinstance(raw, list) or len(raw) > MAX_TAGS:
        raise InvalidInput(f"tags must be a list of at most {MAX_TAGS} strings")
    given = [_short_string(t, "tag") for t in raw if not (isinstance(t, str) and not t.strip())]
    if any(len(t) > MAX_TAG_CHARS for t in given):
        raise InvalidInput(f"a tag is longer than {MAX_TAG_CHARS} characters")
    return list(dict.fromkeys(t.lower() for t in given)), given


def reject_secrets(item: Incoming, *, text: bool = True) -> None:
    """Raise ``SecretRejected`` for a secret in the item's text (unless ``text`` is False) or metadata.

    Absorb passes ``text=False`` only for a text already stored verbatim: it was
    scanned before it was stored, and re-scanning 100 known facts was a third of
    the hash fast path. Metadata is always scanned: it is new even when the text is not.
    """
    first = secrets.first_secret(item.text) if text else None
    if first:
        raise SecretRejected(first.rule, first.start, first.end)
    others = [item.subject, item.predicate, item.object, item.source, item.session_id,
              *(item.raw_tags or item.tags), *(e["name"] for e in item.entities),
              *(part for r in item.relations for part in r)]
    for value in others:
        if value and (hit := secret_in(value)):
            raise SecretRejected(hit.rule, hit.start, hit.end)


def validate(raw: Any, limits: MemorySettings, defaults: dict[str, Any] | None = None, *,
             scan_secrets: bool = True) -> Incoming:
    """Check one incoming item (a dict or a plain string); reject secrets unless the caller will (``scan_secrets``)."""
    if isinstance(raw, str):
        raw = {"text": raw}
    if not isinstance(raw, dict):
        raise InvalidInput("each item must be a JSON object with at least 'text'")
    if not FIELDS.issuperset(raw):
        raise InvalidInput(f"unknown field {shown_name(sorted(map(str, set(raw) - FIELDS))[0])}")
    merged = {**(defaults or {}), **{k: v for k, v in raw.items() if v is not None}}
    text, warnings = check_text(merged.get("text"), limits)
    scope = merged.get("scope", "agent")
    kind = merged.get("kind", "explicit")
    if scope not in SCOPES:
        raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}")
    if kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}")
    item = Incoming(text=text, scope=scope, kind=kind, warnings=warnings)
    if "tags" in merged:
        item.tags, item.raw_tags = _tags(merged["tags"])
    triple = (merged.get("subject"), merged.get("predicate"), merged.get("object"))
    if triple[0] is not None or triple[1] is not None or triple[2] is not None:
        if any(v is None for v in triple):
            raise InvalidInput("subject, predicate and object go together: give all three or none")
        item.subject, item.predicate, item.object = (_short_string(v, n) for v, n in
                                                     zip(triple, ("subject", "predicate", "object")))
    if "entities" in merged:
        item.entities = parse_entities(merged["entities"])
    if "relations" in merged:
        item.relations = parse_relations(merged["relations"], item.entities)
    if "confidence" in merged:
        item.confidence = _unit_number(merged["confidence"], "confidence")
    if "importance" in merged:
        item.importance = _unit_number(merged["importance"], "importance")
    if "ttl_days" in merged:
        ttl = merged["ttl_days"]
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not (0 < ttl < 36_500):
            raise InvalidInput("ttl_days must be a positive number of days")
        item.ttl_days = float(ttl)
    for name in ("session_id", "source"):
        if name in merged:
            setattr(item, name, _short_string(merged[name], name))
    if "created_at" in merged:
        item.created_at = time_field(merged["created_at"], "created_at")
    if item.scope == "run" and not item.session_id:
        raise InvalidInput("scope 'run' needs a session id (session_id, or --session)")
    if scan_secrets:
        reject_secrets(item)
    return item


def expires_at(item: Incoming, created: float) -> float | None:
    return None if item.ttl_days is None else created + item.ttl_days * SECONDS_PER_DAY
