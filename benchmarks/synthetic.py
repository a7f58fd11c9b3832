"""Deterministic synthetic memories for the speed benchmark, and the cached stores built from them.

Generator v2 (issue 18). A memory is mostly *new and related* facts, with a few
per cent new versions of a fact (``supersede``) and contradictions; v1's small
vocabulary (~300 subjects × 4-6 attributes) made 82 % of the 100k store's facts
contradictions, because nearly every fact restated a key already stated.

- **Keys, not templates, are the unit.** A fact states one key: (subject,
  predicate, parameter), e.g. (``ferrite-ingest``, ``depends on``,
  ``cobalt-billing``). Most keys are stated once. The subjects grow with the
  store (300 at 10k, ~20,000 at 1M: people, customers, services, projects and
  offices), and parametric predicates (an opinion *of a technology*, a
  dependency *on a service*, a room *of an office*) give each subject hundreds
  of keys, so a million facts need not repeat one.
- **Outcomes are planned** as each fact is made (``Generator.memory``): about
  3 % restate a key that was given as a triple with a new object (absorb:
  ``supersede``), about 2.5 % repeat an earlier fact's sentence with its number
  changed (``contradict``), and the rest are ``related`` to an earlier fact about
  the same subject, or ``new`` for a subject's first fact. Episodes (16 %) are
  session notes about services.
- **Vectors are composed, not embedded one by one** (``compose_vectors``). Every
  sentence is built from pieces (subject name parts, the predicate's template
  with its slots removed, the object, lead-ins and trailing clauses); the
  distinct pieces (a few thousand) are embedded once by the real model and
  cached, and a fact's vector is the normalised weighted sum of its pieces'
  vectors plus a little per-fact noise. 1M texts would take ~5 hours to embed
  on this 2-core VM; composing takes seconds. The vectors have the structure
  speed and exactness depend on (facts about one subject or one predicate lie
  close; the spread is the model's), not the model's fine semantics, so they
  are fine for latency, memory and top-10 agreement, not for retrieval quality
  (LoCoMo measures that, with real embeddings).

Stores of up to ``BULK_FROM`` facts are built through the real engine
(``Memory.absorb`` in batches of 500; its classifier decides the outcomes, which
is what ``meta["outcomes"]`` records); larger ones by ``benchmarks.bulk``, which
writes the planned outcomes through the engine's own plan writer without
planning each item. Stores are cached under ``<repo>/.bench/`` keyed by size and
``GENERATOR_VERSION``; bump the version whenever generation changes.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from engine import Memory, Settings, fixed_clock, format_time, parse_time
from engine.models.embeddings import DEFAULT_DIM, DEFAULT_MODEL, Embedder

GENERATOR_VERSION = 2
NOW = parse_time("2026-11-30T12:00:00Z")
DAY = 86_400.0
SPAN_DAYS = 730
BATCH = 500
BULK_FROM = 100_000  # stores this large are written by benchmarks.bulk, not planned item by item
BENCH_DIR = Path(__file__).resolve().parents[1] / ".bench"

FIRST = ("Maya Sofia Liam Noah Aiko Ravi Elena Tomas Ines Omar Greta Jonas Priya Kenji Lucia Mateo Nadia "
         "Felix Hana Idris Clara Yusuf Leona Bruno Mira Arjun Zofia Emil Sana Diego Amara Bjorn Chiara Dmitri "
         "Esme Farah Goran Helga Ilse Jamal Kaito Lena Milo Nora Oskar Paula Quentin Rosa Stefan Tara Ugo "
         "Vera Wanjiru Ximena Yara Zane Alba Bilal Carmen Dario Eun Fatima Gustav Hiro Ivo Jana Kofi Lars "
         "Marta Nikhil Olga Pavel Rania Santiago Thea Umar Viktor Wen Yusra Anouk Cem Dalia Eero Filip Gaia "
         "Hugo Isla Joao Kira Luca Mei Nils Orla Petra Rafael Selin Timo Uma Vivek Willa Xavier Yosef Zara "
         "Aurelio Bea Cyrus Dina Elif Freya Gil Hedda Ingrid Jules Kamal Linnea Marek Noor").split()
LAST = ("Okafor Marques Lindqvist Tanaka Novak Haddad Petrov Silva Kowalski Mbeki Fischer Moreau Rossi Kaur "
        "Dubois Yamada Ortiz Berg Costa Ivanova Achterberg Bianchi Castillo Dahl Eriksen Ferreira Gallo "
        "Hoffmann Iqbal Jensen Kaplan Lopez Maier Nakamura Olsen Pereira Quispe Richter Sato Torres Ueda "
        "Vogel Weber Xu Yilmaz Zimmermann Abara Brandt Cohen Demir Engel Fontaine Grieg Horvat Ito Jovanovic "
        "Kim Larsen Mendes Nowak Oliveira Park Ramos Schmidt Takahashi Urban Varga Wagner Yadav Zhou Almeida "
        "Bauer Chen Diaz Esposito Fuchs Garcia Hansen Ibrahim Jung Koch Lang Meyer Nielsen Otto Popescu "
        "Reyes Santos Thomsen Uribe Vasquez Wolf Young Zhang Arslan Bergstrom Conti Doyle Eklund Falk Gomes "
        "Holm Ikeda Janssen Keller Lund Moretti Nguyen Obi Pham Quinn Rojas Stein").split()
CODENAMES = ("Atlas Borealis Cinder Delta Ember Falcon Granite Helix Iris Juniper Kestrel Lumen Meridian Nimbus "
             "Onyx Prism Quartz Raven Sierra Tundra Umbra Vega Willow Zephyr Aurora Beacon Comet Dune Echo Fjord "
             "Glacier Harbor Indigo Jasper Koi Lotus Mistral Nova Orchid Pinnacle Quill Ridge Saffron Tempest "
             "Ultra Vortex Wren Yonder Zenith Acorn Bramble Cobalt Drift Ether Flint Grove Heron Ivy Jade Kite").split()
PRODUCTS = "Console Gateway Portal Pipeline Studio Hub Ledger Radar Vault Relay Canvas Forge Atlas Beacon Link".split()
MINERALS = ("ferrite cobalt basalt argon krypton mica slate zircon garnet pyrite quartz opal jade onyx amber "
            "beryl coral flint gneiss halite jasper kyanite lapis marble nickel obsidian peridot rutile "
            "schist talc topaz tourmaline umber vanadium wolfram xenon yttrium zinc agate chert").split()
FUNCTIONS = ("ingest billing search auth notify telemetry checkout scheduler export audit ledger pricing "
             "catalog inventory payments invoicing routing identity reporting mailer uploads webhooks "
             "ratelimit recommend fraud").split()
COMPANY_A = ("Northwind Bluefin Redwood Silverline Ironbridge Greenfield Brightwater Stonegate Clearpath "
             "Highland Lakeshore Maplewood Oakridge Pinecrest Riverside Sunvale Westbrook Eastgate Goldcrest "
             "Blackstone Cedar Copperleaf Driftwood Elmstead Foxglove Granary Hollowell Juniper Kingsley "
             "Larkspur Meadowlark Northstar Oceanic Pebble Quarry Rosewood Saltmarsh Thornbury Upland "
             "Valemont Whitecliff Yarrow Alder Birchwood Crescent Dovetail Everhart Fairhaven Glenmore Hartwell "
             "Ivory Kestrel Lindenhall Mosswood Newhaven Orchard Palisade Quayside Ravenwood Seabright Tidewater "
             "Umberfield Verdant Wildrose Ashford Brookline Coldwater Dunmore Emberly Fernhill Galloway "
             "Heathrow Islington Kensal Lowther Marlowe Norcross").split()
COMPANY_B = ("Logistics Foods Bank Insurance Pharma Retail Media Energy Motors Labs Analytics Telecom Travel "
             "Hotels Studios Robotics Health Capital Freight Airlines Mining Textiles Software Security Water "
             "Farms Brewing Games Publishing Clinics Materials Shipping Solar Steel Toys Furniture Optics "
             "Aerospace Biotech Consulting Dental Education Fashion Fitness Marine Outdoor Paper Printing "
             "Realty Semiconductors").split()
CITIES = ("Lisbon Porto Kazan Nairobi Osaka Recife Tallinn Gdansk Leipzig Lyon Bilbao Krakow Tbilisi Accra "
          "Hanoi Quito Perth Halifax Tromso Cork Graz Split Turku Bergen Malmo Aarhus Ghent Utrecht Seville "
          "Valencia Bologna Turin Pune Chennai Cebu Busan Sapporo Cusco Montevideo Rosario Ljubljana Riga "
          "Vilnius Brno Cluj Plovdiv Izmir Tangier Kumasi Arusha Mombasa Durban Windhoek Salta Arequipa "
          "Medellin Oaxaca Leon Tampere Uppsala").split()
ROLES = ["staff engineer", "engineering manager", "product designer", "data scientist", "site reliability lead",
         "technical writer", "security analyst", "QA engineer", "solutions architect", "intern",
         "product manager", "support lead", "frontend engineer", "database administrator", "recruiter"]
LANGS = ["Rust", "Go", "Python", "Kotlin", "TypeScript", "Elixir", "Java", "C++", "Zig", "OCaml", "Scala",
         "Haskell", "Swift", "Ruby", "C#"]
DATABASES = ["PostgreSQL 16", "MySQL 8", "ClickHouse", "SQLite", "Cassandra", "Redis", "MongoDB", "DuckDB",
             "CockroachDB", "Elasticsearch", "DynamoDB", "TimescaleDB"]
REGIONS = ["eu-west-1", "eu-central-1", "us-east-2", "ap-northeast-1", "sa-east-1", "us-west-2", "ap-south-1",
           "eu-north-1", "ca-central-1", "af-south-1"]
TEAMS = ["Platform", "Payments", "Growth", "Data", "Mobile", "Infra", "Trust and Safety", "Search Quality",
         "Identity", "Developer Experience", "Observability", "Billing Ops"]
DRINKS = ["an oat flat white", "green tea", "a double espresso", "black coffee", "a chai latte", "sparkling water",
          "a cortado", "mint tea", "hot chocolate", "a cold brew"]
HOBBIES = ["bouldering", "sourdough baking", "chess", "trail running", "film photography", "cello", "sailing",
           "birdwatching", "woodworking", "salsa dancing", "astronomy", "kayaking", "pottery", "go"]
THEMES = ["dark mode", "a high-contrast light theme", "Solarized", "large fonts", "a tiling window layout",
          "a minimal sidebar", "vim key bindings", "monospace everywhere"]
STATES = ["in discovery", "in beta", "blocked on legal review", "paused", "in production", "being rewritten",
          "waiting for budget", "in user testing"]
TECHS = ["Kubernetes", "Terraform", "GraphQL", "Kafka", "gRPC", "React", "Svelte", "Airflow", "dbt", "Spark",
         "Snowflake", "Grafana", "Prometheus", "OpenTelemetry", "Nix", "Bazel", "Docker Compose", "Helm",
         "Ansible", "Jenkins", "GitHub Actions", "Sentry", "Datadog", "Vault", "Consul", "Nomad", "Istio",
         "Envoy", "Celery", "RabbitMQ", "NATS", "Redis Streams", "Flink", "Pandas", "Polars", "PyTorch",
         "Jupyter", "Figma", "Notion", "Jira"]
OPINIONS = ["enjoys working with", "is sceptical of", "wants to migrate away from", "is the local expert on",
            "keeps recommending", "finds it hard to debug", "is learning", "wrote the internal guide to"]
TOPICS = ["data retention", "GDPR requests", "the on-call rotation", "SSO setup", "invoice exports",
          "rate limits", "the public API", "audit logs", "the mobile app", "webhook retries", "dark mode",
          "CSV imports", "the SLA", "uptime reports", "the roadmap", "price changes", "seat licences",
          "two-factor login", "the migration plan", "custom domains", "sandbox accounts", "the status page",
          "usage alerts", "data residency", "the EU region", "bulk deletes", "role permissions", "offline mode"]
WANTS = ["a written answer by Friday", "a call with engineering", "it fixed before renewal", "a workaround for now",
         "a quote", "it on the roadmap", "weekly updates", "no changes until the audit"]
PLANS = ["the Starter plan", "the Team plan", "the Business plan", "the Enterprise plan", "a custom contract",
         "a free pilot"]
CALLS = ["on every request", "only for nightly batch jobs", "through a message queue", "as a fallback",
         "for cache misses", "during checkout only", "via a read replica", "with a 2 second timeout"]
RISKS = ["vendor lock-in", "the hiring freeze", "a dependency on the legacy billing system", "scope creep",
         "missing load tests", "unclear ownership", "the data migration", "the security review",
         "an unstable upstream API", "the holiday code freeze", "low test coverage", "key-person risk"]
LEVELS = ["low", "moderate", "high", "critical", "being reassessed"]
ROOMS = ["Aurora", "Basalt", "Cedar", "Delta", "Elm", "Fjord", "Granite", "Harbor", "Iris", "Juniper", "Kelp",
         "Linden", "Maple", "North", "Orca", "Pine"]
MONTHS = ("January February March April May June July August September October November December").split()
MEETINGS = ["weekly sync", "quarterly planning", "incident review", "design critique", "one-on-one", "standup",
            "customer call", "architecture review", "retro", "all-hands"]

LEADS = ["", "", "", "", "According to {p}, ", "As of {m}, ", "Worth remembering: ", "For the record, ",
         "In the {meet} on {d} it came up that ", "{p} mentioned that ", "Noted after the {meet}: ",
         "From the {meet} notes: ", "Heard from {p}: "]
TAILS = [", which matters when planning calls across time zones", ", and nobody expects that to change soon",
         ", as confirmed again in the {meet}", " (this was double-checked with {p})",
         ", although {p} thinks it may be revisited next quarter", "; the details are in the notes from {d}",
         ", which explains a few of the questions in the {meet}", ". {p} was surprised to hear it",
         ", at least until the budget review in {m}", ". It came up again in the {meet}",
         ", so {p} should be told before anything changes", " (see the {meet} minutes from {m})"]
EPISODES = ["During the session on {d} we {verb} {svc} after {p} noticed {n} failed requests",
            "On {d} {p} and I {verb} {svc}; it took about {n} minutes",
            "We {verb} {svc} together on {d} because the error rate had climbed to {n} per thousand",
            "In today's session ({d}) we {verb} {svc} and wrote down {n} follow-up tasks",
            "{p} asked me on {d} to look at {svc}; we {verb} it and closed {n} tickets"]
VERBS = ["debugged", "profiled", "migrated", "rolled back", "load-tested", "reviewed the alerts of",
         "patched", "restarted", "re-indexed", "upgraded", "documented", "benchmarked"]
LOWER_AFTER_LEAD = {"The", "Right", "Outside", "Home", "Finance", "Decisions", "During", "On", "We", "In"}
QUERY_EPISODES = ["when did we last work on {s}", "what happened in the last session on {s}",
                  "{s} incident with failed requests", "did we ever roll back {s}?"]
SLOT = re.compile(r"\{\w+\}")

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
    templates: tuple[str, ...]   # {s} subject, {o} object, {x} parameter
    questions: tuple[str, ...]
    tag: str
    preference: bool = False     # a user preference (user scope, user_preference kind)
    params: tuple[str, ...] = ()  # one key per parameter value: (subject, predicate, parameter)
    numeric: bool = False        # the object is a number: restating it with another is a contradiction


def _predicates(people: list[str], projects: list[str], services: list[str]) -> dict[str, list[Predicate]]:
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
            P("language", _pick(LANGS), ("{s} would rather write {o} than anything else",
                                         "{s}'s favourite language is {o}"),
              ("Which programming language does {s} prefer?", "{s} favourite language"), "preferences", True),
            P("opinion", _pick(OPINIONS), ("{s} {o} {x}", "When it comes to {x}, {s} {o} it"),
              ("What does {s} think of {x}?", "who knows {x} well"), "opinions", params=tuple(TECHS)),
            P("experience", _number(1, 15, " years"), ("{s} has {o} of experience with {x}",
                                                       "{s} has used {x} for {o}"),
              ("How long has {s} used {x}?", "{s} experience with {x}"), "skills", params=tuple(TECHS), numeric=True),
        ],
        "service": [
            P("database", _pick(DATABASES), ("The {s} service stores its data in {o}", "{s} writes every event to {o}"),
              ("Which database does {s} use?", "where does the {s} service keep its data"), "db"),
            P("replicas", _number(2, 48), ("The {s} service runs {o} replicas in production", "{s} is scaled to {o} replicas"),
              ("How many replicas does {s} run?", "{s} replica count"), "infra", numeric=True),
            P("region", _pick(REGIONS), ("{s} is deployed in {o}", "The primary region of {s} is {o}"),
              ("Which region is {s} deployed in?", "where is {s} hosted"), "infra"),
            P("owner", _pick(TEAMS), ("The {o} team owns {s}", "{s} is maintained by the {o} team"),
              ("Who owns the {s} service?", "which team is on call for {s}"), "ownership"),
            P("latency", _number(40, 900, " ms"), ("The p99 latency budget of {s} is {o}", "{s} must answer within {o} at p99"),
              ("What is the latency target of {s}?", "{s} p99 latency"), "slo", numeric=True),
            P("language", _pick(LANGS), ("{s} is written in {o}", "The {s} codebase is mostly {o}"),
              ("What language is {s} written in?", "{s} tech stack"), "code"),
            P("calls", _pick(CALLS), ("{s} calls {x} {o}", "The {s} service depends on {x}, {o}"),
              ("What does {s} depend on?", "which services call {x}"), "dependencies", params=tuple(services)),
            P("peak load", _number(50, 20_000, " requests per second"), ("{s} peaks at {o} from {x}",
                                                                          "At peak {x} sends {s} {o}"),
              ("How much traffic does {s} get?", "{s} peak load"), "capacity", params=tuple(FUNCTIONS), numeric=True),
        ],
        "project": [
            P("deadline", _deadline, ("{s} has to ship by {o}", "The deadline for {s} is {o}"),
              ("When is the {s} deadline?", "when does {s} ship"), "planning"),
            P("lead", _pick(people), ("{o} leads {s}", "{s} is run by {o}", "Decisions on {s} go through {o}"),
              ("Who leads {s}?", "who should I ask about {s}"), "ownership"),
            P("budget", _number(20, 900, "k EUR"), ("{s} has a budget of {o}", "Finance approved {o} for {s}"),
              ("What is the budget of {s}?", "how much money does {s} have"), "finance", numeric=True),
            P("status", _pick(STATES), ("{s} is {o}", "Right now {s} is {o}"),
              ("What is the status of {s}?", "is {s} finished"), "planning"),
            P("risk", _pick(LEVELS), ("The risk to {s} from {x} is {o}", "{s} is exposed to {x}; the risk is rated {o}"),
              ("What are the risks to {s}?", "which projects worry about {x}"), "risks", params=tuple(RISKS)),
            P("member", _pick(ROLES), ("{x} joined {s} as its {o}", "{s} has {x} on the team as {o}"),
              ("Who is on the {s} team?", "what does {x} do on {s}"), "staffing", params=tuple(people[:2000])),
        ],
        "customer": [
            P("plan", _pick(PLANS), ("{s} is on {o}", "{s} signed up for {o}"),
              ("Which plan is {s} on?", "what does {s} pay for"), "accounts"),
            P("contract", _number(5, 2_000, "k EUR a year"), ("The {s} contract is worth {o}", "{s} pays {o}"),
              ("How much is the {s} contract worth?", "{s} annual contract value"), "accounts", numeric=True),
            P("account manager", _pick(people), ("{o} is the account manager for {s}", "{s} is looked after by {o}"),
              ("Who manages the {s} account?", "account manager of {s}"), "accounts"),
            P("asked", _pick(WANTS), ("{s} asked about {x} and wants {o}", "A question from {s} about {x}: they want {o}"),
              ("What did {s} ask about {x}?", "which customers asked about {x}"), "support", params=tuple(TOPICS)),
            P("seats", _number(3, 5_000, " seats"), ("{s} has {o} in use", "{s} is licensed for {o}"),
              ("How many seats does {s} have?", "{s} seat count"), "accounts", numeric=True),
        ],
        "office": [
            P("headcount", _number(4, 300), ("The {s} office has {o} people", "{o} people work at the {s} office"),
              ("How many people work in the {s} office?", "{s} office size"), "offices", numeric=True),
            P("manager", _pick(people), ("{o} manages the {s} office", "The office manager in {s} is {o}"),
              ("Who runs the {s} office?", "office manager {s}"), "offices"),
            P("room", _number(4, 40, " people"), ("The {x} room in the {s} office seats {o}",
                                                  "In {s}, the {x} meeting room holds {o}"),
              ("How big are the meeting rooms in {s}?", "{x} room {s}"), "offices", params=tuple(ROOMS), numeric=True),
        ],
    }


def subjects(rng: random.Random) -> list[tuple[str, str]]:
    """(kind, name) of every subject, in a fixed order; a store of n facts uses the first ``vocabulary(n)``.

    The first 300 are v1's mix (people, projects, services, offices), so queries about them
    find facts at every size; after them, all five kinds are interleaved at random.
    """
    people = [f"{f} {l}" for f in FIRST for l in LAST]
    projects = [f"{c} {p}" for c in CODENAMES for p in PRODUCTS if c != p]
    services = [f"{m}-{f}" for m in MINERALS for f in FUNCTIONS]
    customers = [f"{a} {b}" for a in COMPANY_A for b in COMPANY_B]
    for group in (people, projects, services, customers):
        rng.shuffle(group)
    first = ([("person", p) for p in people[:130]] + [("project", p) for p in projects[:50]]
             + [("service", s) for s in services[:50]] + [("customer", c) for c in customers[:40]]
             + [("office", c) for c in CITIES[:30]])
    rest = ([("person", p) for p in people[130:]] + [("project", p) for p in projects[50:]]
            + [("service", s) for s in services[50:]] + [("customer", c) for c in customers[40:]]
            + [("office", c) for c in CITIES[30:]])
    rng.shuffle(first)
    rng.shuffle(rest)
    return first + rest


ALL_SUBJECTS = subjects(random.Random(1234))


def vocabulary(n: int) -> int:
    """Subjects a store of ``n`` facts is about: ~50 facts each from 15k facts up, 300 below."""
    return max(300, min(len(ALL_SUBJECTS), n // 50))


@functools.lru_cache(maxsize=None)
def _pieces_of(template: str) -> str:
    """A template without its slots: the words every sentence made from it shares."""
    return " ".join(SLOT.sub(" ", template).replace(" ,", ",").split()).strip(" ,.;:()")


def _object_piece(pred: Predicate, obj: str) -> str:
    """What stands for an object in the vector: itself, or a number rounded to one significant digit."""
    if not pred.numeric and pred.objects is not _deadline:
        return obj
    digits = re.match(r"\d+", obj)
    if pred.objects is _deadline:
        return " ".join(obj.split()[1:])  # month and year
    value = int(digits.group()) if digits else 0
    rounded = int(float(f"{value:.1g}")) if value else 0
    return f"{rounded}{obj[digits.end():]}" if digits else obj


@functools.lru_cache(maxsize=None)
def _name_pieces(name: str) -> tuple[tuple[str, float], ...]:
    return tuple((part, W_SUBJECT) for part in re.split(r"[ -]", name))


@dataclass
class Planned:
    """What a generated item is meant to become: its outcome and the earlier item it refers to (-1: none)."""
    outcome: str
    target: int = -1


@dataclass
class Made:
    """A generated memory: absorbable items, planned outcomes, and each text's pieces for its vector."""
    items: list[dict[str, Any]]
    planned: list[Planned]
    pieces: list[list[tuple[str, float]]] = field(repr=False)
    seed: int = 0


