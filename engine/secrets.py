"""Credential detection for incoming fact text.

The engine refuses to store a fact that carries a secret (an API key, a
password, a private key), so this scan runs on every write. It has to be fast
on ordinary prose and conservative: a false positive refuses a user's memory.
Three families of evidence are combined:

* self-identifying formats (``ghp_...``, ``AKIA...``, JWTs, vendor-prefixed
  random tokens), listed in ``engine.secret_rules``;
* a secret-sounding identifier assigned a literal (``api_key = "..."``,
  ``"token": "..."``, ``<dbPassword>...</dbPassword>``): templates and
  placeholders never count, and keys and tokens must also look random;
* credentials in PEM blocks, URLs, ``curl -u`` and ``Authorization`` headers.

Findings carry a rule name and a character span, never the value itself.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from engine import secret_rules as R


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """Where a credential sits in a text. Deliberately holds no copy of it."""

    rule: str
    start: int
    end: int


# When two findings overlap, a named format beats a heuristic.
_PRIO_FORMAT, _PRIO_CONTEXT, _PRIO_KEYWORD, _PRIO_FALLBACK = range(4)
_Hit = tuple[int, int, int, str]  # (priority, start, end, rule)

_PREFIX_RE = re.compile("|".join(f"(?P<r{i}>{r.pattern})" for i, r in enumerate(R.PREFIX_RULES)), re.ASCII)
# Runs of token characters long enough to hold a credential; prose has few.
# The byte table answers "is there any such run?" without a regex scan.
_TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.~:|@-"
_RUN_TABLE = bytes(1 if i in _TOKEN_CHARS else 0 for i in range(256))
_RUN = b"\x01" * 12
_CANDIDATE = re.compile(r"[A-Za-z0-9_+/=.~:|@-]{12,}")
# Every format has a digit, an inner capital or a symbol; long plain words do not.
_NOT_A_WORD = re.compile(r"[0-9A-Z_+/=~|@:]")
_STEMS = ("pass", "pw", "secre", "token", "key", "auth", "cred")
_STEM = re.compile("|".join(_STEMS))
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_IDENT_TAIL = re.compile(r"[\w.-]*", re.ASCII)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# What may follow a secret-sounding identifier: an operator of some language,
# an XML element, a call, or a bare space (CLI flags, ``password "x"``).
_ASSIGN = re.compile(
    r"""(?:["'`]?\]?["'`]?)(?:\[\d*\])?(?:[ \t]+(?:string|String|str|&str))?
    (?:[ \t]*(?P<op>:::=|::=|:=|\?=|\.=|\+=|=>|===|!==|==|!=|=|:|,)[ \t]*
      |(?P<call>(?:\.\w+)?\([ \t]*)|(?P<tag>>\s*)|(?P<sp>[ \t]+))
    (?:(?:@|[rbuf]|u8)(?=["'`]))?(?:(?:Bearer|Basic|Token|token|Bot)[ \t]+)?
    (?:(?P<q>["'`])(?P<qv>[^\n]{0,500}?)(?P=q)|(?P<uv>[^\s"'`;\\<]{1,500}))""",
    re.VERBOSE | re.ASCII,
)
_REVERSE = re.compile(r"""(["'])([^"'\n]{1,300})\1\s*[!=]==?\s*$""")
_SCHEMES = ("Bearer ", "Basic ", "Token ")
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_PEM = re.compile(r"-----BEGIN[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----(?P<body>.*?)(?:-----END[A-Z0-9 ]*-----|$)",
                  re.DOTALL)
_URL_CREDS = re.compile(r"\b[a-zA-Z][\w+.-]{1,20}://[^\s:/@'\"<>]*:(?P<pw>[^\s:/@'\"<>]+)@(?=[\w.\[-])")
_CURL_USER = re.compile(r"""(?:^|\s)(?:-u|--user)(?:\s+|=)(?P<q>["']?)(?P<cred>[^\s"']*:(?P<pw>[^\s"']+))(?P=q)""")
_BEARER = re.compile(r"\b(?:Bearer|Basic)\s+(?P<v>[A-Za-z0-9._~+/=-]{16,})")


def find_secrets(text: str) -> list[SecretFinding]:
    """Every credential found in ``text``, sorted by start, never overlapping."""
    if not text:
        return []
    # Cheap gates first: ordinary prose usually fails all three in a few microseconds.
    hits = _context_hits(text)
    if _RUN in text.encode("utf-8", "surrogatepass").translate(_RUN_TABLE):
        hits += _format_hits(text)
    lowered = text.lower()
    for stem in _STEMS:
        if stem in lowered:
            hits += _keyword_hits(text, lowered)
            break
    return _resolve(hits) if hits else []


def first_secret(text: str) -> SecretFinding | None:
    """The earliest credential in ``text``, or ``None`` (the check on every write)."""
    found = find_secrets(text)
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


def _format_hits(text: str) -> list[_Hit]:
    out = []
    for cand in _CANDIDATE.finditer(text):
        if not _NOT_A_WORD.search(text, cand.start() + 1, cand.end()):
            continue
        for m in _PREFIX_RE.finditer(text, cand.start(), cand.end()):
            rule = R.PREFIX_RULES[int(m.lastgroup[1:])]
            if _format_ok(rule.check, m.group()):
                out.append((_PRIO_FORMAT, m.start(), m.end(), rule.name))
        for m in R.PREFIXED_TOKEN.finditer(text, cand.start(), cand.end()):
            if _vendor_token(m):
                out.append((_PRIO_FALLBACK, m.start(), m.end(), "prefixed-token"))
    return out


def _format_ok(check: str, token: str) -> bool:
    if check == "jwt":
        return R.is_jwt(token)
    if check == "slack":
        return sum(c.isdigit() for c in token) >= 4 and "xxx" not in token.lower()
    if check == "artifactory":
        return any(c.islower() or c.isdigit() for c in token[3:])
    if check == "mixed":
        return R.char_classes(token) >= 3 and not R.is_placeholder(token)
    if check == "random":
        return R.looks_random(token)
    return check != "placeholder" or not R.is_placeholder(token)


def _vendor_token(m: re.Match[str]) -> bool:
    if m.group("prefix").lower() in R.NON_VENDOR_PREFIXES or m.group().startswith(R.KNOWN_VALUE_PREFIXES):
        return False
    return R.random_body(m.group("body"))


# --- credentials in PEM blocks, URLs, curl and headers --------------------


def _context_hits(text: str) -> list[_Hit]:
    out = []
    if "PRIVATE KEY" in text:
        # An empty or one-word block is a template; a real (even cut) key has a body.
        out += [(_PRIO_CONTEXT, m.start(), m.end(), "private-key-block") for m in _PEM.finditer(text)
                if len(re.sub(r"[\s-]", "", m.group("body"))) >= 12]
    if "://" in text:
        out += [(_PRIO_CONTEXT, m.start("pw"), m.end("pw"), "url-credentials") for m in _URL_CREDS.finditer(text)
                if R.is_literal(m.group("pw")) and not _masked(m.group("pw"))]
    if "-u" in text:
        out += [(_PRIO_CONTEXT, m.start("pw"), m.end("pw"), "curl-credentials") for m in _CURL_USER.finditer(text)
                if R.is_literal(m.group("cred")) and R.password_like(m.group("pw"), quoted=False)]
    if "earer" in text or "Basic" in text:
        out += [(_PRIO_CONTEXT, m.start("v"), m.end("v"), "bearer-token") for m in _BEARER.finditer(text)
                if R.looks_random(m.group("v"))]
    return out


def _masked(password: str) -> bool:
    """``user:****@host`` or ``user:xxx@host``: the password was already removed."""
    low = password.lower()
    return "xxx" in low or not any(c.isalnum() for c in low)


# --- identifier = value ---------------------------------------------------


def _keyword_hits(text: str, lowered: str) -> list[_Hit]:
    out = []
    done = 0
    for stem in _STEM.finditer(lowered):
        if stem.start() < done:
            continue  # inside an identifier or a literal already parsed
        start, end = _ident_bounds(text, stem.start())
        done = end
        kind = _keyword_kind(text[start:end].strip(".-"))
        if kind is not None:
            hit, done = _assigned_value(text, start, end, kind)
            if hit is not None:
                out.append((_PRIO_KEYWORD, *hit))
    return out


def _ident_bounds(text: str, pos: int) -> tuple[int, int]:
    start = pos
    while start > 0 and text[start - 1] in _IDENT_CHARS:
        start -= 1
    end = _IDENT_TAIL.match(text, pos).end()
    while end > start and text[end - 1] in ".-":
        end -= 1
    return start, end


def _keyword_kind(ident: str) -> str | None:
    """``"password"``, ``"token"`` or ``None``: what the identifier announces."""
    words = [w.lower() for w in _WORDS.findall(ident)]
    kind, last = None, -1
    for i, word in enumerate(words):
        found = _word_kind(word, words[i - 1] if i else "")
        if found:
            kind = "password" if "password" in (kind, found) else found
            last = i
    if kind is None or any(w in R.TRAILING_STOP_WORDS for w in words[last + 1:]):
        return None
    return kind


def _word_kind(word: str, before: str) -> str | None:
    if word in R.PASSWORD_WORDS or word.endswith(R.PASSWORD_SUFFIXES):
        return "password"
    if word == "key":
        return "token" if before and before not in R.KEY_STOP_QUALIFIERS else None
    if word in R.TOKEN_WORDS or word.endswith(R.TOKEN_SUFFIXES):
        return None if before in R.TOKEN_STOP_QUALIFIERS else "token"
    return None


def _assigned_value(text: str, start: int, end: int, kind: str) -> tuple[tuple | None, int]:
    """The (start, end, rule) of the literal bound to ``text[start:end]``, and where parsing stopped.

    Keyword stems inside a consumed literal are data, not identifiers, so the
    caller resumes after it.
    """
    ident = text[start:end]
    m = _ASSIGN.match(text, end)
    if m is None or not _form_ok(m, text[start - 1] if start else "", ident.startswith("-")):
        return _reverse_value(text, start, ident, kind), end
    group = "qv" if m.group("q") else "uv"
    vstart, value = m.start(group), m.group(group)
    if group == "qv" and value.startswith(_SCHEMES) and value.count(" ") == 1:
        vstart, value = vstart + value.index(" ") + 1, value[value.index(" ") + 1:]
    if group == "uv":
        value = _strip_unbalanced(value.rstrip(","))
        if text.startswith(";", vstart + len(value)) or m.group("op") == "=>" or R.CODE_VALUE.match(value):
            return None, m.end()  # an expression in code, not a literal
    rule = _judge(value, ident, kind, quoted=group == "qv")
    return ((vstart, vstart + len(value), rule) if rule else None), m.end()


def _strip_unbalanced(value: str) -> str:
    """Drop closing brackets that belong to the surrounding code, not the value."""
    while value and value[-1] in _CLOSERS and value.count(value[-1]) > value.count(_CLOSERS[value[-1]]):
        value = value[:-1]
    return value


def _form_ok(m: re.Match[str], before: str, cli: bool) -> bool:
    """Whether this syntax really binds the value to the identifier."""
    quoted = bool(m.group("q"))
    if m.group("op") == ",":
        return quoted and before in "\"'"  # setProperty("X_TOKEN", "v")
    if m.group("call") is not None:
        return quoted
    if m.group("tag") is not None:
        return before == "<"
    if m.group("sp") is not None:
        return quoted or cli
    return True


def _reverse_value(text: str, start: int, ident: str, kind: str) -> tuple[int, int, str] | None:
    """``if ("literal" == password)``: the literal before a comparison."""
    if not text[max(0, start - 6):start].rstrip().endswith("="):
        return None
    m = _REVERSE.search(text, max(0, start - 320), start)
    rule = _judge(m.group(2), ident, kind, quoted=True) if m else None
    return (m.start(2), m.end(2), rule) if rule else None


def _judge(value: str, ident: str, kind: str, quoted: bool) -> str | None:
    """The rule name if ``value`` is a real secret for this identifier, else ``None``."""
    compact = re.sub(r"[^a-z]", "", ident.lower())
    for word, shape, rule, strict in R.CONTEXT_FORMATS:
        if word in compact:
            if shape.fullmatch(value):
                return rule
            if strict:
                return None
            break  # the first provider named decides; lenient ones fall back to the generic tests
    if kind == "password":
        return "password-assignment" if R.password_like(value, quoted) else None
    if value.startswith(R.KNOWN_VALUE_PREFIXES):
        return None  # judged by its own format rule
    return "secret-assignment" if R.looks_random(value) else None
