"""Random values judged by the words just before them, for providers no table names.

A provider nobody wrote a rule for still leaves two traces: a random value
and, a few words before it, either a credential word (``"apiKey": ...``,
``X-Auth: ...``, ``key -> ...``) or the provider's own name (``abyssale: ...``,
``api.abyssale.com/v1/...``: the catalogues' names, ``VENDOR_NAMES``). The
nearest decisive identifier wins, reading backwards: ``public_key``,
``commit_sha``, ``csrf_token`` or ``key_id`` before a value veto it, whatever
comes earlier. A quoted value with no such word is reported only if it is
random beyond doubt (``Knobs.bare_*``; an unquoted one standing alone only if
``Knobs.bare_unquoted``). In a URL only a credential word counts: a provider's
own links carry ids (``open.spotify.com/track/...``). Also here: which identifiers announce a
secret at all (``keyword_kind``), shared with ``engine.secrets``.
"""

from __future__ import annotations

import bisect
import re

from engine.absorb import secret_rules as R
from engine.absorb.secret_catalogue import VENDOR_NAMES
from engine.absorb.secret_entropy import Knobs, bare_random, near_random

WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# Candidate values: a run of key characters, base64 padding at most at its end.
_VALUE = re.compile(r"(?<![A-Za-z0-9_+/=.~-])[A-Za-z0-9_+/.~-]{12,}={0,3}")
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_HOSTNAME = re.compile(r"\.[a-z]{2,6}$|^(?:www|api)\.")
_PASSWORD_FIELDS = frozenset("pass pw pwd passwd".split())
_FIELD = re.compile(r"""[\\"']*\s*[:=]""")
_URL_KEYWORD = re.compile(r"(?i)key|token|secret|pass|pw|auth|cred|hook")
_BLOB_LINE = re.compile(r"[A-Za-z0-9+/=_-]{40,}[ \t\r]*\n[ \t]*$")
_HOOK_WORDS = frozenset("webhook webhooks hook hooks webhookb2 incomingwebhook".split())
# A value standing alone (``bare_unquoted``): the text's start or a space before it, an end after it.
_ALONE_BEFORE = frozenset(["", " ", "\t", "\n", "(", "[", ",", "=", "?", "&"])
_ALONE_AFTER = frozenset(["", " ", "\t", "\r", "\n", ")", "]", ",", ";", "&", "."])
_ID_HEAD = re.compile(r"\d{3,16}:$")
_HEXISH = re.compile(r"(?:[A-Za-z]{2,12}[-_])?(?:[0-9a-f]+|[0-9A-F]+)")
_ELIDED = ("..", "\u2026", "***", "[redacted", "[REDACTED", "<redacted")
_MIXED = re.compile(r"[0-9A-Z]")  # a digit, or a capital after the first character
# Words that make a random value something other than a credential.
VETO_WORDS = frozenset("""
public pub publishable id ids uuid guid sha sha1 sha256 sha512 md5 hash hashes checksum digest commit rev revision
srcrev signature sig fingerprint thumbprint nonce salt iv csrf xsrf authenticity etag integrity version ver build
branch ref cursor page trace request correlation tx txid txn address addr wallet block user username email name
file filename path dir url uri href link image img icon avatar color colour font css class style locale lang
sum crc serial event issue span incident
""".split())
# Words that sound like a credential: an identifier holding one that ``keyword_kind``
# still rejects (``primaryKey``, ``max_tokens``, ``token_type``) is a veto, not neutral.
_CREDENTIALISH = frozenset("key keys token tokens secret secrets auth authorization bearer credential credentials "
                           "creds password passwd pwd pass pw apikey".split())