# Weights of a sentence's pieces in its composed vector (see ``compose_vectors``).
W_SUBJECT, W_TEMPLATE, W_OBJECT, W_PARAM, W_LEAD, W_TAIL, W_PERSON = 0.55, 1.0, 0.7, 0.6, 0.35, 0.3, 0.12
NOISE = 0.5
# Pieces keep this share of their mean: a sum of many pieces otherwise leans on their common
# direction (mean pairwise cosine 0.54 with the whole mean kept, 0.19 for the real model's vectors
# of the same texts; 0.18 with 0.4 kept and NOISE 0.5, nearest neighbour 0.64 vs 0.61).
KEEP_MEAN = 0.4


class Generator:
    """Facts and queries from one seeded ``random.Random``; ``size`` sets the subject vocabulary."""

    ENTITY = {"person": "person", "project": "project", "service": "product", "office": "location",
              "customer": "company"}

    def __init__(self, seed: int, size: int = 10_000) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.subjects = ALL_SUBJECTS[:vocabulary(size)]
        every = ALL_SUBJECTS
        self.people = [n for k, n in every if k == "person"][:3000]
        self.services = [n for k, n in self.subjects if k == "service"] or [n for k, n in every if k == "service"][:50]
        self.predicates = _predicates(self.people, [n for k, n in every if k == "project"][:600],
                                      [n for k, n in every if k == "service"][:400])

    # -- sentences ---------------------------------------------------------------------------
    def _person(self, pieces: list[tuple[str, float]], weight: float) -> str:
        name = self.rng.choice(self.people)
        pieces.extend((part, weight) for part in name.split())
        return name

    def _fill(self, template: str, pieces: list[tuple[str, float]], weight: float, **extra: str) -> str:
        rng = self.rng
        values = {"m": f"{rng.choice(MONTHS)} {rng.choice((2025, 2026))}", "d": _date(rng),
                  "meet": rng.choice(MEETINGS), "n": str(rng.randint(2, 90)), **extra}
        if "{p}" in template:
            values["p"] = self._person(pieces, W_PERSON)
        if "{meet}" in template:
            pieces.append((values["meet"], weight * 0.5))
        if template.strip():
            pieces.append((_pieces_of(template) or template.strip(), weight))
        return template.format(**values)

    def _wrap(self, core: str, pieces: list[tuple[str, float]]) -> str:
        """A core clause with an optional lead-in and trailing clauses, 50-500 characters."""
        rng = self.rng
        lead = self._fill(rng.choice(LEADS), pieces, W_LEAD)
        first, _, rest = core.partition(" ")
        if lead and first in LOWER_AFTER_LEAD:  # names keep their capital after a lead-in
            core = f"{first.lower()} {rest}"
        text = lead + core
        target = min(480, int(rng.lognormvariate(4.9, 0.5)))
        for template in rng.sample(TAILS, 4):
            if len(text) >= target:
                break
            mark = len(pieces)
            tail = self._fill(template, pieces, W_TAIL)
            if len(text) + len(tail) > 495:
                del pieces[mark:]
                break
            text += tail
        text += "."
        return text if len(text) >= 50 else text[:-1] + ", as recorded in the team notes."

    def _subject_pieces(self, subject: str) -> list[tuple[str, float]]:
        return list(_name_pieces(subject))

    def _attribute(self, kind: str, subject: str, pred: Predicate, param: str, obj: str, at: float,
                   template: str | None = None) -> tuple[dict[str, Any], list[tuple[str, float]], str]:
        template = template or self.rng.choice(pred.templates)
        core = template.format(s=subject, o=obj, x=param)
        core = core[0].upper() + core[1:]
        pieces = self._subject_pieces(subject) + [(_pieces_of(template) or pred.name, W_TEMPLATE),
                                                  (_object_piece(pred, obj), W_OBJECT)]
        if param:
            pieces.append((param, W_PARAM))
        item: dict[str, Any] = {"text": self._wrap(core, pieces), "created_at": at, "tags": [kind, pred.tag],
                                "scope": "agent", "kind": "explicit",
                                "entities": [{"name": subject, "type": self.ENTITY[kind]}]}
        if pred.preference:
            item.update(scope="user", kind="user_preference")
        return item, pieces, template

    def _episode(self, at: float) -> tuple[dict[str, Any], list[tuple[str, float]], str]:
        service = self.rng.choice(self.services)
        day = format_time(at)[:10]
        pieces = self._subject_pieces(service)
        verb = self.rng.choice(VERBS)
        pieces.append((verb, W_OBJECT))
        core = self._fill(self.rng.choice(EPISODES), pieces, W_TEMPLATE, verb=verb, svc=service, d=day)
        item = {"text": self._wrap(core, pieces), "created_at": at, "scope": "run", "kind": "episodic",
                "session_id": f"{day}-{'abc'[self.rng.randint(0, 2)]}", "tags": ["session", "service"],
                "entities": [{"name": service, "type": "product"}]}
        return item, pieces, service

    # -- a memory ----------------------------------------------------------------------------
    def memory(self, n: int) -> Made:
        """``n`` items in time order, each with its planned outcome and its vector's pieces.

        Keys stated as a triple (a third of attribute facts) can later get a new
        version (~3 %: ``supersede``); facts with a number can later be restated
        with another number and otherwise the same sentence (~2.5 %: ``contradict``).
        Every other fact states a key never stated before: ``related`` to the
        subject's latest fact, or ``new`` when it is the subject's first.
        """
        rng = self.rng
        items: list[dict[str, Any]] = []
        planned: list[Planned] = []
        pieces: list[list[tuple[str, float]]] = []
        texts: set[str] = set()
        used: set[tuple[str, str, str]] = set()
        latest: dict[str, int] = {}  # subject -> its latest fact's item index
        versioned: dict[tuple[str, str, str], int] = {}  # key given as a triple -> its active version's index
        versioned_keys: list[tuple[str, str, str]] = []
        numeric: list[int] = []  # items with a number and no triple, not yet contradicted
        recipe: dict[int, tuple[str, str, Predicate, str, str]] = {}  # item -> (kind, subject, pred, param, template)
        start = NOW - SPAN_DAYS * DAY
        step = SPAN_DAYS * DAY / max(n, 1)

        def add(item: dict[str, Any], parts: list[tuple[str, float]], plan: Planned, subject: str) -> bool:
            if item["text"] in texts:
                return False
            texts.add(item["text"])
            items.append(item)
            pieces.append(parts)
            planned.append(plan)
            latest[subject] = len(items) - 1
            return True

        while len(items) < n:
            at = start + (len(items) + rng.random()) * step
            roll = rng.random()
            if roll < 0.03 and versioned_keys:
                key = versioned_keys[rng.randrange(len(versioned_keys))]
                target = versioned[key]
                kind, subject, pred, param, _ = recipe[target]
                old = items[target]["object"]
                obj = next((o for o in (pred.objects(rng) for _ in range(8)) if o != old), None)
                if obj is None:
                    continue
                item, parts, template = self._attribute(kind, subject, pred, param, obj, at)
                item.update(subject=subject, predicate=item_predicate(pred, param), object=obj)
                if add(item, parts, Planned("supersede", target), subject):
                    versioned[key] = len(items) - 1
                    recipe[len(items) - 1] = (kind, subject, pred, param, template)
            elif roll < 0.055 and numeric:
                target = numeric.pop(rng.randrange(len(numeric)))
                kind, subject, pred, param, template = recipe[target]
                old_item, old_parts = items[target], pieces[target]
                old_obj = old_item["_object"]
                obj = next((o for o in (pred.objects(rng) for _ in range(8)) if o != old_obj), None)
                if obj is None:
                    continue
                old_core = template.format(s=subject, o=old_obj, x=param)
                new_core = template.format(s=subject, o=obj, x=param)
                text = old_item["text"].replace(old_core[1:], new_core[1:], 1)
                if text == old_item["text"]:
                    continue
                parts = [(p, w) if p != _object_piece(pred, old_obj) else (_object_piece(pred, obj), w)
                         for p, w in old_parts]
                item = {**{k: v for k, v in old_item.items() if k != "_object"}, "text": text, "created_at": at,
                        "_object": obj}
                add(item, parts, Planned("contradict", target), subject)
            elif roll < 0.215:
                item, parts, service = self._episode(at)
                add(item, parts, Planned("related" if service in latest else "new", latest.get(service, -1)),
                    service)
            else:
                for _ in range(6):
                    kind, subject = self.subjects[rng.randrange(len(self.subjects))]
                    pred = rng.choice(self.predicates[kind])
                    param = rng.choice(pred.params) if pred.params else ""
                    if param == subject:
                        continue
                    key = (subject, pred.name, param)
                    if key not in used:
                        break
                else:
                    continue
                obj = pred.objects(rng)
                item, parts, template = self._attribute(kind, subject, pred, param, obj, at)
                triple = rng.random() < 0.33
                if triple:
                    item.update(subject=subject, predicate=item_predicate(pred, param), object=obj)
                plan = Planned("related" if subject in latest else "new", latest.get(subject, -1))
                if not add(item, parts, plan, subject):
                    continue
                used.add(key)
                index = len(items) - 1
                recipe[index] = (kind, subject, pred, param, template)
                if triple:
                    versioned[key] = index
                    versioned_keys.append(key)
                elif pred.numeric:
                    item["_object"] = obj
                    numeric.append(index)
        for item in items:
            item.pop("_object", None)
            item["created_at"] = format_time(item["created_at"])
        return Made(items, planned, pieces, self.seed)

    def facts(self, n: int) -> list[dict[str, Any]]:
        """``n`` absorbable items in chronological order (created_at as ISO-8601)."""
        return self.memory(n).items

    def queries(self, n: int) -> list[str]:
        """Questions people would ask about the first 300 subjects (in every store), plus a few keyword-style ones."""
        found: list[str] = []
        first = ALL_SUBJECTS[:300]
        while len(found) < n:
            kind, subject = self.rng.choice(first)
            roll = self.rng.random()
            if roll < 0.1:
                found.append(f"what do we know about {subject}")
            elif roll < 0.2 and kind == "service":
                found.append(self.rng.choice(QUERY_EPISODES).format(s=subject))
            else:
                pred = self.rng.choice(self.predicates[kind])
                param = self.rng.choice(pred.params) if pred.params else ""
                found.append(self.rng.choice(pred.questions).format(s=subject, o=pred.objects(self.rng), x=param))
        return found


