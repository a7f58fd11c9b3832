"""Credential detection for incoming fact text.

The engine refuses to store a fact that carries a secret, so this scan runs on
every write: it must be fast on prose and conservative, since a false positive
refuses a user's memory. Evidence, strongest first:

- self-identifying formats (``ghp_...``, ``AKIA...``, JWTs; ``engine.absorb.secret_rules``
  and the catalogue-derived ``engine.absorb.secret_catalogue``);
- structure: PEM blocks, headerless private keys, Kubernetes ``Secret`` data,
  connection strings, credentials in URLs, ``curl -u`` and ``Authorization``
  headers (here and in ``engine.absorb.secret_structure``);
- a secret-sounding identifier bound to a literal (``api_key = "..."``,
  ``"token": "..."``; never a template or placeholder, and keys must look random);
- for providers no table names: a random value after a credential word or a
  provider's name, or a quoted value random beyond doubt (``engine.absorb.secret_context``,
  judged by ``engine.absorb.secret_entropy``).

Zero-width characters and soft hyphens are removed before the scan (a key split
by U+200B is still a key); spans point into the original text. Findings carry a
rule name and a character span, never the value itself.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

from engine.absorb import secret_rules as R
from engine.absorb.secret_context import WORDS as _WORDS
from engine.absorb.secret_context import context_hits, keyword_kind
from engine.absorb.secret_entropy import DEFAULT_KNOBS, Knobs
from engine.absorb.secret_prose import documented_example, prose_hits
from engine.absorb.secret_structure import structure_hits


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """Where a credential sits in a text. Deliberately holds no copy of it."""

    rule: str
    start: int
    end: int


# When two findings overlap, a named format beats a heuristic.
_PRIO_FORMAT, _PRIO_CONTEXT, _PRIO_KEYWORD, _PRIO_FALLBACK = range(4)
# Invisible characters that split a pasted key without changing what it opens.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]+")
_Hit = tuple[int, int, int, str]  # (priority, start, end, rule)

# Runs of token characters long enough to hold a credential; prose has few.
# The byte table answers "is there any such run?" without a regex scan.
_RUN_TABLE = bytes(chr(i) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.~:|@-"
                   for i in range(256))
_RUN = b"\x01" * 12
_CANDIDATE = re.compile(r"[A-Za-z0-9_+/=.~:|@-]{12,}")
# Every format has a digit, an inner capital or a symbol; long plain words do not.
_NOT_A_WORD = re.compile(r"[0-9A-Z_+/=~|@:]")
_TOKEN_SEP = re.compile(r"[=:|@/.]+")
_STEMS = (b"pass", b"pw", b"secre", b"token", b"key", b"auth", b"cred")
_STEM = re.compile(b"|".join(_STEMS))
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_IDENT_TAIL = re.compile(r"[\w.-]*", re.ASCII)
_PROSE_QUALIFIER = re.compile(r"(?i)\b(api|access|secret|private|auth|license|signing|bot|refresh|deploy) $")
# What may follow a secret-sounding identifier: an operator of some language,
# an XML element, a call, "is" in prose, or a bare space (``--api-key X``, ``password "x"``).
_ASSIGN = re.compile(
    r"""(?:["'`]?\]?["'`]?)(?:\[\d*\])?(?:[ \t]+(?:string|String|str|&str))?
    (?:[ \t]*(?P<op>:::=|::=|:=|\?=|\.=|\+=|=>|===|!==|==|!=|=|:(?!:)|,)[ \t]*
      |(?P<call>(?:\.\w+)?\([ \t]*)|(?P<tag>>\s*)|(?P<verb>[ \t]+(?:is|was)(?:[ \t]+now)?[ \t]+)
      |(?P<sp>[ \t]+))
    (?:(?P<sprefix>@|[rbuf]|u8)(?=["'`]))?(?:(?:Bearer|Basic|Token|token|Bot)[ \t]+)?
    (?:(?P<q>["'`])(?P<qv>[^\n]{0,500}?)(?P=q)|(?P<uv>[^\s"'`;\\<]{1,500}))""",
    re.VERBOSE | re.ASCII,
)
_REVERSE = re.compile(r"""(["'])([^"'\n]{1,300})\1\s*[!=]==?\s*$""")
_SCHEMES = ("Bearer ", "Basic ", "Token ")
_CLOSING_TAG = re.compile(r"\s*</")
_STATEMENT_END = re.compile(r"[ \t]*[;,)]?[ \t]*(?:\r?\n|$)")
_COMPARISONS = frozenset({"==", "!=", "===", "!=="})
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_PEM = re.compile(r"-----BEGIN[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----(?P<body>.*?)(?:-----END[A-Z0-9 ]*-----|$)",
                  re.DOTALL)
_URL_CREDS = re.compile(r"\b[a-zA-Z][\w+.-]{1,20}://(?P<user>[^\s:/@'\"<>]*):(?P<pw>[^\s:/@'\"<>]+)@(?=[\w.\[-])")
_CURL_USER = re.compile(r"""(?:^|\s)(?:-u|--user)(?:\s+|=)(?P<q>["']?)(?P<cred>[^\s"']*:(?P<pw>[^\s"']+))(?P=q)""")
_BEARER = re.compile(r"\b(?:Bearer|Basic)\s+(?P<v>[A-Za-z0-9._~+/=-]{16,})")


def find_secrets(text: str) -> list[SecretFinding]:
    """Every credential found in ``text``, sorted by start, never overlapping."""
    return scan(text, DEFAULT_KNOBS)


def scan(text: str, knobs: Knobs) -> list[SecretFinding]:
    """``find_secrets`` with explicit thresholds and rules switched off (the benchmark's protocols)."""
    if not text:
        return []
    if not text.isascii():
        return _scan_normalised(text, knobs)
    return _scan(text, knobs)


def _scan_normalised(text: str, knobs: Knobs) -> list[SecretFinding]:
    """Scan ``text`` as NFKC makes it (full-width ``ｇｈｐ＿…`` is ``ghp_…`` to whoever pastes it
    on), without the invisible characters that split a key; spans map back to ``text``."""
    pieces, origin = [], []
    for i, ch in enumerate(text):
        if _INVISIBLE.match(ch):
            continue
        folded = unicodedata.normalize("NFKC", ch) if ord(ch) >= 0x80 else ch
        if not (folded.isascii() and folded.isprintable() and " " not in folded):
            folded = ch  # only what folds to plain ASCII ("ｇ" to "g"); "¨" would become a space
        pieces.append(folded)
        origin += [i] * len(folded)
    normalised = "".join(pieces)
    if normalised == text:
        return _scan(text, knobs)
    return [SecretFinding(f.rule, origin[f.start], origin[f.end - 1] + 1) for f in _scan(normalised, knobs)]


def _scan(text: str, knobs: Knobs) -> list[SecretFinding]:
    # Cheap gates first: ordinary prose usually fails all of them in a few microseconds.
    hits = _context_hits(text)
    has_run = _RUN in text.encode("utf-8", "surrogatepass").translate(_RUN_TABLE)
    found = structure_hits(text, has_run)
    if found:
        hits += [(_PRIO_CONTEXT, *hit) for hit in found]
    # ASCII-only lowering keeps one byte per character, so offsets stay valid ("İ".lower() would not).
    lowered = text.encode("ascii", "replace").lower()
    judged: list[tuple[int, int, str | None]] = []
    for stem in _STEMS:
        if stem in lowered:
            judged = _keyword_hits(text, lowered, knobs)
            hits += [(_PRIO_KEYWORD, *hit) for hit in judged if hit[2]]
            break
    if has_run:
        spans = _token_runs(text)
        if spans:
            hits += _format_hits(text, spans, knobs)
            # A literal the keyword judge ruled on (a strict provider shape not met, a prefix pinned
            # by a format) is not judged again, in part, by the context heuristics.
            ruled = sorted((start, end) for start, end, _ in judged)
            hits += [(_PRIO_FALLBACK, *hit) for hit in context_hits(text, spans, knobs, ruled)]
    # Forms people write in prose (secret_prose): a literal the keyword judge already ruled on
    # (``api_key = "…"`` judged a name or a template) is its decision, not a labelled value's.
    ruled_spans = [(start, end) for start, end, _ in judged]
    # ``provider-prefix`` is a provider's own rule: an experiment that unpins prefixes (the benchmark's
    # provider-blind protocol) leaves only the generic evidence.
    hits += [(_PRIO_CONTEXT, *hit) for hit in prose_hits(text)
             if (hit[2] != "labelled-secret" or not any(s < hit[1] and hit[0] < e for s, e in ruled_spans))
             and (hit[2] != "provider-prefix" or knobs.pinned_prefixes)]
    if knobs.disabled:
        hits = [hit for hit in hits if hit[3] not in knobs.disabled]
    return _resolve(hits) if hits else []


def first_secret(text: str) -> SecretFinding | None:
    """The earliest credential in ``text``, or ``None`` (the check on every write)."""
    found = scan(text, DEFAULT_KNOBS)
    return found[0] if found else None


def _resolve(hits: list[_Hit]) -> list[SecretFinding]:
    """Keep the highest-priority finding wherever spans overlap."""
    starts: list[int] = []
    kept: list[tuple[int, int, str]] = []
    for _prio, start, end, rule in sorted(hits):
        i = bisect.bisect_right(starts, start)
        if (i and kept[i - 1][1] > start) or (i < len(kept) and kept[i][0] < end):
            continue
        starts.insert(i, start)
        kept.insert(i, (start, end, rule))
    return [SecretFinding(rule, start, end) for start, end, rule in kept]


# --- self-identifying formats -------------------------------------------


def _token_runs(text: str) -> list[tuple[int, int]]:
    """Runs of token characters that hold a digit, an inner capital or a symbol (long plain words do not)."""
    return [m.span() for m in _CANDIDATE.finditer(text) if _NOT_A_WORD.search(text, m.start() + 1, m.end())]


def _format_hits(text: str, spans: list[tuple[int, int]], knobs: Knobs) -> list[_Hit]:
    """Try the format table where a token can begin: a run's start or after ``= : | @ / .``.

    Anchored matches keep the cost linear in the text and stop the table from
    finding "keys" in the middle of base64 blobs and hashes.
    """
    out = []
    for start, end in spans:
        for pos in [start, *(sep.end() for sep in _TOKEN_SEP.finditer(text, start, end))]:
            m = R.PREFIX_DISPATCH.get(text[pos:pos + 1], R.PREFIX_ANYWHERE).match(text, pos, end)
            if m is not None:
                rule = R.PREFIX_RULES[int(m.lastgroup[1:])]
                if R.FORMAT_CHECKS[rule.check](m.group()) and not documented_example(m.group()):
                    out.append((_PRIO_FORMAT, m.start(), m.end(), rule.name))
            m = R.PREFIXED_TOKEN.match(text, pos, end)
            if m is not None and _vendor_token(m, knobs):
                out.append((_PRIO_FALLBACK, m.start(), m.end(), "prefixed-token"))
    return out


def _vendor_token(m: re.Match[str], knobs: Knobs) -> bool:
    if m.group("prefix").lower() in R.NON_VENDOR_PREFIXES:
        return False
    if m.group().startswith(R.KNOWN_VALUE_PREFIXES) and knobs.pinned_prefixes:
        return False  # judged by its own format rule (unless an experiment switched those off)
    return R.random_body(m.group("prefix"), m.group("body"))


# --- credentials in PEM blocks, URLs, curl and headers --------------------


def _context_hits(text: str) -> list[_Hit]:
    out = []
    if "PRIVATE KEY" in text:
        # An empty or one-word block is a template; a real (even cut) key has a body.
        out += [(_PRIO_CONTEXT, m.start(), m.end(), "private-key-block") for m in _PEM.finditer(text)
                if len(re.sub(r"[\s-]", "", m.group("body"))) >= 12]
    if "://" in text:
        out += [(_PRIO_CONTEXT, m.start("pw"), m.end("pw"), "url-credentials") for m in _URL_CREDS.finditer(text)
                if R.is_literal(m.group("pw")) and not _masked(m)]
    if "-u" in text:
        out += [(_PRIO_CONTEXT, m.start("pw"), m.end("pw"), "curl-credentials") for m in _CURL_USER.finditer(text)
                if R.is_literal(m.group("cred")) and R.password_like(m.group("pw"), quoted=True)]
    if "earer" in text or "Basic" in text:
        out += [(_PRIO_CONTEXT, m.start("v"), m.end("v"), "bearer-token") for m in _BEARER.finditer(text)
                if R.looks_random(m.group("v"))]
    return out


def _masked(m: re.Match[str]) -> bool:
    """``user:****@``, ``user:xxx@``, ``user:password@``, ``postgres:postgres@``: no real password."""
    password = m.group("pw")
    return R.is_placeholder(password) or not any(c.isalnum() for c in password) or password == m.group("user")


# --- identifier = value ---------------------------------------------------


def _keyword_hits(text: str, lowered: bytes, knobs: Knobs) -> list[tuple[int, int, str | None]]:
    """``(start, end, rule)`` of every literal bound to a secret-sounding identifier; ``rule`` is
    ``None`` where the literal was judged not to be a secret."""
    out = []
    done = 0
    for stem in _STEM.finditer(lowered):
        if stem.start() < done:
            continue  # inside an identifier or a literal already parsed
        start, end = _ident_bounds(text, stem.start())
        done = end
        kind = keyword_kind(_with_prose_qualifier(text, start, text[start:end].strip(".-")))
        if kind is not None:
            hit, done = _assigned_value(text, start, end, kind, knobs)
            if hit is not None:
                out.append(hit)
    return out


def _ident_bounds(text: str, pos: int) -> tuple[int, int]:
    start = pos
    while start > 0 and text[start - 1] in _IDENT_CHARS:
        start -= 1
    end = _IDENT_TAIL.match(text, pos).end()
    while end > start and text[end - 1] in ".-":
        end -= 1
    return start, end


def _with_prose_qualifier(text: str, start: int, name: str) -> str:
    """``API key``, ``access token``: in prose the qualifier is a separate word."""
    m = _PROSE_QUALIFIER.search(text, max(0, start - 16), start)
    return f"{m.group(1)}_{name}" if m and name.isalpha() else name


def _assigned_value(text: str, start: int, end: int, kind: str, knobs: Knobs) -> tuple[tuple | None, int]:
    """The (start, end, rule) of the literal bound to ``text[start:end]`` (``rule`` ``None``: judged
    not a secret), and where parsing stopped: keyword stems inside a consumed literal are data,
    so the caller resumes after it."""
    ident = text[start:end]
    m = _ASSIGN.match(text, end)
    if m is None or not _form_ok(m, text, text[start - 1] if start else "", ident.startswith("-")):
        return _reverse_value(text, start, ident, kind, knobs), end
    if m.group("op") == ",":
        kind = "token"  # ("pwd", "Quit") is a list of words far more often than a login
    if m.group("sprefix") == "r":
        return None, m.end()  # a raw string: a regex pattern, not a credential
    group = "qv" if m.group("q") else "uv"
    vstart, value = m.start(group), m.group(group)
    if group == "qv" and value.startswith(_SCHEMES) and value.count(" ") == 1:
        vstart, value = vstart + value.index(" ") + 1, value[value.index(" ") + 1:]
    if group == "uv":
        value = _unquoted_literal(text, m, vstart)
        if value is None:
            return None, m.end()
        if text[start - 1:start] in ("?", "&"):
            value = value.split("&", 1)[0].split("#", 1)[0]  # a URL query parameter ends at the next one
    return (vstart, vstart + len(value), _judge(value, ident, kind, group == "qv", knobs)), m.end()


def _unquoted_literal(text: str, m: re.Match[str], vstart: int) -> str | None:
    """An unquoted value minus the surrounding code's brackets; ``None`` if it is code itself."""
    value = m.group("uv").rstrip(",:.!?")  # sentence punctuation after a value in prose is not part of it
    while value and (value[-1] == "(" or value[-1] in _CLOSERS
                     and value.count(value[-1]) > value.count(_CLOSERS[value[-1]])):
        value = value[:-1]
    if m.group("op") == "=>" or value[:1] in "[({" or R.CODE_VALUE.match(value):
        return None  # ``k => v``, ``[a, b]``, ``getenv(...)``: an expression
    if text.startswith(";", vstart + len(value)):
        return None  # ``x = other;``
    if m.group("tag") is not None and not _CLOSING_TAG.match(text, vstart + len(value)):
        return None  # ``<password>`` inside a URL, not an element
    return value


def _form_ok(m: re.Match[str], text: str, before: str, cli: bool) -> bool:
    """Whether this syntax really binds a literal to the identifier."""
    quoted = bool(m.group("q"))
    op = m.group("op")
    if op == ",":
        return quoted and before in "\"'"  # setProperty("X_TOKEN", "v")
    if op in _COMPARISONS or m.group("call") is not None:
        return quoted  # ``token == other.token`` compares two variables
    if m.group("tag") is not None:
        return before == "<"
    if m.group("sp") is not None:
        # ``--api-key VALUE``, or a whole statement ``password "v";`` (not prose: "pass 'x' to f").
        return cli or (quoted and _STATEMENT_END.match(text, m.end()) is not None)
    return True


def _reverse_value(text: str, start: int, ident: str, kind: str, knobs: Knobs) -> tuple[int, int, str | None] | None:
    """``if ("literal" == password)``: the literal before a comparison."""
    if not text[max(0, start - 6):start].rstrip().endswith("="):
        return None
    m = _REVERSE.search(text, max(0, start - 320), start)
    return (m.start(2), m.end(2), _judge(m.group(2), ident, kind, True, knobs)) if m else None


def _judge(value: str, ident: str, kind: str, quoted: bool, knobs: Knobs) -> str | None:
    """The rule name if ``value`` is a real secret for this identifier, else ``None``."""
    words = {w.lower() for w in _WORDS.findall(ident)}
    compact = re.sub(r"[^a-z]", "", ident.lower())
    for word, shape, rule, strict in R.CONTEXT_FORMATS:
        # Short provider names must be whole words ("ibm", not the middle of "climbMax").
        if rule not in knobs.disabled and (word in words or (len(word) > 6 and word in compact)):
            if shape.fullmatch(value):
                return rule
            if strict:
                return None
            break  # the first provider named decides; lenient ones fall back to the generic tests
    if kind == "password":
        return "password-assignment" if R.password_like(value, quoted) else None
    if value.startswith(R.KNOWN_VALUE_PREFIXES) and knobs.pinned_prefixes:
        return None  # judged by its own format rule (unless an experiment switched those off)
    return "secret-assignment" if R.looks_random(value) else None
