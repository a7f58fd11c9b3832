"""Credentials written as people write them in notes and chat, not as code assigns them.

The keyword judge (``secrets._keyword_hits``) binds a value to the identifier right before it
(``password: x``, ``api_key = "x"``). People also write "the password for the staging database
that Maya set up is x", put passwords in Markdown tables, type ``admin / x``, ``sshpass -p x``,
``mysql -px``, paste a token as a URL's user name, a Zapier hook, an FCM server key, an Ethereum
private key or a BIP-39 seed phrase. Each form here needs its own evidence (a label within a few
words, a table header, a command's password flag, a provider's shape, a checksummed word list), so
prose that merely mentions passwords, commands or hex ids is left alone.

Also here: provider prefixes no key of any other kind starts with (``sk-ant-api03-``,
``github_pat_``, ``sk_live_``) are refused whatever their body's entropy ("AAAA…" is no
less a live key's shape to a scanner downstream), except the documented example values
providers publish (``AKIAIOSFODNN7EXAMPLE``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator

from engine.absorb import secret_rules as R

Hit = tuple[int, int, str]

# A label, then at most twelve words of description on the same line and in the same sentence,
# then the value ("the password for the staging database that Maya set up last week is <value>").
# Password labels take a value a person typed; key labels one a machine made (random).
_PASSWORD_LABEL = re.compile(r"(?i)(?<![A-Za-z0-9])(?:pass(?:word|wd|phrase)|pwd?|login)(?![A-Za-z])")
_PASS_LABEL = re.compile(r"(?i)\bpass\b(?=[ \t]*[:=])|(?<=\buser)\b[^\n]{1,60}?\bpass\b")
_KEY_LABEL = re.compile(r"(?i)(?<![A-Za-z0-9])(?:api[ _-]?key|(?:secret|access|private|license|auth)[ _-]?"
                        r"(?:access[ _-])?key|secret|token|credentials?)(?![A-Za-z])")
_MAX_GAP_WORDS = 12
_TOKEN = re.compile(r"\S+")
_QUOTES = "'\"`“”‘’()[]{}<>"
# A value people type as a password or paste as a key: letters and digits mixed, or with symbols.
_SYMBOLS = set("!@#$%^&*+=?~")

_TABLE_ROW = re.compile(r"^[ \t]*\|(.+)\|[ \t]*$", re.MULTILINE)
_TABLE_PASSWORD = re.compile(r"(?i)^\s*(?:pass(?:word|wd)?|pwd?|secret|token|api[ _-]?key|key)\s*$")

_USER_SLASH = re.compile(r"(?i)\b(?:admin|administrator|root|user|guest|pi|ubuntu|sa|postgres|operator)"
                         r"[ \t]*/[ \t]*(?P<v>[^\s/]{6,100})")
_SSHPASS = re.compile(r"\bsshpass\s+-p\s*(?P<q>['\"]?)(?P<v>[^\s'\"]{4,200})(?P=q)")
_MYSQL = re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]{0,120}?(?:\s-p(?P<v>[^\s'\"-][^\s'\"]{3,200})"
                    r"|\s--password=(?P<q>['\"]?)(?P<w>[^\s'\"]{4,200})(?P=q))")
_URL_USER_TOKEN = re.compile(r"\b[a-zA-Z][\w+.-]{1,20}://(?P<v>[A-Za-z0-9_\-.~]{20,200})@[\w.\[-]")
_ZAPIER = re.compile(r"\bhooks\.zapier\.com/hooks/catch/\d{5,12}/[a-z0-9]{5,12}\b")
_FCM = re.compile(r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,200}")
_ETH_KEY = re.compile(r"(?i)\b(?:private[ _-]?key|priv[ _-]?key|wallet[ _-]?key|secret[ _-]?key|eth(?:ereum)?[ _-]key)"
                      r"\b[^\n]{0,24}?\b(?P<v>(?:0x)?[0-9a-f]{64})\b")
_SEED_LABEL = re.compile(r"(?i)\b(?:seed|mnemonic|recovery|backup|secret)\b[^\n]{0,12}?\b(?:phrase|words?)?")
_WORD = re.compile(r"[a-z]+")


# Twelve words of 3-8 letters in a row (a seed phrase's shape); possessive, so prose cannot make it backtrack.
_TWELVE_WORDS = re.compile(r"(?<![a-z])(?:[a-z]{3,8}+[ \t,\n-]{1,3}+){11}[a-z]{3,8}+(?![a-z])")


def _twelve_short_words(lowered: str) -> bool:
    return _TWELVE_WORDS.search(lowered) is not None

# Provider prefixes that mean a key whatever follows (min body length, alphabet).
_CERTAIN_PREFIXES = re.compile(
    r"\b(?P<p>sk-ant-(?:api|admin|sid)\d\d-|github_pat_|gh[pousr]_|glpat-|xox[abposr]-|sk_live_|rk_live_|"
    r"sk-proj-|pypi-AgEIcHlwaS5vcmc|dop_v1_|shpat_|shpss_)(?P<b>[A-Za-z0-9_\-.]{16,300})")
# Values providers publish in their documentation as examples, never live keys: AWS's
# ``AKIAIOSFODNN7EXAMPLE`` and ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`` end so, once.
_DOCUMENTED_EXAMPLE = re.compile(r"^(?:(?!EXAMPLE).)*EXAMPLE(?:KEY)?$")


def prose_hits(text: str) -> list[Hit]:
    """(start, end, rule) of every credential found by the forms above."""
    out: list[Hit] = []
    lowered = text.lower()
    if any(w in lowered for w in ("pass", "pw", "key", "secret", "token", "credential", "login")):
        out += _labelled(text)
    if "|" in text:
        out += _table_cells(text)
    if "/" in text:
        out += [(m.start("v"), m.end("v"), "user-slash-password") for m in _USER_SLASH.finditer(text)
                if _password_value(m.group("v"))]
    if "sshpass" in text:
        out += [(m.start("v"), m.end("v"), "sshpass-password") for m in _SSHPASS.finditer(text)
                if R.is_literal(m.group("v")) and not m.group("v").startswith("$")]
    if "-p" in text or "--password" in text:
        for m in _MYSQL.finditer(text):
            group = "v" if m.group("v") else "w"
            if R.is_literal(m.group(group)) and not m.group(group).startswith("$"):
                out.append((m.start(group), m.end(group), "mysql-password"))
    if "://" in text:
        out += [(m.start("v"), m.end("v"), "url-token-user") for m in _URL_USER_TOKEN.finditer(text)
                if _certain_prefix(m.group("v")) or R.looks_random(m.group("v"))]
    if "zapier" in lowered:
        out += [(m.start(), m.end(), "zapier-webhook") for m in _ZAPIER.finditer(text)]
    if "APA91b" in text:
        out += [(m.start(), m.end(), "fcm-server-key") for m in _FCM.finditer(text)]
    if "key" in lowered and any(w in lowered for w in ("priv", "wallet", "secret", "eth")):
        out += [(m.start("v"), m.end("v"), "ethereum-private-key") for m in _ETH_KEY.finditer(text)
                if R.entropy(m.group("v").removeprefix("0x")) >= 3.0]
    out += _seed_phrases(text, lowered)
    out += certain_prefix_hits(text)
    return out


_PREFIX_HINTS = ("sk-ant-", "github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", "xox", "_live_",
                 "sk-proj-", "pypi-", "dop_v1_", "shpat_", "shpss_")


def certain_prefix_hits(text: str) -> list[Hit]:
    if not any(hint in text for hint in _PREFIX_HINTS):
        return []
    return [(m.start(), m.end(), "provider-prefix") for m in _CERTAIN_PREFIXES.finditer(text)
            if not documented_example(m.group()) and not _stand_in_body(m.group("b"))]


def documented_example(value: str) -> bool:
    """A value providers print in their docs (``AKIAIOSFODNN7EXAMPLE``): not a credential."""
    return bool(_DOCUMENTED_EXAMPLE.search(value))


def _certain_prefix(value: str) -> bool:
    return bool(_CERTAIN_PREFIXES.match(value))


def _stand_in_body(body: str) -> bool:
    """``xxxx…``, ``****``, ``<your key>``, ``…``: a template, not a key (a run of one letter other
    than x is still refused: "AAAA…" pasted into a config is a key's shape to every scanner)."""
    low = body.lower().strip("_-.")
    letters = set(low) - set("-_.")
    if not letters or letters <= set("x*") or any(w in low for w in ("your", "here", "placeholder", "redacted")):
        return True
    if len(letters) == 1:
        return False  # one character repeated ("AAAA…"): a key's shape to every scanner downstream
    # An alphabet run, words ("my-bot-token"; real bodies always hold digits), or long words.
    return R.is_stand_in(body) or not any(c.isdigit() for c in body) or R.mean_chunk(body) > 4.0


_CODE_CHARS = frozenset("{}$()[]<>\\")


def _password_value(value: str) -> bool:
    value = value.rstrip(".,;:!?)")
    if (len(value) < 8 or not R.is_literal(value) or R.is_stand_in(value) or "://" in value
            or not _CODE_CHARS.isdisjoint(value)):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(c in _SYMBOLS for c in value)
    if not letters or value.isdigit():
        return False
    if R.looks_random(value):
        return True
    # A typed password: letters with digits or symbols, and no long dictionary-like chunks.
    return (digits or symbols) and R.char_classes(value) >= 3 and R.mean_chunk(value) <= 4.0


_IDENT_JOIN = frozenset("_-.")
_CODE_AFTER = re.compile(r"[ \t]*[=:\"'.(\[{]")


def _prose_label(text: str, start: int, end: int) -> bool:
    """Whether the label at ``text[start:end]`` is a word of prose, not part of code: code binds its
    identifiers with ``=``, ``:`` or quotes, and the keyword judge already read those. A label
    joined to an identifier (``AWS_SECRET_ACCESS_KEY``) counts only when prose goes on after it;
    a plain word may take a colon ("pw: …")."""
    joined = (start and text[start - 1] in _IDENT_JOIN) or text[end:end + 1] in _IDENT_JOIN
    if text[end:end + 1] in _IDENT_JOIN and text[end + 1:end + 2].isalnum():
        return False  # ``LLM_SECRET_NAME``, ``credentials.url``: the label is inside a longer name
    if joined and not text[end:end + 1].isspace():
        return False  # ``${DB_PASSWORD}``: a variable in code, not a word of prose
    after = _CODE_AFTER.match(text, end)
    if after is None:
        return True
    return not joined and after.group().strip() == ":"


_LONG_TOKEN = re.compile(r"\S{8,}")


def _labelled(text: str) -> Iterator[Hit]:
    if not any(not m.group().strip(_QUOTES + ".,;:!?").isalpha() for m in _LONG_TOKEN.finditer(text)):
        return  # no word of 8 characters or more with a digit or a symbol: no value to find
    labels = [(m.end(), _password_value) for m in _PASSWORD_LABEL.finditer(text) if _prose_label(text, *m.span())]
    labels += [(m.end(), _password_value) for m in _PASS_LABEL.finditer(text)]
    labels += [(m.end(), _key_value) for m in _KEY_LABEL.finditer(text) if _prose_label(text, *m.span())]
    for end, judge in labels:
        line_end = text.find("\n", end)
        for k, token in enumerate(_TOKEN.finditer(text, end, len(text) if line_end < 0 else line_end)):
            if k > _MAX_GAP_WORDS:
                break
            raw = token.group()
            value = raw.strip(_QUOTES).rstrip(".,;:!?").strip(_QUOTES)
            if len(value) >= 8 and not value.isalpha() and judge(value):  # most words fail the cheap test
                at = token.start() + raw.index(value)
                yield (at, at + len(value), "labelled-secret")
                break
            if raw.endswith((".", "!", "?")) and not raw.endswith(("..", "e.g.", "i.e.")):
                break  # the sentence ended without a value


def _key_value(value: str) -> bool:
    return (len(value) >= 16 and _CODE_CHARS.isdisjoint(value) and R.looks_random(value)
            and not documented_example(value))


def _table_cells(text: str) -> Iterator[Hit]:
    rows = [(m.start(1), m.group(1)) for m in _TABLE_ROW.finditer(text)]
    columns: set[int] = set()
    for start, row in rows:
        cells = row.split("|")
        if not columns:
            columns = {i for i, cell in enumerate(cells) if _TABLE_PASSWORD.match(cell)}
            continue
        offset = start
        for i, cell in enumerate(cells):
            value = cell.strip()
            if i in columns and _password_value(value):
                at = offset + cell.index(value)
                yield (at, at + len(value), "table-password")
            offset += len(cell) + 1


@lru_cache(maxsize=1)
def _bip39() -> frozenset[str]:
    from mnemonic import Mnemonic  # the BIP-39 reference word list, with its checksum rule
    return frozenset(Mnemonic("english").wordlist)


def _seed_phrases(text: str, lowered: str) -> Iterator[Hit]:
    """12 to 24 consecutive BIP-39 words that either pass the phrase's checksum or follow a label
    ("seed", "recovery phrase", "mnemonic"): ordinary prose has no such runs."""
    if not _twelve_short_words(lowered):
        return  # the cheap gate: BIP-39 words are 3-8 letters, and prose breaks such runs quickly
    words = list(_WORD.finditer(lowered))
    wordlist = _bip39()
    run: list[re.Match[str]] = []
    for m in [*words, None]:
        joined = m is not None and m.group() in wordlist and (not run or _only_separators(lowered, run[-1].end(), m.start()))
        if joined:
            run.append(m)
            continue
        if len(run) >= 12 and _seed_evidence(text, run):
            yield (run[0].start(), run[-1].end(), "seed-phrase")
        run = [m] if m is not None and m.group() in wordlist else []


def _only_separators(text: str, start: int, end: int) -> bool:
    return end - start <= 3 and all(c in " ,\t\n-" for c in text[start:end])


def _seed_evidence(text: str, run: list[re.Match[str]]) -> bool:
    if _SEED_LABEL.search(text, max(0, run[0].start() - 40), run[0].start()):
        return True
    from mnemonic import Mnemonic
    checker = Mnemonic("english")
    phrase = [m.group() for m in run]
    return any(checker.check(" ".join(phrase[i:i + n])) for n in (24, 21, 18, 15, 12)
               for i in range(len(phrase) - n + 1))
