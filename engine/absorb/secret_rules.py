"""What secrets look like: rule tables and value tests for ``engine.absorb.secrets``.

Adding a provider is a one-line change to ``PREFIX_RULES`` or, for one read
from a public catalogue, ``engine.secret_catalogue`` (self-identifying formats
such as ``ghp_`` + 36 alphanumerics); ``PREFIX_DISPATCH`` groups them by the
character a token starts with, so a scan tries a handful per position. The
keyword vocabulary says which identifier words announce a secret (``password``,
``api_key``, ``githubToken``) and which neighbours make them harmless
(``token_type``, ``public_key``); ``CONTEXT_FORMATS`` pins providers with a
published key shape; the functions at the end judge a value by entropy,
character mix and placeholder words. Stdlib ``re`` and ``math`` only.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Callable

from engine.absorb.secret_catalogue import _B, _E, _EP, _P, CATALOGUE_RULES, OBJECT_ID_PREFIXES, PrefixRule

PREFIX_RULES: tuple[PrefixRule, ...] = (
    # OpenAI keys embed "T3BlbkFJ" (base64 of "OpenAI") between two random halves.
    PrefixRule("openai-api-key", _P + r"sk-(?:[a-z]{2,8}-)?[\w-]{16,}T3BlbkFJ[\w-]{16,}" + _EP),
    PrefixRule("aws-access-key-id", r"(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA"
               r"|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])", ""),
    PrefixRule("aws-bedrock-api-key", _B + r"ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{100,262}={0,2}(?![\w+/=])", ""),
    PrefixRule("github-token", _P + r"(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{40,})" + _EP),
    PrefixRule("gitlab-token", _P + r"gl(?:pat|dt|ptt|rt|cbt|ft|imt|oas|agent|soat|ffct|cf|wt)-[\w.-]{20,50}" + _EP),
    PrefixRule("slack-token", r"(?<![A-Za-z0-9])xox[abposre]-(?:\d-)?[A-Za-z0-9-]{18,}" + _E, "slack"),
    PrefixRule("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[\w+/-]{20,}", ""),
    PrefixRule("teams-webhook", r"https://[\w.-]+\.webhook\.office\.com/webhookb2/[\w@/.-]{40,}", ""),
    PrefixRule("discord-webhook", r"https://discord(?:app)?\.com/api/webhooks/\d+/[\w-]{40,}", ""),
    PrefixRule("stripe-key", _P + r"[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,}" + _EP),
    PrefixRule("google-api-key", _P + r"AIza[\w-]{35}" + _EP, ""),
    PrefixRule("jwt", r"(?<![\w-])e[wy][\w-]{8,}\.e[wy][\w-]{8,}(?:\.[\w-]*)?(?![\w.-])", "jwt"),
    PrefixRule("npm-token", _P + r"npm_[A-Za-z0-9]{36,72}" + _EP),
    PrefixRule("pypi-token", _B + r"pypi-AgE[\w-]{50,}" + _E),
    PrefixRule("sendgrid-api-key", _B + r"SG\.[\w-]{16,32}\.[\w-]{16,64}(?![\w.-])"),
    PrefixRule("huggingface-token", r"(?<![\w-])(?:hf_|api_org_)[A-Za-z0-9]{30,40}(?!\w)"),
    PrefixRule("digitalocean-token", _B + r"do[por]_v1_[a-f0-9]{64}" + _E),
    PrefixRule("shopify-token", _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E),
    PrefixRule("atlassian-api-token", _B + r"AT[AC]TT3[\w=-]{150,}"),
    PrefixRule("azure-storage-key", r"(?<=AccountKey=)[A-Za-z0-9+/]{40,}={0,2}"),
    PrefixRule("azure-ad-client-secret", r"(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])"),
    PrefixRule("discord-bot-token", _B + r"[MNO][A-Za-z\d]{23,27}\.[\w-]{6}\.[\w-]{27,40}" + _E, "mixed"),
    PrefixRule("telegram-bot-token", r"(?<![\d:])(?:bot)?\d{8,10}:AA[\w-]{33}" + _E),
    PrefixRule("1password-secret-key", r"(?<![\w-])A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})"
               r"(?:-[A-Z0-9]{5}){3}(?![\w-])"),
    PrefixRule("1password-service-token", _B + r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"),
    PrefixRule("facebook-access-token", r"(?<![A-Za-z0-9+/])EAA[A-Za-z0-9]{30,}" + _E, "random"),
    PrefixRule("facebook-app-token", r"(?<![\d|])\d{15,16}\|[\w-]{27}" + _E),
    PrefixRule("square-token", _B + r"sq0(?:atp|csp)-[\w-]{22,}" + _E),
    PrefixRule("openshift-token", _B + r"sha256~[\w-]{43}" + _E),
    PrefixRule("vault-token", _B + r"hv[sb]\.[\w-]{90,}" + _E),
    PrefixRule("vault-token", r"(?<![\w.])s\.[A-Za-z0-9]{24}(?![\w.])", "mixed"),
    PrefixRule("twilio-key", r"(?<![A-Za-z0-9])(?:SK|AC)[0-9a-fA-F]{32}(?![A-Za-z0-9])"),
    PrefixRule("mailchimp-api-key", r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])", ""),
    PrefixRule("mailgun-key", _B + r"(?:pub)?key-[0-9a-z]{32}" + _E),
    PrefixRule("easypost-api-key", r"(?<![A-Za-z0-9+/])EZ[AT]K[A-Za-z0-9]{54}" + _E),
    PrefixRule("heroku-api-key", _B + r"HRKU-[\w-]{58,}", ""),
    # ``AP`` + a hex digit starts CamelCase names too (``APDefaultSettings``): not English words.
    PrefixRule("artifactory-key", r"(?<![A-Za-z0-9+/])(?:AKC[a-zA-Z0-9]{10,}|AP[0-9A-F][a-zA-Z0-9]{8,})"
               r"(?![A-Za-z0-9+/])", "artifactory"),
    PrefixRule("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", ""),
    PrefixRule("dynatrace-token", _B + r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + _E),
    PrefixRule("newrelic-key", _B + r"NR(?:II|AK|AA|JS)-[\w-]{27,40}" + _E),
    PrefixRule("databricks-token", _B + r"dapi[a-f0-9]{32}(?:-\d)?" + _E),
    PrefixRule("doppler-token", _B + r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}" + _E),
    PrefixRule("planetscale-token", _B + r"pscale_(?:pw|tkn|oauth)_[\w=.-]{32,}" + _E),
    PrefixRule("grafana-token", _B + r"(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"
               r"|eyJrIjoi[A-Za-z0-9]{60,})" + _E),
    PrefixRule("sentry-token", _B + r"(?:sntrys_eyJ[A-Za-z0-9+/=]{30,}_[A-Za-z0-9+/]{43}"
               r"|sntryu_[a-f0-9]{64})(?![A-Za-z0-9+/])"),
    PrefixRule("flyio-token", _B + r"(?:fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})"),
    PrefixRule("terraform-token", _B + r"[A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,70}" + _E),
    PrefixRule("octopus-api-key", r"(?<![\w/.-])API-[A-Z0-9]{26}" + _E, "mixed"),
    PrefixRule("settlemint-token", _B + r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16,32}" + _E),
    *CATALOGUE_RULES,
    # ``sk-`` + a random body: OpenAI's older keys, DeepSeek, Moonshot and other OpenAI-style APIs.
    PrefixRule("sk-api-key", _P + r"sk-[A-Za-z0-9][\w-]{19,200}" + _EP, "random"),
)


def _first_chars(pattern: str) -> frozenset[str] | None:
    """The characters a rule's token can start with, or ``None`` if any (read from the pattern's text)."""
    while pattern.startswith(("(?<!", "(?<=")):
        depth, i = 0, 0
        for i, ch in enumerate(pattern):
            depth += (ch == "(" and pattern[i - 1:i] != "\\") - (ch == ")" and pattern[i - 1:i] != "\\")
            if depth == 0:
                break
        pattern = pattern[i + 1:]
    if pattern.startswith("(?:"):
        depth, branches, current, end = 0, [], "", 3
        for end, ch in enumerate(pattern[3:], 3):
            if depth == 0 and ch in "|)":
                branches.append(current)
                if ch == ")":
                    break
                current = ""
                continue
            depth += (ch == "(") - (ch == ")")
            current += ch
        if pattern[end + 1:end + 2] in ("?", "*", "{"):
            return None  # an optional group: the token may start after it
        firsts = [_first_chars(b) for b in branches]
        return None if any(f is None for f in firsts) else frozenset().union(*firsts)
    if pattern[:1].isalnum() and pattern[1:2] not in ("?", "*", "{"):
        return frozenset(pattern[0])
    m = re.match(r"\[([A-Za-z0-9-]+)\](?![?*{])", pattern)
    if m:
        chars = re.sub(r"(.)-(.)", lambda r: "".join(map(chr, range(ord(r[1]), ord(r[2]) + 1))), m.group(1))
        return frozenset(chars)
    return None


def _dispatch() -> tuple[dict[str, re.Pattern[str]], re.Pattern[str]]:
    """One alternation per first character, so each candidate position tries a handful of rules, not all."""
    firsts = [_first_chars(rule.pattern) for rule in PREFIX_RULES]
    anywhere = [i for i, f in enumerate(firsts) if f is None]

    def compile_(indices: list[int]) -> re.Pattern[str]:
        return re.compile("|".join(f"(?P<r{i}>{PREFIX_RULES[i].pattern})" for i in sorted(indices)), re.ASCII)

    chars = sorted(set().union(*(f for f in firsts if f is not None)))
    table = {c: compile_([i for i, f in enumerate(firsts) if f is not None and c in f] + anywhere) for c in chars}
    return table, compile_(anywhere) if anywhere else re.compile(r"(?!)")


PREFIX_DISPATCH, PREFIX_ANYWHERE = _dispatch()


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Prefixes whose format the table above pins down: a keyword-assigned value
# carrying one is judged by that format only, so a malformed ``dapi...`` test
# string is not caught again by the entropy heuristics.
KNOWN_VALUE_PREFIXES = tuple("dapi sm_aat_ sm_pat_ sm_sat_ sntryu_ sntrys_ sk-ant- xox ghp_ gho_ ghu_ ghs_ ghr_ "
                             "glpat- hf_ npm_ ops_ AKIA ASIA".split())
# Generic "vendor prefix + separator + random body" tokens (``pnu_...``,
# ``ico-...``): providers missing from the table still follow this shape.
PREFIXED_TOKEN = re.compile(
    r"(?<![\w.+/~#-])(?P<prefix>[a-z]{2,10}|[A-Z]{2,10})(?:[_-][a-z0-9]{1,6}){0,2}[_-]"
    r"(?P<body>[A-Za-z0-9]{20,})(?:[._=-]+[A-Za-z0-9]+)*={0,3}(?![\w.+/~-])",
    re.ASCII,
)
# Words that label a hash or an identifier, not a credential, when a hex string follows.
HASH_PREFIXES = _set("sha md sum diff hash commit build rev ref git id uuid guid digest checksum etag object blob tree "
                     "sig nonce salt file cache tmp img image asset assets chunk bundle vendor main app")
# Metasyntactic words are not vendors; ``pk_`` keys are publishable by design; Stripe's
# object ids (``pi_``, ``cus_``, ``evt_``, ...) name a payment or a customer, they open nothing.
NON_VENDOR_PREFIXES = _set("foo bar baz qux test tmp temp example sample dummy fake my your the some other new "
                           "old no not pk") | OBJECT_ID_PREFIXES
OBJECT_ID = re.compile(r"(?:%s)_[A-Za-z0-9]{8,}" % "|".join(sorted(OBJECT_ID_PREFIXES)))

# --- keyword vocabulary --------------------------------------------------

# Words that make the assigned value a password: any non-trivial literal
# counts, because human-chosen passwords are not high-entropy.
PASSWORD_WORDS = _set("password passwd pwd passphrase passcode")
SHORT_PASSWORD_WORDS = _set("pass pw")  # also verbs and abbreviations: need a qualifier
PASSWORD_SUFFIXES = ("password", "passwd")
# Words that announce a machine secret: the value must look random. Plurals
# (``tokens``, ``keys``, ``secrets``) name collections or counts, not a value.
TOKEN_WORDS = _set("token secret secrete apikey credential credentials creds auth authorization bearer "
                   "authtoken privatekey secretkey accesskey")
TOKEN_SUFFIXES = ("token", "secret", "apikey", "secretkey", "accesskey", "privatekey", "authkey")
# ``key`` alone is too common (dict keys, database keys); these qualifiers mean
# the data-structure sense, or a key that is public by design.
KEY_STOP_QUALIFIERS = _set("public pub primary foreign schema sequence bucket sort partition cache map dict hash "
                           "idx index row lookup object ha unique composite sharding routing group idempotency "
                           "dedup hot short sign")
# Tokens that are not credentials: request-forgery nonces, cursors, LLM counts.
TOKEN_STOP_QUALIFIERS = _set("csrf xsrf authenticity public page next continuation cancellation sync max num total "
                             "input output prompt completion reasoning")
# A keyword followed by one of these names something about the secret
# (``token_type``, ``key_id``, ``secret_length``) or a thing built on it.
TRAILING_STOP_WORDS = _set("""
id ids name names url uri urls endpoint file filename path dir type types size length len count hash field fields
prefix suffix format version env var variable header param label event index idx expiry expires expiration ttl
timeout limit max min budget policy mode location method class kind helper provider manager selector pressed down
up meshing vault store storage ref reference source command cmd arn rotation hint enabled required valid validator
encoder decoder parser service client handler generator usage counter state status list set number groups error
exception base through blocks block model config options settings pattern regex position offset start end stream
iterator callback function factory builder schema spec tests append get classification embedding embeddings
""")

# Providers with a published key shape: (identifier word, exact value pattern,
# rule name, strict). Strict: a value of another shape is not that key.
# Lenient: a matching value is reported even if it reads like an example.
CONTEXT_FORMATS: tuple[tuple[str, re.Pattern[str], str, bool], ...] = (
    ("aws", re.compile(r"[A-Za-z0-9/+]{40}"), "aws-secret-access-key", False),
    # S3-compatible HMAC secrets: AWS/GCS (40), DigitalOcean (43), IBM COS (48 hex), R2 (64 hex).
    ("secretaccesskey", re.compile(r"[A-Za-z0-9/+=]{40,43}|[a-f0-9]{48}|[a-f0-9]{64}"), "s3-secret-access-key", True),
    ("telegram", re.compile(r"\d{5,16}:A[\w-]{34}"), "telegram-bot-token", True),
    ("meraki", re.compile(r"[0-9a-f]{40}"), "cisco-meraki-api-key", True),
    ("ibm", re.compile(r"[\w-]{44}|[a-f0-9]{48}"), "ibm-cloud-key", True),
    ("softlayer", re.compile(r"[a-z0-9]{64}"), "softlayer-api-key", True),
    ("cloudant", re.compile(r"[\w-]{24}|[0-9a-f]{64}"), "cloudant-password", True),
)

# --- placeholders, templates and other non-literals ------------------------

PLACEHOLDER_WORDS = tuple("changeme change_me change-me placeholder your redacted dummy fake sample insert replace "
                          "example todo xxxx **** ... put_ _here password passwd secret".split())
PLACEHOLDER_VALUES = _set("none null nil undefined true false empty secret password passwd token apikey api_key key "
                          "string str value test testing default admin root user username pass pwd required "
                          "optional hidden unset")
# A whole value that is a reference, not a literal: ${VAR}, {{ var }}, <var>, %VAR%, $VAR, [PASSWORD], %s.
TEMPLATE_VALUE = re.compile(r"^(?:\$\{.*\}|\$\(.*\)|\{\{.*\}\}|\{[^{}]*\}|<[^<>]*>|%[\w.-]*%"
                            r"|\$[A-Za-z_{(][\w.{}]*|\[[^\]]*\]|%[sdr])$", re.DOTALL)
# An unquoted value that is code: var.db_password, X25519.key_length, getenv(...), env["X"],
# a variable passed along (``token=token)``), a snake_case name, a hex constant.
CODE_VALUE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|^[-!~+]?[A-Za-z_][\w.]*[(\[]|^[A-Za-z_][\w.]*[)\]]"
                        r"|^[a-z]+\d*(?:_[a-z]+\d*)+$|^0x[0-9a-fA-F]+$")
_INTERPOLATION = re.compile(r"\$\{[A-Za-z_][\w.]*\}|\{\{\s*[\w.]+\s*\}\}|%\(\w+\)[sd]|(?<!\{)\{[A-Za-z_][\w.]*\}(?!\})")
_REGEX = re.compile(r"\\[wdsWDSb]|\(\?[:P<=!]|\[\^")
_VERSION = re.compile(r"(?<![\w.])v?\d{1,4}\.\d{1,4}\.\d{1,4}")
_FILE_SUFFIX = re.compile(r"\.(?:pem|p12|pfx|key|crt|cer|json|ya?ml|txt|env|cfg|conf|ini|png|jpe?g|gif|html?|xml)$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}[-_]?(?:[0-9a-fA-F]{4}[-_]?){3}[0-9a-fA-F]{12}$")
_CHUNKS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# Letter pairs frequent in English words: random strings hit about one pair in three.
_COMMON_BIGRAMS = _set("""
th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi
ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta la ns di fo ho pe ec pr no ct us ac ot il tr ly nc et
ut ss so rs un lo wa ge ie wh ee wi em ad ol rt po we na ul ni ts mo ow pa im mi ai sh ir su id os iv ia am
fi ci vi pl ig tu ev ld ry mp fe bl ab gh ty op wo sa ay ex ke fr oo av ag if ap gr od bo sp rd do uc bu ei
ov by rm ep tt oc fa ef cu rn sc gi da yo cr cl du ga qu ue ff ba ey ls va um pp ua up lu go ht ru ug ds lt
pi rc rr eg au ck ew mu br bi pt ak pu ui rg ib tl ny ki rk ys ob mm fu ph og ms ye ud mb ip ub oi rl gu dr
hu ks ze za ko ka ja jo ju oy ku wn ox xt
""")
_B64URL = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")}

# --- judging values -------------------------------------------------------


def looks_random(value: str) -> bool:
    """Machine-generated keys: long, varied characters, high Shannon entropy."""
    n = len(value)
    if n < 10 or any(c.isspace() for c in value) or not is_literal(value) or is_stand_in(value):
        return False
    if "://" in value or value.startswith(("/", "./", "~/")) or _FILE_SUFFIX.search(value.lower()):
        return False
    if value.isdigit():
        return n >= 16 and entropy(value) >= 2.5
    if char_classes(value) < 2 or _VERSION.search(value):
        return False
    if not any(c.isdigit() for c in value) and mean_chunk(value) > 3.0:
        return False  # words in camelCase (``getSlowCompTau``, ``Europe/Berlin``), not random
    if wordy_share(value) >= 0.6:
        return False  # ``complex128``, ``nvgemm_partition_v1``: names, not keys
    return entropy(value) >= min(3.0, math.log2(n) - 0.8)


def password_like(value: str, quoted: bool) -> bool:
    """Human-chosen passwords are not random: any real-looking literal counts."""
    if len(value) < 4 or not is_literal(value) or is_stand_in(value):
        return False
    if not any(c.isalnum() for c in value):
        return False
    if " " in value.strip():
        return quoted and len(value.split()) >= 2 and "://" not in value
    if not quoted and all(c.isalpha() or c in "_-." for c in value):
        return False  # ``password: SecretStr``: an unquoted word is a type or a name
    return char_classes(value) >= 2


def random_body(prefix: str, body: str) -> bool:
    """The body of a vendor-prefixed token: digits and letters mixed, not a UUID or a labelled hash."""
    if _UUID.match(body):
        return False
    if all(c in "0123456789abcdef" for c in body):  # ``shippo_live_<hex>`` yes, ``commit-<sha>`` no
        return len(body) >= 32 and prefix.lower() not in HASH_PREFIXES and entropy(body) >= 3.5
    digits = sum(c.isdigit() for c in body)
    if not 0.08 <= digits / len(body) <= 0.8 or entropy(body) < 3.6 or is_stand_in(body):
        return False
    return mean_chunk(body) <= 3.0


def is_uuid(value: str) -> bool:
    return bool(_UUID.match(value))


def has_version(value: str) -> bool:
    """``1.2.3`` or ``v10.0.1`` somewhere in the value."""
    return bool(_VERSION.search(value))


def has_file_suffix(value: str) -> bool:
    return bool(_FILE_SUFFIX.search(value.lower()))


def wordy_share(value: str) -> float:
    """Share of alphanumerics in English-looking words (two letter pairs in three are common)."""
    chunks = _CHUNKS.findall(value)
    wordy = sum(len(c) for c in chunks if len(c) >= 4 and c.isalpha()
                and sum(c[i:i + 2].lower() in _COMMON_BIGRAMS for i in range(len(c) - 1)) >= 0.66 * (len(c) - 1))
    return wordy / max(1, sum(map(len, chunks)))


def mean_chunk(value: str) -> float:
    """Random text breaks into short runs (``wW``, ``5``, ``k``); identifiers into words."""
    chunks = _CHUNKS.findall(value)
    return sum(map(len, chunks)) / len(chunks) if chunks else 0.0


def is_literal(value: str) -> bool:
    """Not a template or a regex, and no ``${VAR}``/``{name}`` interpolation inside."""
    return not (TEMPLATE_VALUE.match(value.strip()) or _INTERPOLATION.search(value) or _REGEX.search(value))


_PLACEHOLDER_WORD = re.compile("|".join(map(re.escape, PLACEHOLDER_WORDS)))
_ASCENDING = re.compile("|".join("abcdefghijklmnopqrstuvwxyz"[i:i + 12] for i in range(15)))


def is_placeholder(value: str) -> bool:
    """``xxxx``, ``<YOUR_KEY>``, ``changeme``, ``aaaa...``: stand-ins, not secrets."""
    low = value.lower()
    if low in PLACEHOLDER_VALUES or _PLACEHOLDER_WORD.search(low):
        return True
    return bool(low) and max(Counter(low).values()) > 0.45 * len(low)


def is_stand_in(value: str) -> bool:
    """A placeholder, or an alphabet listing such as ``abcdefghijklmnop`` (12 ascending letters)."""
    return is_placeholder(value) or bool(_ASCENDING.search(value.lower()))


_LOWER, _UPPER, _DIGIT = re.compile("[a-z]"), re.compile("[A-Z]"), re.compile("[0-9]")
_SYMBOL = re.compile(r"[^A-Za-z0-9_.-]")


def char_classes(value: str) -> int:
    """How many of lower, upper, digit and symbol appear (``_-.`` are joiners, not symbols)."""
    if value.isascii():
        return (bool(_LOWER.search(value)) + bool(_UPPER.search(value)) + bool(_DIGIT.search(value))
                + bool(_SYMBOL.search(value)))
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() and c not in "_-." for c in value))


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values()) if n else 0.0


def is_jwt(token: str) -> bool:
    """Header and payload must decode to JSON objects, the header naming ``alg``/``typ``."""
    header, payload = (_b64_json_object(part) for part in token.split(".")[:2])
    return bool(header and payload) and ('"alg"' in header or '"typ"' in header)


def _b64_json_object(segment: str) -> str | None:
    """Decode base64url by hand (through one big integer) and keep JSON objects."""
    if not segment or any(ch not in _B64URL for ch in segment):
        return None
    bits = 0
    for ch in segment:
        bits = bits << 6 | _B64URL[ch]
    nbytes = len(segment) * 6 // 8
    try:
        decoded = (bits >> (len(segment) * 6 - nbytes * 8)).to_bytes(nbytes, "big").decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    return decoded if decoded.startswith("{") and decoded.endswith("}") and '":' in decoded else None


# Extra tests a ``PrefixRule`` match must pass, by the rule's ``check`` name.
FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "": lambda token: True,
    "placeholder": lambda token: not is_placeholder(token),
    "stand-in": lambda token: not is_stand_in(token),
    "random": looks_random,
    "jwt": is_jwt,
    "mixed": lambda token: char_classes(token) >= 3 and not is_placeholder(token),
    "slack": lambda token: sum(c.isdigit() for c in token) >= 4 and "xxx" not in token.lower(),
    # ``AP6xxxx...`` yes; ``APDefaultSettings`` (English words in CamelCase) no.
    "artifactory": lambda token: any(c.islower() or c.isdigit() for c in token[3:]) and wordy_share(token) < 0.5,
}