def keyword_kind(ident: str) -> str | None:
    """``"password"``, ``"token"`` or ``None``: what the identifier announces."""
    words = [w.lower() for w in WORDS.findall(ident)]
    kind, last = None, -1
    for i, word in enumerate(words):
        found = _word_kind(word, words[i - 1] if i else "", len(words) - i - 1)
        if found:
            kind = "password" if "password" in (kind, found) else found
            last = i
    trailing = [w for w in words[last + 1:] if not w.isdigit()]
    # The keyword must head the name: ``db_password_secure`` yes, ``TokenClassificationModel`` no.
    if kind is None or len(trailing) > 2 or any(w in R.TRAILING_STOP_WORDS for w in trailing):
        return None
    if "public" in words or "publishable" in words:
        return None  # public keys and tokens are meant to be shared
    return kind


def _word_kind(word: str, before: str, after: int) -> str | None:
    if word in R.SHORT_PASSWORD_WORDS:
        # "pass" and "pw" are verbs and abbreviations too: only ``db_pass``, ``sl_pass_secure``.
        return "password" if before and after <= 1 else None
    if word in R.PASSWORD_WORDS or word.endswith(R.PASSWORD_SUFFIXES):
        return "password"
    if word == "key":
        return "token" if before and before not in R.KEY_STOP_QUALIFIERS else None
    if word in R.TOKEN_WORDS or word.endswith(R.TOKEN_SUFFIXES):
        return None if before in R.TOKEN_STOP_QUALIFIERS else "token"
    return None


def context_hits(text: str, spans: list[tuple[int, int]], knobs: Knobs,
                 judged: list[tuple[int, int]] = ()) -> list[tuple[int, int, str]]:
    """``(start, end, rule)`` of random values after a credential word or a provider name,
    and of quoted values random enough to need neither, searched inside the token runs ``spans``.

    Values inside ``judged`` spans (sorted literals the keyword judge already ruled on,
    either way) are left to that judgement.
    """
    out = []
    starts = [s for s, _ in judged]
    for span_start, span_end in spans:
        for m in _VALUE.finditer(text, span_start, span_end):
            path, pieces = _pieces(text, m.start(), m.end())
            for start, end in pieces:
                i = bisect.bisect_right(starts, start) - 1
                if i >= 0 and end <= judged[i][1]:
                    continue
                if path and (_HEXISH.fullmatch(text, start, end) or not _URL_KEYWORD.search(text, m.start(), start)):
                    continue  # a page id or a commit in a URL path (``/commit/3f78...``); no credential word
                rule = _judge(text, start, end, knobs, m.start() if path else -1)
                if rule is not None and rule not in knobs.disabled:
                    out.append((start, end, rule))
    return out


def _pieces(text: str, start: int, end: int) -> tuple[bool, list[tuple[int, int]]]:
    """Whether the run is a path or URL, and the spans to judge: the run itself, or its
    segments (``api.x.com/v1/<token>``)."""
    while end > start and text[end - 1] in ".-~":
        end -= 1  # sentence punctuation
    run = text[start:end]
    if "/" not in run or not (run.startswith("/") or "." in run.split("/", 1)[0]):
        return False, [(start, end)]
    pieces, pos = [], start
    for segment in run.split("/"):
        if len(segment) >= 12:
            pieces.append((pos, pos + len(segment)))
        pos += len(segment) + 1
    return True, pieces


