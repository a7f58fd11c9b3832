"""Deterministic synthetic memories for the speed benchmark, and the cached stores built from them.

Facts are about a few hundred subjects (people, projects, services, offices)
made from small word lists. Each fact renders a subject/predicate/object
through one of several sentence templates, wrapped in optional lead-ins and
trailing clauses, so sentence shapes vary and embeddings spread out. About a
tenth of the facts form supersede chains (same subject and predicate with a
new object, in time order); the rest are free facts, session episodes and
derived conclusions across the three scopes and four kinds.

Stores are built through the real engine (``Memory.absorb`` in batches, real
embeddings) and cached under ``<repo>/.bench/`` keyed by size and
``GENERATOR_VERSION``; bump the version whenever generation changes.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from engine import Memory, Settings, fixed_clock, format_time, parse_time
from engine.models.embeddings import DEFAULT_DIM, DEFAULT_MODEL, Embedder

GENERATOR_VERSION = 1
NOW = parse_time("2026-11-30T12:00:00Z")
DAY = 86_400.0
SPAN_DAYS = 730
BATCH = 500
BENCH_DIR = Path(__file__).resolve().parents[1] / ".bench"

FIRST = ("Maya Sofia Liam Noah Aiko Ravi Elena Tomas Ines Omar Greta Jonas Priya Kenji Lucia Mateo Nadia "
         "Felix Hana Idris Clara Yusuf Leona Bruno Mira Arjun Zofia Emil Sana Diego").split()
LAST = ("Okafor Marques Lindqvist Tanaka Novak Haddad Petrov Silva Kowalski Mbeki Fischer Moreau Rossi Kaur "
        "Dubois Yamada Ortiz Berg Costa Ivanova").split()
CODENAMES = ("Atlas Borealis Cinder Delta Ember Falcon Granite Helix Iris Juniper Kestrel Lumen Meridian Nimbus "
             "Onyx Prism Quartz Raven Sierra Tundra Umbra Vega Willow Zephyr").split()
PRODUCTS = ("Console Gateway Portal Pipeline Studio Hub").split()
MINERALS = ("ferrite cobalt basalt argon krypton mica slate zircon garnet pyrite").split()
FUNCTIONS = ("ingest billing search auth notify telemetry checkout scheduler export audit").split()
CITIES = ("Lisbon Porto Kazan Nairobi Osaka Recife Tallinn Gdansk Leipzig Lyon Bilbao Krakow Tbilisi Accra "
          "Hanoi Quito Perth Halifax Tromso Cork Graz Split Turku Bergen Malmo Aarhus Ghent Utrecht Seville "
          "Valencia Bologna Turin Pune Chennai Cebu Busan Sapporo Cusco Montevideo Rosario").split()
ROLES = ["staff engineer", "engineering manager", "product designer", "data scientist", "site reliability lead",
         "technical writer", "security analyst", "QA engineer", "solutions architect", "intern"]
LANGS = ["Rust", "Go", "Python", "Kotlin", "TypeScript", "Elixir", "Java", "C++", "Zig", "OCaml"]
DATABASES = ["PostgreSQL 16", "MySQL 8", "ClickHouse", "SQLite", "Cassandra", "Redis", "MongoDB", "DuckDB"]
REGIONS = ["eu-west-1", "eu-central-1", "us-east-2", "ap-northeast-1", "sa-east-1", "us-west-2"]
TEAMS = ["Platform", "Payments", "Growth", "Data", "Mobile", "Infra", "Trust and Safety", "Search Quality"]
DRINKS = ["an oat flat white", "green tea", "a double espresso", "black coffee", "a chai latte", "sparkling water"]
HOBBIES = ["bouldering", "sourdough baking", "chess", "trail running", "film photography", "cello", "sailing"]
THEMES = ["dark mode", "a high-contrast light theme", "Solarized", "large fonts", "a tiling window layout"]
STATES = ["in discovery", "in beta", "blocked on legal review", "paused", "in production", "being rewritten"]
MONTHS = ("January February March April May June July August September October November December").split()
MEETINGS = ["weekly sync", "quarterly planning", "incident review", "design critique", "one-on-one", "standup"]

LEADS = ["", "", "", "According to {p}, ", "As of {m}, ", "Worth remembering: ", "For the record, ",
         "In the {meet} on {d} it came up that ", "{p} mentioned that ", "Noted after the {meet}: "]
TAILS = [", which matters when planning calls across time zones", ", and nobody expects that to change soon",
         ", as confirmed again in the {meet}", " (this was double-checked with {p})",
         ", although {p} thinks it may be revisited next quarter", "; the details are in the notes from {d}",
         ", which explains a few of the questions in the {meet}", ". {p} was surprised to hear it",
         ", at least until the budget review in {m}", ". It came up again in the {meet}"]
EPISODES = ["During the session on {d} we {verb} {svc} after {p} noticed {n} failed requests",
            "On {d} {p} and I {verb} {svc}; it took about {n} minutes",
            "We {verb} {svc} together on {d} because the error rate had climbed to {n} per thousand",
            "In today's session ({d}) we {verb} {svc} and wrote down {n} follow-up tasks"]
VERBS = ["debugged", "profiled", "migrated", "rolled back", "load-tested", "reviewed the alerts of",
         "patched", "restarted", "re-indexed", "upgraded"]
DERIVED = ["It follows from the notes that {p} should hear about changes to {s}, because {fact}",
           "Putting the notes together ({fact}), questions about {o} can go to {s} first",
           "Inferred: the {meet} is the right place to raise {o}, given that {fact}"]
DERIVED_STARTS = ("It follows", "Putting the notes", "Inferred:")
LOWER_AFTER_LEAD = {"The", "Right", "Outside", "Home", "Finance", "Decisions", "During", "On", "We", "In",
                    "It", "Putting", "Inferred:"}
QUERY_EPISODES = ["when did we last work on {s}", "what happened in the last session on {s}",
                  "{s} incident with failed requests", "did we ever roll back {s}?"]

Objects = Callable[[random.Random], str]


def _pick(values: list[str]) -> Objects:
    return lambda rng: rng.choice(values)


def _number(lo: int, hi: int, unit: str = "") -> Objects:
    return lambda rng: f"{rng.randint(lo, hi)}{unit}"


def _date(rng: random.Random, years: tuple[int, ...] = (2025, 2026)) -> str:
    return f"{rng.randint(1, 28)} {rng.choice(MONTHS)} {rng.choice(years)}"


def _deadline(rng: random.Random) -> str:
    return _date(rng, (2026, 2027))


@dataclass(frozen=True)
class Predicate:
    name: str
    objects: Objects
    templates: tuple[str, ...]   # {s} subject, {o} object
    questions: tuple[str, ...]
    tag: str
    preference: bool = False     # a user preference (user scope, user_preference kind)


def _predicates(people: list[str], projects: list[str]) -> dict[str, list[Predicate]]:
    P = Predicate
    return {
        "person": [
            P("lives in", _pick(CITIES), ("{s} lives in {o}", "{s} moved to {o} and works from there now",
              "Home for {s} is {o} these days"), ("Where does {s} live?", "which city is {s} based in"), "location"),
            P("role", _pick(ROLES), ("{s} works as a {o}", "{s}'s current title is {o}", "{s} was hired as a {o}"),
              ("What is {s}'s job?", "what role does {s} have on the team"), "people"),
            P("works on", _pick(projects), ("{s} spends most of the week on {o}", "{s} is assigned to {o}"),
              ("What project is {s} working on?", "who works on {o}"), "staffing"),
            P("drink", _pick(DRINKS), ("{s} always orders {o} before meetings", "{s} drinks {o}, never anything else"),
              ("How does {s} take their coffee?", "what should I order for {s}"), "preferences", True),
            P("hobby", _pick(HOBBIES), ("{s} spends weekends on {o}", "Outside work {s} is into {o}"),
              ("What does {s} do on weekends?", "{s} hobbies"), "personal"),
            P("ui theme", _pick(THEMES), ("{s} prefers {o} in every editor", "{s} asked for {o} in the dashboards"),
              ("Which editor theme does {s} like?", "what display settings does {s} prefer"), "preferences", True),
            P("language", _pick(LANGS), ("{s} would rather write {o} than anything else", "{s}'s favourite language is {o}"),
              ("Which programming language does {s} prefer?", "{s} favourite language"), "preferences", True),
        ],
        "service": [
            P("database", _pick(DATABASES), ("The {s} service stores its data in {o}", "{s} writes every event to {o}"),
              ("Which database does {s} use?", "where does the {s} service keep its data"), "db"),
            P("replicas", _number(2, 24), ("The {s} service runs {o} replicas in production", "{s} is scaled to {o} replicas"),
              ("How many replicas does {s} run?", "{s} replica count"), "infra"),
            P("region", _pick(REGIONS), ("{s} is deployed in {o}", "The primary region of {s} is {o}"),
              ("Which region is {s} deployed in?", "where is {s} hosted"), "infra"),
            P("owner", _pick(TEAMS), ("The {o} team owns {s}", "{s} is maintained by the {o} team"),
              ("Who owns the {s} service?", "which team is on call for {s}"), "ownership"),
            P("latency", _number(40, 900, " ms"), ("The p99 latency budget of {s} is {o}", "{s} must answer within {o} at p99"),
              ("What is the latency target of {s}?", "{s} p99 latency"), "slo"),
            P("language", _pick(LANGS), ("{s} is written in {o}", "The {s} codebase is mostly {o}"),
              ("What language is {s} written in?", "{s} tech stack"), "code"),
        ],
        "project": [
            P("deadline", _deadline, ("{s} has to ship by {o}", "The deadline for {s} is {o}"),
              ("When is the {s} deadline?", "when does {s} ship"), "planning"),
            P("lead", _pick(people), ("{o} leads {s}", "{s} is run by {o}", "Decisions on {s} go through {o}"),
              ("Who leads {s}?", "who should I ask about {s}"), "ownership"),
            P("budget", _number(20, 900, "k EUR"), ("{s} has a budget of {o}", "Finance approved {o} for {s}"),
              ("What is the budget of {s}?", "how much money does {s} have"), "finance"),
            P("status", _pick(STATES), ("{s} is {o}", "Right now {s} is {o}"),
              ("What is the status of {s}?", "is {s} finished"), "planning"),
        ],
        "office": [
            P("headcount", _number(4, 300), ("The {s} office has {o} people", "{o} people work at the {s} office"),
              ("How many people work in the {s} office?", "{s} office size"), "offices"),
            P("manager", _pick(people), ("{o} manages the {s} office", "The office manager in {s} is {o}"),
              ("Who runs the {s} office?", "office manager {s}"), "offices"),
        ],
    }


def subjects(rng: random.Random) -> list[tuple[str, str]]:
    """(kind, name) for ~300 subjects; the same for every store size."""
    people = rng.sample([f"{f} {l}" for f in FIRST for l in LAST], 150)
    projects = rng.sample([f"{c} {p}" for c in CODENAMES for p in PRODUCTS], 60)
    services = rng.sample([f"{m}-{f}" for m in MINERALS for f in FUNCTIONS], 60)
    return ([("person", p) for p in people] + [("project", p) for p in projects]
            + [("service", s) for s in services] + [("office", c) for c in CITIES])


class Generator:
    """Facts and queries from one seeded ``random.Random``."""

    ENTITY = {"person": "person", "project": "project", "service": "product", "office": "location"}

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.subjects = subjects(random.Random(1234))
        people = [n for k, n in self.subjects if k == "person"]
        self.people = people
        self.predicates = _predicates(people, [n for k, n in self.subjects if k == "project"])
        self.chains: dict[tuple[str, str], tuple[float, str | None]] = {}

    def _fill(self, template: str, **extra: str) -> str:
        rng = self.rng
        values = {"p": rng.choice(self.people), "m": f"{rng.choice(MONTHS)} {rng.choice((2025, 2026))}",
                  "d": _date(rng), "meet": rng.choice(MEETINGS), "n": str(rng.randint(2, 90)), **extra}
        return template.format(**values)

    def _sentence(self, core: str) -> str:
        """Wrap a core clause in an optional lead-in and trailing clauses, 50-500 characters."""
        rng = self.rng
        lead = self._fill(rng.choice(LEADS))
        first, _, rest = core.partition(" ")
        if lead and first in LOWER_AFTER_LEAD:  # names keep their capital after a lead-in
            core = f"{first.lower()} {rest}"
        text = lead + core
        target = min(480, int(rng.lognormvariate(4.9, 0.5)))
        for template in rng.sample(TAILS, 4):
            if len(text) >= target:
                break
            tail = self._fill(template)
            if len(text) + len(tail) > 495:
                break
            text += tail
        text += "."
        return text if len(text) >= 50 else text[:-1] + ", as recorded in the team notes."

    def _base(self, kind: str, subject: str, pred: Predicate, obj: str, at: float) -> dict[str, Any]:
        core = self.rng.choice(pred.templates).format(s=subject, o=obj)
        if not pred.preference and self.rng.random() < 0.08:
            core = self._fill(self.rng.choice(DERIVED), fact=core, s=subject, o=obj)
        item: dict[str, Any] = {"text": self._sentence(core), "created_at": at,
                                "tags": [kind, pred.tag], "scope": "agent", "kind": "explicit",
                                "entities": [{"name": subject, "type": self.ENTITY[kind]}]}
        if pred.preference:
            item.update(scope="user", kind="user_preference")
        elif core.startswith(DERIVED_STARTS):
            item["kind"] = "derived"
        return item

    def _time(self) -> float:
        return NOW - self.rng.uniform(0.05, SPAN_DAYS) * DAY

    def _chain(self) -> list[dict[str, Any]]:
        """2-4 versions of one subject+predicate, each with a new object and a later time.

        A key chosen again continues after its last version with a different object, so the
        versions of a key stay in time order and every step is a real change (the same triple
        twice in one batch also crashed the engine of 6a649d5).
        """
        kind, subject = self.rng.choice(self.subjects)
        pred = self.rng.choice(self.predicates[kind])
        last_at, last_obj = self.chains.get((subject, pred.name), (NOW - SPAN_DAYS * DAY, None))
        at, items = max(self._time(), last_at + 5 * DAY), []
        for _ in range(self.rng.randint(2, 4)):
            obj = pred.objects(self.rng)
            if at >= NOW or obj == last_obj:
                break
            item = self._base(kind, subject, pred, obj, at)
            item.update(subject=subject, predicate=pred.name, object=obj, kind="explicit")
            items.append(item)
            last_at, last_obj = at, obj
            at += self.rng.uniform(5, 120) * DAY
        self.chains[(subject, pred.name)] = (last_at, last_obj)
        return items

    def _episode(self) -> dict[str, Any]:
        service = self.rng.choice([n for k, n in self.subjects if k == "service"])
        at = self._time()
        day = format_time(at)[:10]
        core = self._fill(self.rng.choice(EPISODES), verb=self.rng.choice(VERBS), svc=service, d=day)
        return {"text": self._sentence(core), "created_at": at, "scope": "run", "kind": "episodic",
                "session_id": f"{day}-{'abc'[self.rng.randint(0, 2)]}", "tags": ["session", "service"],
                "entities": [{"name": service, "type": "product"}]}

    def facts(self, n: int) -> list[dict[str, Any]]:
        """``n`` absorbable items in chronological order (created_at as ISO-8601)."""
        items: list[dict[str, Any]] = []
        while len(items) < n:
            roll = self.rng.random()
            if roll < 0.04:
                items += self._chain()
            elif roll < 0.20:
                items.append(self._episode())
            else:
                kind, subject = self.rng.choice(self.subjects)
                pred = self.rng.choice(self.predicates[kind])
                items.append(self._base(kind, subject, pred, pred.objects(self.rng), self._time()))
        items = sorted(items[:n], key=lambda it: it["created_at"])
        for item in items:
            item["created_at"] = format_time(item["created_at"])
        return items

    def queries(self, n: int) -> list[str]:
        """Questions people would ask about these subjects, plus a few keyword-style ones."""
        found: list[str] = []
        while len(found) < n:
            kind, subject = self.rng.choice(self.subjects)
            roll = self.rng.random()
            if roll < 0.1:
                found.append(f"what do we know about {subject}")
            elif roll < 0.2 and kind == "service":
                found.append(self.rng.choice(QUERY_EPISODES).format(s=subject))
            else:
                pred = self.rng.choice(self.predicates[kind])
                found.append(self.rng.choice(pred.questions).format(s=subject, o=pred.objects(self.rng)))
        return found


# -- cached stores ---------------------------------------------------------------

def store_path(size: int, bench_dir: Path = BENCH_DIR) -> Path:
    return bench_dir / f"store-{size}-v{GENERATOR_VERSION}.sqlite"


class LookupEmbedder:
    """Vectors looked up from a precomputed text -> vector table (made by the real model).

    It stands in for the model where embedding is not what is measured: building the
    stores (their vectors are the real model's) and timing the absorb pipeline alone.
    """

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.model_id, self.dim, self.table = DEFAULT_MODEL, DEFAULT_DIM, table

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.stack([self.table[t] for t in texts]).astype(np.float32, copy=False)


def embed_by_length(embedder: Embedder, texts: list[str], log: Callable[[str], None] = print,
                    chunk: int = 2048) -> np.ndarray:
    """Real vectors for ``texts``, embedded shortest first.

    Sorting by length keeps each model batch's padding small: about 4x faster than
    embedding in arrival order here, with bit-identical vectors.
    """
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors = np.zeros((len(texts), DEFAULT_DIM), np.float32)
    start = time.perf_counter()
    for done in range(0, len(order), chunk):
        part = order[done:done + chunk]
        vectors[part] = embedder.embed([texts[i] for i in part])
        if len(texts) > chunk:
            log(f"  embedded {done + len(part):,}/{len(texts):,} texts, {time.perf_counter() - start:.0f} s")
    return vectors


def build_store(path: Path, size: int, embedder: Embedder, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Absorb ``size`` generated facts into a new store at ``path`` through ``Memory.absorb``."""
    items = Generator(seed=size).facts(size)
    texts = [it["text"] for it in items]
    started = time.perf_counter()
    table = dict(zip(texts, embed_by_length(embedder, texts, log)))
    embed_seconds = time.perf_counter() - started
    partial = path.with_name(path.name + ".partial")
    for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        leftover.unlink(missing_ok=True)
    outcomes: Counter[str] = Counter()
    with Memory(partial, Settings(), clock=fixed_clock(NOW), actor="bench", embedder=LookupEmbedder(table)) as memory:
        for done in range(0, size, BATCH):
            plan = memory.absorb(items[done:done + BATCH])
            outcomes.update(it.outcome for it in plan.items)
            count = min(done + BATCH, size)
            if count % 10_000 == 0 or count == size:
                log(f"  store-{size}: {count:,}/{size:,} items absorbed, {time.perf_counter() - started:.0f} s")
        stats = memory.stats()
    os.replace(partial, path)
    meta = {"size": size, "build_seconds": round(time.perf_counter() - started, 1),
            "embed_seconds": round(embed_seconds, 1), "outcomes": dict(outcomes), "facts": stats["facts"],
            "active": stats["by_status"].get("active", 0), "generator_version": GENERATOR_VERSION}
    path.with_suffix(".json").write_text(json.dumps(meta, indent=2))
    return meta


def cached_store(size: int, embedder: Callable[[], Embedder], bench_dir: Path = BENCH_DIR,
                 log: Callable[[str], None] = print) -> tuple[Path, dict[str, Any]]:
    """The cached store of ``size`` facts, built first if missing; ``embedder`` is called only to build."""
    path = store_path(size, bench_dir)
    meta_path = path.with_suffix(".json")
    if path.exists() and meta_path.exists():
        return path, {**json.loads(meta_path.read_text()), "cached": True}
    bench_dir.mkdir(parents=True, exist_ok=True)
    log(f"building {path.name} (cached for later runs)")
    return path, {**build_store(path, size, embedder(), log), "cached": False}


def cached_embedded(name: str, make: Callable[[], list[Any]], embedder: Callable[[], Embedder],
                    bench_dir: Path = BENCH_DIR) -> tuple[list[Any], np.ndarray]:
    """Strings or item dicts with the real embeddings of their texts, cached in ``<name>-v<version>.npz``."""
    path = bench_dir / f"{name}-v{GENERATOR_VERSION}.npz"
    if path.exists():
        with np.load(path) as data:
            return [json.loads(str(e)) for e in data["entries"]], data["vectors"]
    entries = make()
    vectors = embed_by_length(embedder(), [e if isinstance(e, str) else e["text"] for e in entries], log_err)
    bench_dir.mkdir(parents=True, exist_ok=True)
    np.savez(path, entries=np.array([json.dumps(e) for e in entries]), vectors=vectors)
    return entries, vectors


def log_err(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