def item_predicate(pred: Predicate, param: str) -> str:
    """The triple's predicate: the predicate's name, with its parameter when it has one."""
    return f"{pred.name} {param}" if param else pred.name


def outcome_mix(outcomes: Sequence[str]) -> dict[str, float]:
    """Share of each outcome, rounded to 0.1 %."""
    counts = Counter(outcomes)
    return {k: round(v / max(1, len(outcomes)), 3) for k, v in sorted(counts.items())}


# -- composed vectors ------------------------------------------------------------------------

def piece_vectors(texts: list[str], embedder: Embedder, bench_dir: Path | None = BENCH_DIR,
                  log: Callable[[str], None] = print) -> dict[str, np.ndarray]:
    """The real model's vector of every piece, cached in ``<bench_dir>/pieces-v<version>.npz`` (grown as needed)."""
    known: dict[str, np.ndarray] = {}
    path = None if bench_dir is None else bench_dir / f"pieces-v{GENERATOR_VERSION}.npz"
    if path is not None and path.exists():
        with np.load(path) as data:
            known = dict(zip((str(t) for t in data["texts"]), data["vectors"]))
    missing = sorted(set(texts) - known.keys())
    if missing:
        log(f"  embedding {len(missing):,} pieces (cached for later builds)")
        known.update(zip(missing, embed_by_length(embedder, missing, log)))
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            names = sorted(known)
            np.savez(path, texts=np.array(names), vectors=np.stack([known[t] for t in names]))
    return known