def _judge(text: str, start: int, end: int, knobs: Knobs, url_start: int) -> str | None:
    """The rule that reports ``text[start:end]``, if any; ``url_start`` is where the URL holding
    this path segment begins (its host and path are the segment's context), or -1."""
    value = text[start:end]
    # Cheapest tests first.
    if not _MIXED.search(value, 1) or _HOSTNAME.search(value) or text.startswith(_ELIDED, end):
        return None  # ``ops_eyJz...``: a redacted or shortened value shows only its harmless head
    if text.startswith("(", end):
        return None  # ``token = floatToFixedToStr(token)``: a call
    if (value.startswith(R.KNOWN_VALUE_PREFIXES) and knobs.pinned_prefixes) or R.OBJECT_ID.fullmatch(value):
        return None  # judged by its own format rule; a Stripe object id (``evt_1N...``)
    context, ident = _context(text, start, knobs, url_start)
    if context == "veto" or (url_start >= 0 and context != "keyword"):
        return None  # a provider's own URL path holds ids (``open.spotify.com/track/4uLU...``), not keys
    if context is None:
        before, after = text[start - 1:start], text[end:end + 1]
        quoted = before and before in "'\"`" and after == before
        alone = knobs.bare_unquoted and before in _ALONE_BEFORE and after in _ALONE_AFTER
        return "high-entropy-string" if (quoted or alone) and bare_random(value, knobs) else None
    if not near_random(value, knobs):
        return None
    strict = _strict_shape(ident, knobs)
    if strict is None:
        return f"{context}-context"
    # A provider with a published shape (``telegram``: ``<bot id>:<35 characters>``) decides alone.
    head = _ID_HEAD.search(text, max(0, start - 17), start)
    return strict[1] if strict[0].fullmatch(text, head.start() if head else start, end) else None


def _strict_shape(ident: str, knobs: Knobs) -> tuple[re.Pattern[str], str] | None:
    words = {w.lower() for w in WORDS.findall(ident)}
    compact = re.sub(r"[^a-z]", "", ident.lower())
    for word, shape, rule, strict in R.CONTEXT_FORMATS:
        if strict and rule not in knobs.disabled and (word in words or (len(word) > 6 and word in compact)):
            return shape, rule
    return None


def _context(text: str, start: int, knobs: Knobs, url_start: int = -1) -> tuple[str | None, str]:
    """``"keyword"``, ``"vendor"``, ``"veto"`` or ``None``, and the identifier that decided:
    the nearest decisive identifier before ``start``."""
    window = text[max(0, min(start - knobs.window, url_start if url_start >= 0 else start)):start]
    if _BLOB_LINE.search(window):
        return None, ""  # the value opens a line after a line of base64: more of the same blob
    cut = window.rfind("\n", 0, window.rfind("\n"))  # at most one line break back
    if cut >= 0:
        window = window[cut + 1:]
    for m in reversed(list(_IDENT.finditer(window))):
        ident = m.group().strip("._-")
        if not ident:
            continue
        if len(ident) >= 10 and R.mean_chunk(ident) <= 2.5:
            return None, ""  # data, not a label: the line before is more of a base64 blob or a key
        if keyword_kind(ident) is not None or (ident.lower() in _PASSWORD_FIELDS and _FIELD.match(window, m.end())):
            return "keyword", ident  # ``"pass": "..."``: a password field, though ``pass`` alone is a verb too
        words = [w.lower() for w in WORDS.findall(ident)]
        if any(w in VETO_WORDS for w in words) or (len(words) > 1 and any(w in _CREDENTIALISH for w in words)):
            return "veto", ident  # ``commit_sha``; ``primaryKey``, ``max_tokens`` (a lone ``key`` reads on)
        if any(w in _HOOK_WORDS for w in words):
            return "keyword", ident  # ``hooks.example.com/services/...``: whoever has the URL can post
        if _names_vendor(ident, words, knobs.blind_vendors):
            return "vendor", ident
    return None, ""


def _names_vendor(ident: str, words: list[str], blind: frozenset[str]) -> bool:
    if any(w in VENDOR_NAMES and w not in blind for w in words):
        return True
    compact = re.sub(r"[^a-z0-9]", "", ident.lower())
    if len(compact) < 6 or compact.isdigit():
        return False
    # ``shopifytoken``, ``myshopify``: a long provider name heading or ending a run-together
    # identifier (not inside one: ``ReactNativeCameraKit`` does not name Meraki).
    return any(name in VENDOR_NAMES and name not in blind
               for n in range(6, min(len(compact), 24) + 1) for name in (compact[:n], compact[-n:]))
