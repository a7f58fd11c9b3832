"""Typed settings with the seeds' defaults, read from ``memlens.toml``.

Every number DESIGN.md fixes has a key here. Lookup order for the file:
``--config`` path, else ``memlens.toml`` beside the memory file, else the user
config dir. A missing file means defaults; a malformed one is a user error.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import os
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from engine.errors import MemLensError
from engine.safe_names import shown_name


CROSS_ENCODER_DEPTH = 20
CROSS_ENCODER_ENV = "MEMLENS_CROSS_ENCODER_DEPTH"


def _cross_encoder_depth() -> int:
    """``MEMLENS_CROSS_ENCODER_DEPTH`` when set (0 turns the pass off for every memory a process opens
    without a config file saying otherwise: a slow machine, a test suite), else ``CROSS_ENCODER_DEPTH``."""
    raw = os.environ.get(CROSS_ENCODER_ENV)
    if raw is None or not raw.strip():
        return CROSS_ENCODER_DEPTH
    try:
        depth = int(raw)
    except ValueError:
        depth = -1
    if not 0 <= depth <= 1000:
        # Settings are made everywhere (every open, the GUI's start): a bad variable must not stop them.
        logging.getLogger(__name__).warning("%s=%s is not a whole number in 0..1000; using %d", CROSS_ENCODER_ENV,
                                            shown_name(raw), CROSS_ENCODER_DEPTH)
        return CROSS_ENCODER_DEPTH
    return depth


@dataclass(frozen=True)
class MemorySettings:
    cosine_weight: float = 0.7
    bm25_weight: float = 0.3
    freshness_rate: float = 0.01
    # DESIGN §4 decision: the seed's max(0, …) hides every fact older than 100 days;
    # a floor keeps old but relevant facts findable. 0 reproduces the seed. 0.9 was
    # chosen on LoCoMo (recall@5: floor 0 -> 0.23, 0.5 -> 0.39, 0.8 -> 0.57, 0.9 -> 0.585,
    # 1.0 -> 0.586): old facts stay findable and a fresh fact still wins a near tie.
    # 0.95 since issue 17 part 4, chosen with bm25_power by 3-fold cross-validation over
    # LoCoMo's conversations (python -m benchmarks.locomo --folds 3, README "Recall, held out"):
    # it gains in turns and in 2,500-char packs; a fact of the last five days still wins a tie.
    freshness_floor: float = 0.95
    # A duplicate needs this cosine AND to be a near copy (engine/classify.py): at most
    # duplicate_max_apart content words only one text has, shared words in nearly the same order
    # (duplicate_min_order, 1 = same order), and no number, identifier, date, name or negation
    # of its own. A contradiction needs contradict_threshold and a cue (negation, stance
    # opposite, number) with at most contradict_max_apart other content words changed (a number
    # change: none). All five chosen by python -m benchmarks.nli on ../shared/eval/nli (most
    # recall at precision 0.97 / 0.95); held out on grouped folds: duplicate P 0.95 R 0.20,
    # contradict P 0.95 R 0.78 (was 0.83 / 0.33 and 0.83 / 0.68 in-sample with cosine alone).
    duplicate_threshold: float = 0.97
    duplicate_max_apart: int = 0
    duplicate_min_order: float = 0.8
    consolidate_threshold: float = 0.85
    # related: 0.60 -> 0.50 lifted accuracy 0.67 -> 0.75 on the same pairs.
    contradict_threshold: float = 0.50
    contradict_max_apart: int = 1
    related_threshold: float = 0.50
    # A fact read as subject / predicate / value (engine/absorb/frames.py): a changed value needs
    # change_threshold, a restatement in other words restate_threshold. Chosen on the tuning
    # families of python -m benchmarks.agent_pairs; held-out families and benchmarks.nli checked.
    # A change said with the old text's verb ("works at" / "now works at") needs change_threshold;
    # in other words ("works at" / "moved to") change_reworded_threshold, since "Lena works at X" /
    # "Lena lives in Y" have one subject and differ in a value too.
    change_threshold: float = 0.45
    change_reworded_threshold: float = 0.50
    # ... and in other words without saying it is newer: a plain disagreement needs more similarity
    # ("Lena works at Corvid" / "Lena lives in Lisbon" sit at 0.55).
    contradict_reworded_threshold: float = 0.60
    restate_threshold: float = 0.75
    # Where the frame reading is unsure, the pair model (engine/absorb/pair_model.py) reads a pair at
    # cosine >= pair_floor; a change said to be newer supersedes at pair_change_probability. Chosen
    # on the fresh2 families with the model trained without them (changes found 0.511 at floor 0.45,
    # 0.522 at 0.35 and 0.30; probabilities 0.5-0.8 within 0.03 of each other). A plain disagreement
    # about one known thing contradicts at pair_disagree_probability: chosen on the fresh3 families
    # with the model trained without them (changes found 0.755 / 0.738 / 0.715 at 0.8 / 0.9 / 0.95
    # before the frame gates; 0.9 is the lowest that leaves the rated pairs' held-out figures as
    # they were, see docs/benchmarks.md).
    pair_change_probability: float = 0.7
    pair_disagree_probability: float = 0.9
    pair_floor: float = 0.35
    # A changed value (rules or model) differs in at most change_max_apart content words on one side
    # at least, and change_max_differing on both together. Of the changes found in the generated agent
    # pairs 96 % differ in 3 or fewer on one side and 97 % in 7 or fewer together; of the contradictions
    # and supersedes planned on LoCoMo's conversation observations (nearly all false: two things said
    # of a person, not a value replaced), 81 % differ in 4 or more on both sides, and 73 % of the rest
    # in 8 or more together.
    change_max_apart: int = 3
    change_max_differing: int = 7
    # Nearest facts compared with an incoming one: 8 so that the old version of a changed fact is
    # among them when other facts of the same shape are close too.
    candidates: int = 8
    # Facts scored exactly per search: this many best by a rough score of every fact, and this many
    # nearest by cosine (see engine/search/hybrid.py). The exhaustive top 10 at 100k facts is found for
    # 300/300 benchmark queries at 200, 299 at 100, 269 at 50; LoCoMo recall@5 is 0.629 at each.
    candidate_pool: int = 200
    # Query words and adjacent-word phrases are kept rarest first while their fact counts sum to
    # at most this (0: keep all). A word in most facts adds ~0 to BM25 but FTS5 scores every row
    # it matches (~2 us each). LoCoMo recall@5 at 50/100/150/200/500: 0.627/0.629/0.624/0.627/
    # 0.629, noise; at 10k facts the FTS5 query takes 0.52 ms at 100 and 1.29 ms at 500.
    # See engine/search/fts.py.
    text_match_budget: int = 100
    # ... and that budget grows with the memory: text_match_share x its indexed facts, at most
    # text_match_ceiling (engine/search/hybrid.py ``match_budget``). One LoCoMo conversation (400-700
    # facts) stays at 100; LongMemEval's pooled 5,033 turns get 755 instead of 100: recall@5 0.659 ->
    # 0.710, LoCoMo's four shapes unchanged, LoCoMo pooled into one file 0.597 -> 0.611 (3-fold
    # cross-validated, benchmarks.ranking_replay; docs/benchmarks.md "One long pooled memory").
    text_match_share: float = 0.15
    text_match_ceiling: int = 1000
    # A fact also scores this times its best batch neighbour's score (engine/search/context.py).
    # 0 is the seed's formula. LoCoMo recall@5: 0 -> 0.585, 0.2 -> 0.63, 0.3 -> 0.64 (all six
    # conversations gain). With context_length below, 0.3 (cross-validated with it over LoCoMo's turns, 2,500-char packs,
    # observations and packs between single turns; README "Recall, held out"): turns 0.643 -> 0.658,
    # packs 0.856 -> 0.861, observations 0.704 -> 0.706, mixed 0.834 -> 0.842. Without it 0.3 cost
    # the packs (0.849): a long text's neighbour is another passage, not the other half of an exchange.
    context_weight: float = 0.3
    # A neighbour lends min(1, context_length / its length in characters) of its score as context:
    # a long text may match far from the fact beside it (engine/search/context.py). 0: all of it.
    context_length: int = 300
    # A query's BM25 part is (bm25 / the best match's bm25) ** bm25_power (engine/search/hybrid.py):
    # 1 is plain max-normalisation; above 1 a fact matching only a query's weaker words keeps less
    # of the 0.3, while the best match still gets all of it. 1.5 chosen by 3-fold cross-validation
    # on LoCoMo with the floor above (recall@5 at floor 0.9, power 1 / 1.5 / 2: turns 0.629 / 0.636 /
    # 0.635, 2,500-char packs 0.852 / 0.854 / 0.849; README "Recall, held out"). Powers 3-4, 0.5 and
    # saturating x / (x + k) forms measured lower.
    bm25_power: float = 1.5
    # For a question in the first person that addresses no one ("where do I work now?"), a fact's score is
    # multiplied by 1 + voice_weight x its voice (-1 speaking to "you" .. 1 in the first person) and the
    # context part is off, so the asker's own short statement is not outranked by a long reply on its
    # topic (engine/search/voice.py). 0: off. 0.6 chosen by 3-fold cross-validation over LoCoMo's four
    # shapes and LongMemEval's pooled development half (benchmarks.ranking_replay; docs/benchmarks.md
    # "One long pooled memory"): pooled recall@5 0.515 -> 0.655 held out; LoCoMo's questions name no
    # person, so its four shapes rank exactly as before.
    voice_weight: float = 0.6
    # A question asking "when" or "how many / how much" multiplies the score of a fact that carries a time
    # ("last week", "in March", "2019") or a number by 1 + answer_kind_weight (engine/search/question_kind.py).
    # 0: off. 0.25 chosen by 3-fold cross-validation over LoCoMo's five shapes and LongMemEval's pooled
    # development half (benchmarks.ranking_replay --grid answer-kind; docs/benchmarks.md "What a question
    # asks for"); held out through the engine every shape gains: LoCoMo turns 0.658 -> 0.664, observations
    # 0.706 -> 0.707, packs 0.8612 -> 0.8615, mixed 0.842 -> 0.843, pooled 0.610 -> 0.620; LongMemEval's pool
    # 0.712 -> 0.718 (hit@5 0.836 -> 0.845). Lifting capitalised names for "where" / "who" measured lower.
    answer_kind_weight: float = 0.25
    # A cross-encoder reads the question with each of the first cross_encoder_depth hits and re-orders them
    # by (1 - w) x score / best score + w x sigmoid(its logit), w = cross_encoder_weight; a hit longer than
    # cross_encoder_tokens word pieces keeps its own score in both parts (engine/search/cross_rerank.py).
    # 0: off. 20 and 0.25 chosen by 3-fold cross-validation over LoCoMo's turns, observations, packs, mixed
    # and pooled shapes and LongMemEval's pool (benchmarks.rerank_replay; docs/benchmarks.md "A
    # cross-encoder's second pass"): turns 0.664 -> 0.688, the pool 0.721 -> 0.744 held out (engine 0.741,
    # hit@5 0.863); ~0.2-1.4 s a search on two cores, reported as rerank_ms.
    cross_encoder_depth: int = field(default_factory=_cross_encoder_depth)
    cross_encoder_weight: float = 0.25
    cross_encoder_tokens: int = 256
    rerank: bool = False
    # A vector index of at least this many rows is saved beside the memory file
    # (``<file>.vector-cache``) and loaded from there on the next open instead of rebuilt (0: never).
    # Loading it took 0.02 s of CPU at 10k rows against 0.19 s to rebuild (0.08 vs 1.05 at 100k);
    # below 10k a rebuild costs under 0.2 s and the file would be one more thing beside the memory.
    vector_cache_rows: int = 10_000
    reinforce_gain: float = 0.3
    confidence_cap: float = 0.99
    archive_below: float = 0.05
    min_text_chars: int = 50
    max_text_chars: int = 500
    hard_cap_chars: int = 4000
    # DESIGN §8: MEMORY.md and USER.md live beside the memory file unless profile_dir names a
    # folder (a relative one is taken from the memory file's folder). The budget is for the two
    # together and only warns; a snapshot's default size leaves room for facts after the profile.
    profile_dir: str = ""
    profile_budget: int = 2048
    snapshot_max_chars: int = 6000


@dataclass(frozen=True)
class EmbeddingSettings:
    model: str = "memlens/all-MiniLM-L6-v2-int8"
    batch_size: int = 64
    # Padded tokens per model call: bounds the attention's memory (4,096 peaks at ~690 MB for texts
    # of 1,500-3,900 characters, model included; see benchmarks/embedding_memory.py).
    token_budget: int = 4096


@dataclass(frozen=True)
class LLMSettings:
    base_url: str = ""
    model: str = ""
    api_key_env: str = ""
    timeout: float = 30.0


@dataclass(frozen=True)
class GCSettings:
    # Stage 2: a never-accessed run fact untouched for this many days is archived.
    stale_run_days: int = 30
    # Stage 3: a scope/tag group with more active facts than this is compacted into summaries.
    group_limit: int = 200
    summary_size: int = 20  # members per summary record (its text quotes each, clipped)
    # distill: a session with no new or reinforced fact for this long counts as finished.
    finished_session_hours: float = 24.0


@dataclass(frozen=True)
class HTTPSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    token_env: str = ""  # name of the environment variable holding the bearer token, if any
    max_body_bytes: int = 1_048_576
    # Host header names the server answers besides the loopback ones and the address it is bound
    # to (DNS rebinding: a page whose name resolves to 127.0.0.1 must not reach the API).
    allowed_hosts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    memory: MemorySettings = field(default_factory=MemorySettings)
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    gc: GCSettings = field(default_factory=GCSettings)
    http: HTTPSettings = field(default_factory=HTTPSettings)


_UNIT = (0.0, 1.0)
# (section, key) -> inclusive (low, high): a value outside makes no sense to the engine (a
# negative candidate count, a threshold above 1, a port beyond 65535) and is refused on load,
# where the key can be named, not deep in a search. Keys missing here are strings or switches.
RANGES: dict[tuple[str, str], tuple[float, float]] = {
    **{("memory", k): _UNIT for k in (
        "cosine_weight", "bm25_weight", "freshness_rate", "freshness_floor", "duplicate_threshold",
        "consolidate_threshold", "contradict_threshold", "related_threshold", "change_threshold",
        "change_reworded_threshold", "contradict_reworded_threshold", "restate_threshold",
        "pair_change_probability", "pair_disagree_probability", "pair_floor", "context_weight", "voice_weight", "answer_kind_weight",
        "cross_encoder_weight",
        "text_match_share",
        "reinforce_gain", "confidence_cap", "archive_below")},
    ("memory", "candidates"): (1, 1000),
    ("memory", "change_max_apart"): (0, 1000),
    ("memory", "change_max_differing"): (0, 1000),
    ("memory", "candidate_pool"): (1, 1_000_000),
    ("memory", "cross_encoder_depth"): (0, 1000),
    ("memory", "cross_encoder_tokens"): (16, 512),
    ("memory", "bm25_power"): (0.1, 10.0),
    ("memory", "text_match_budget"): (0, 1_000_000_000),
    ("memory", "text_match_ceiling"): (0, 1_000_000_000),
    ("memory", "context_length"): (0, 1_000_000),
    ("memory", "vector_cache_rows"): (0, 1_000_000_000),
    ("memory", "min_text_chars"): (0, 1_000_000),
    ("memory", "max_text_chars"): (1, 1_000_000),
    ("memory", "hard_cap_chars"): (1, 1_000_000),
    ("memory", "profile_budget"): (1, 1_000_000),
    ("memory", "snapshot_max_chars"): (200, 200_000),
    ("embedding", "batch_size"): (1, 4096),
    ("embedding", "token_budget"): (256, 1_000_000),
    ("llm", "timeout"): (0.1, 3600.0),
    ("gc", "stale_run_days"): (1, 36_500),
    ("gc", "group_limit"): (1, 10_000_000),
    ("gc", "summary_size"): (2, 1000),
    ("gc", "finished_session_hours"): (0.0, 876_000.0),
    ("http", "port"): (0, 65_535),
    ("http", "max_body_bytes"): (1, 1 << 30),
}
_ORDERED = (("min_text_chars", "max_text_chars"), ("max_text_chars", "hard_cap_chars"))
_LABEL = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")


def host_and_port(text: str) -> tuple[str, int | None]:
    """``name``, ``name:port``, ``[v6]`` or ``[v6]:port`` -> (canonical name, port or None).

    Canonical so that one spelling compares equal to another: names lower-case without a
    trailing dot, IPv6 in brackets and compressed. Raises ValueError on anything else
    (wildcards included: a pattern would let a rebinding name through).
    """
    port: str | None
    if "%" in text:  # an IPv6 zone id: no browser sends one, and ipaddress lets any character into it
        raise ValueError("zone id")
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ValueError("malformed bracketed address")
        name, port = f"[{ipaddress.IPv6Address(inside).compressed}]", rest[1:] if rest else None
    elif text.count(":") > 1:  # a bare IPv6 address, as a config file may spell it
        return f"[{ipaddress.IPv6Address(text).compressed}]", None
    else:
        bare, colon, after = text.partition(":")
        name, port = bare.lower().removesuffix("."), after if colon else None
        if not name or len(name) > 253 or not all(_LABEL.fullmatch(label) for label in name.split(".")):
            raise ValueError("not a host name or address")
    if port is None:
        return name, None
    if not (port.isascii() and port.isdigit() and len(port) <= 5 and 0 < int(port) <= 65_535):
        raise ValueError("bad port")
    return name, int(port)


def _checked(section: str, key: str, value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise MemLensError(f"config: [{section}] {key} must be a finite number")
    if isinstance(value, str):
        if any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise MemLensError(f"config: [{section}] {key} contains control characters")
        return value
    if isinstance(value, tuple):
        return tuple(_host_entry(section, key, entry) for entry in value)
    low, high = RANGES[(section, key)]
    if not low <= value <= high:
        raise MemLensError(f"config: [{section}] {key} must be between {low:g} and {high:g}")
    return value


def _host_entry(section: str, key: str, entry: Any) -> str:
    """One ``allowed_hosts`` entry in canonical form; the entry itself is not echoed (it may be anything)."""
    try:
        if not isinstance(entry, str):
            raise ValueError("not a string")
        name, port = host_and_port(entry)
    except ValueError:
        raise MemLensError(f"config: [{section}] {key} entries must be host names or addresses, each with an "
                           f"optional :port (no wildcards)") from None
    return name if port is None else f"{name}:{port}"


def _section(cls: type, raw: Any, name: str) -> Any:
    if not isinstance(raw, dict):
        raise MemLensError(f"config: [{name}] must be a table")
    known = {f.name for f in fields(cls)}
    defaults = cls()  # a key's type is its default's, also where the default is made at run time
    values = {}
    for key, value in raw.items():
        if key not in known:
            raise MemLensError(f"config: unknown key {shown_name(key)} in [{name}]")
        expected = type(getattr(defaults, key))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if expected is tuple and isinstance(value, list):
            value = tuple(value)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            kind = "a list" if expected is tuple else expected.__name__
            raise MemLensError(f"config: [{name}] {key} must be {kind}")
        values[key] = _checked(name, key, value)
    made = cls(**values)
    for smaller, larger in _ORDERED:
        if hasattr(made, smaller) and getattr(made, smaller) > getattr(made, larger):
            raise MemLensError(f"config: [{name}] {smaller} must not exceed {larger}")
    return made


def settings_from_dict(raw: dict[str, Any]) -> Settings:
    """Build settings from a parsed TOML document, rejecting unknown keys and wrong types."""
    sections = {f.name: f.default_factory for f in fields(Settings)}  # type: ignore[misc]
    unknown = set(raw) - set(sections)
    if unknown:
        raise MemLensError(f"config: unknown section {shown_name(sorted(map(str, unknown))[0])}")
    parts = {name: _section(type(factory()), raw[name], name) for name, factory in sections.items() if name in raw}
    return replace(Settings(), **parts)


def load_settings(path: Path | None) -> Settings:
    """Read settings from ``path``; ``None`` or a missing default file means the defaults."""
    if path is None or not path.exists():
        return Settings()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise MemLensError(f"config: {path} is not valid TOML: {err}") from None
    except OSError as err:
        raise MemLensError(f"config: cannot read {path}: {err.strerror}") from None
    return settings_from_dict(raw)