def compose_vectors(made: Made, table: dict[str, np.ndarray], chunk: int = 65_536) -> Callable[[int, int], np.ndarray]:
    """``vectors(start, stop)``: the composed vectors of items ``start:stop`` (unit length, float32).

    A vector is ``normalise(Σ weight · piece vector + NOISE · g / √dim)``, the pieces' vectors
    with ``1 - KEEP_MEAN`` of their mean taken off, ``g`` a
    standard normal vector seeded by the memory's seed and the item's index, so the
    same item always gets the same vector and no two texts share one.
    """
    names = sorted(table)
    row_of = {t: k for k, t in enumerate(names)}
    matrix = np.stack([table[t] for t in names]).astype(np.float32)
    matrix -= (1 - KEEP_MEAN) * matrix.mean(axis=0)
    width = max(len(p) for p in made.pieces) if made.pieces else 1
    idx = np.zeros((len(made.pieces), width), np.int32)
    weight = np.zeros((len(made.pieces), width), np.float32)
    for i, parts in enumerate(made.pieces):
        for k, (text, w) in enumerate(parts):
            idx[i, k], weight[i, k] = row_of[text], w

    def vectors(start: int, stop: int) -> np.ndarray:
        out = np.zeros((stop - start, matrix.shape[1]), np.float32)
        for k in range(width):
            out += weight[start:stop, k, None] * matrix[idx[start:stop, k]]
        for s in range(start, stop, chunk):
            e = min(stop, s + chunk)
            rng = np.random.default_rng([made.seed, s])
            out[s - start:e - start] += NOISE / np.sqrt(matrix.shape[1]) * rng.standard_normal(
                (e - s, matrix.shape[1]), dtype=np.float32)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out

    return vectors


def composed(made: Made, embedder: Embedder, bench_dir: Path | None = BENCH_DIR,
             log: Callable[[str], None] = print) -> Callable[[int, int], np.ndarray]:
    texts = sorted({t for parts in made.pieces for t, _ in parts})
    return compose_vectors(made, piece_vectors(texts, embedder, bench_dir, log))


# -- cached stores ---------------------------------------------------------------

def store_path(size: int, bench_dir: Path = BENCH_DIR) -> Path:
    return bench_dir / f"store-{size}-v{GENERATOR_VERSION}.sqlite"


class LookupEmbedder:
    """Vectors looked up from a precomputed text -> vector table.

    It stands in for the model where embedding is not what is measured: building the
    stores (with composed vectors) and timing the absorb pipeline alone.
    """

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.model_id, self.dim, self.table = DEFAULT_MODEL, DEFAULT_DIM, table

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        missing = [t for t in dict.fromkeys(texts) if t not in self.table]
        if missing:
            # The words two close facts do not share (absorb's pair model): embedded for real, so
            # what absorb spends on them is in the figures.
            from engine.models.embeddings import shared_embedder
            self.table.update(zip(missing, shared_embedder(self.model_id).embed(missing)))
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


def absorb_store(path: Path, made: Made, vectors: Callable[[int, int], np.ndarray],
                 log: Callable[[str], None] = print) -> Counter[str]:
    """Absorb ``made``'s items into a new store at ``path`` through ``Memory.absorb`` (batches of ``BATCH``)."""
    size = len(made.items)
    table = dict(zip((it["text"] for it in made.items), vectors(0, size)))
    outcomes: Counter[str] = Counter()
    started = time.perf_counter()
    with Memory(path, Settings(), clock=fixed_clock(NOW), actor="bench", embedder=LookupEmbedder(table)) as memory:
        for done in range(0, size, BATCH):
            plan = memory.absorb(made.items[done:done + BATCH])
            outcomes.update(it.outcome for it in plan.items)
            count = min(done + BATCH, size)
            if count % 10_000 == 0 or count == size:
                log(f"  {path.name}: {count:,}/{size:,} items absorbed, {time.perf_counter() - started:.0f} s")
    return outcomes


def build_store(path: Path, size: int, embedder: Embedder, log: Callable[[str], None] = print,
                bench_dir: Path | None = BENCH_DIR) -> dict[str, Any]:
    """``size`` generated facts in a new store at ``path``: absorbed below ``BULK_FROM``, bulk-written from it."""
    from benchmarks import bulk

    started = time.perf_counter()
    made = Generator(seed=size, size=size).memory(size)
    generate_seconds = time.perf_counter() - started
    vectors = composed(made, embedder, bench_dir, log)
    partial = path.with_name(path.name + ".partial")
    for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        leftover.unlink(missing_ok=True)
    if size >= BULK_FROM:
        outcomes = bulk.write(partial, made, vectors, log=log)
        how = "bulk"
    else:
        outcomes = absorb_store(partial, made, vectors, log)
        how = "absorb"
    with Memory(partial, Settings(), clock=fixed_clock(NOW), actor="bench") as memory:
        stats = memory.stats()
    os.replace(partial, path)
    meta = {"size": size, "build_seconds": round(time.perf_counter() - started, 1), "built_by": how,
            "generate_seconds": round(generate_seconds, 1), "outcomes": dict(outcomes),
            "outcome_mix": outcome_mix(list(Counter(outcomes).elements())),
            "planned_mix": outcome_mix([p.outcome for p in made.planned]),
            "subjects": vocabulary(size), "facts": stats["facts"],
            "active": stats["by_status"].get("active", 0), "generator_version": GENERATOR_VERSION,
            "vectors": "composed from embedded pieces (benchmarks.synthetic.compose_vectors)"}
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
    return path, {**build_store(path, size, embedder(), log, bench_dir), "cached": False}


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
