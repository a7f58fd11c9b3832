"""Rule tables and value tests for the secret detector (``engine.secrets``).

Kept apart from the scanning code so that adding a provider is a one-line
change here. What lives in this module:

* ``PREFIX_RULES``: credentials recognisable on their own, by a provider prefix
  plus a fixed structure (``ghp_`` + 36 alphanumerics, ``AKIA`` + 16, ...);
* keyword vocabulary: which identifier words announce a secret value
  (``password``, ``api_key``, ``githubToken``) and which neighbouring words make
  them harmless (``token_type``, ``public_key``, ``keyId``);
* ``CONTEXT_FORMATS``: providers whose keys have a published exact shape, so a
  value assigned to ``telegram_token`` is judged by that shape, not entropy;
* what a real value looks like: entropy, character mix, placeholders.

Pure data and functions; stdlib ``re`` and ``math`` only.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple


class PrefixRule(NamedTuple):
    """A self-identifying credential format.

    ``check`` names the extra test applied to a match: ``""`` (the structure is
    proof enough), ``"placeholder"`` (reject ``xxxx``-style stand-ins),
    ``"random"`` (demand a random-looking token), ``"mixed"`` (digits and both
    letter cases), ``"jwt"``, ``"slack"`` or ``"artifactory"`` (format-specific).
    """

    name: str
    pattern: str
    check: str = "placeholder"


# A token must not be the tail or head of a longer word, path or base64 run.
_B = r"(?<![A-Za-z0-9_+/.~-])"
_E = r"(?![A-Za-z0-9_+/~-])"

PREFIX_RULES: tuple[PrefixRule, ...] = (
    PrefixRule("anthropic-api-key", _B + r"sk-ant-(?:api|admin|sid)\d\d-[\w-]{93}AA" + _E, ""),
    PrefixRule("openai-api-key", _B + r"sk-(?!ant-)(?:[a-z]{2,8}-)?[A-Za-z0-9_-]{32,}" + _E, "random"),
    PrefixRule("aws-access-key-id", r"(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA"
               r"|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])", ""),
    PrefixRule("aws-bedrock-api-key", _B + r"ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{100,262}={0,2}(?![\w+/=])", ""),
    PrefixRule("github-token", _B + r"gh[pousr]_[A-Za-z0-9]{36,251}" + _E),
    PrefixRule("github-token", _B + r"github_pat_[A-Za-z0-9_]{40,}" + _E),
    PrefixRule("gitlab-token", _B + r"gl(?:pat|dt|ptt|rt|cbt|ft|imt|oas|agent|soat|ffct|cf|wt)-[\w.-]{20,50}" + _E),
    PrefixRule("slack-token", r"(?<![A-Za-z0-9])xox[abposre]-(?:\d-)?[A-Za-z0-9-]{18,}" + _E, "slack"),
    PrefixRule("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[\w+/-]{20,}", ""),
    PrefixRule("teams-webhook", r"https://[\w.-]+\.webhook\.office\.com/webhookb2/[\w@/.-]{40,}", ""),
    PrefixRule("discord-webhook", r"https://discord(?:app)?\.com/api/webhooks/\d+/[\w-]{40,}", ""),
    PrefixRule("stripe-key", _B + r"[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,}" + _E),
    PrefixRule("google-api-key", _B + r"AIza[\w-]{35}" + _E, ""),
    PrefixRule("jwt", r"(?<![\w-])e[wy][\w-]{8,}\.e[wy][\w-]{8,}(?:\.[\w-]*)?(?![\w.-])", "jwt"),
    PrefixRule("npm-token", _B + r"npm_[A-Za-z0-9]{36}" + _E),
    PrefixRule("pypi-token", _B + r"pypi-AgE[\w-]{50,}" + _E),
    PrefixRule("sendgrid-api-key", _B + r"SG\.[\w-]{16,32}\.[\w-]{16,64}(?![\w.-])"),
    PrefixRule("huggingface-token", r"(?<![\w-])(?:hf_|api_org_)[A-Za-z]{34}(?!\w)"),
    PrefixRule("digitalocean-token", _B + r"do[por]_v1_[a-f0-9]{64}" + _E),
    PrefixRule("shopify-token", _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E),
    PrefixRule("atlassian-api-token", _B + r"AT[AC]TT3[\w=-]{150,}"),
    PrefixRule("azure-storage-key", r"(?<=AccountKey=)[A-Za-z0-9+/]{40,}={0,2}"),
    PrefixRule("azure-ad-client-secret", r"(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])"),
    PrefixRule("discord-bot-token", _B + r"[MNO][A-Za-z\d]{23,27}\.[\w-]{6}\.[\w-]{27,40}" + _E, "mixed"),
    PrefixRule("telegram-bot-token", r"(?<![\d:])\d{8,10}:AA[\w-]{33}" + _E),
    PrefixRule("1password-secret-key", r"(?<![\w-])A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})"
               r"(?:-[A-Z0-9]{5}){3}(?![\w-])"),
    PrefixRule("1password-service-token", _B + r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"),
    PrefixRule("facebook-access-token", r"(?<![A-Za-z0-9+/])EAA[A-Za-z0-9]{30,}" + _E, "random"),
    PrefixRule("facebook-app-token", r"(?<![\d|])\d{15,16}\|[\w-]{27}" + _E),
    PrefixRule("square-token", _B + r"sq0(?:atp|csp)-[\w-]{22,}" + _E),
    PrefixRule("openshift-token", _B + r"sha256~[\w-]{43}" + _E),
    PrefixRule("vault-token", _B + r"hv[sb]\.[\w-]{90,}" + _E),
    PrefixRule("vault-token", r"(?<![\w.])s\.[A-Za-z0-9]{24}(?![\w.])", "mixed"),
    PrefixRule("twilio-key", r"(?<![A-Za-z0-9])(?:SK|AC)[0-9a-f]{32}(?![A-Za-z0-9])"),
    PrefixRule("mailchimp-api-key", r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])", ""),
    PrefixRule("mailgun-key", _B + r"(?:pub)?key-[0-9a-z]{32}" + _E),
    PrefixRule("easypost-api-key", r"(?<![A-Za-z0-9+/])EZ[AT]K[A-Za-z0-9]{54}" + _E),
    PrefixRule("heroku-api-key", _B + r"HRKU-[\w-]{58,}", ""),
    PrefixRule("artifactory-key", r"(?<![A-Za-z0-9])(?:AKC[a-zA-Z0-9]{10,}|AP[0-9A-F][a-zA-Z0-9]{8,})"
               r"(?![A-Za-z0-9])", "artifactory"),
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
    PrefixRule("settlemint-token", _B + r"sm_(?:aat|pat|sat)_[a-z0-9]{16}" + _E),
)

# Prefixes whose format the table above pins down: a keyword-assigned value
# carrying one is judged by that format only, so a malformed ``dapi...`` test
# string is not caught again by the entropy heuristics.
KNOWN_VALUE_PREFIXES: tuple[str, ...] = (
    "dapi", "sm_aat_", "sm_pat_", "sm_sat_", "sntryu_", "sntrys_", "sk-ant-", "xox", "ghp_", "gho_",
    "ghu_", "ghs_", "ghr_", "glpat-", "hf_", "npm_", "ops_", "AKIA", "ASIA",
)

# Generic "vendor prefix + separator + random body" tokens (``pnu_...``,
# ``ico-...``): providers missing from the table still follow this shape.
PREFIXED_TOKEN = re.compile(
    r"(?<![\w.+/~=@-])(?P<prefix>[a-z]{2,10}|[A-Z]{2,10})(?:[_-][a-z0-9]{1,6}){0,2}[_-]"
    r"(?P<body>[A-Za-z0-9]{20,})(?:[._=-]+[A-Za-z0-9]+)*={0,3}(?![\w.+/~-])",
    re.ASCII,
)
# Metasyntactic and example words are not vendor prefixes.
NON_VENDOR_PREFIXES = frozenset({
    "foo", "bar", "baz", "qux", "test", "tmp", "temp", "example", "sample", "dummy", "fake", "my",
    "your", "the", "some", "other", "new", "old", "no", "not",
})

# --- keyword vocabulary --------------------------------------------------

# Words that make the assigned value a password: any non-trivial literal
# counts, because human-chosen passwords are not high-entropy.
PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pass", "pw", "passphrase", "passcode"})
PASSWORD_SUFFIXES = ("password", "passwd")

# Words that announce a machine secret: the value must look random. Plurals
# (``tokens``, ``keys``, ``secrets``) name collections or counts, not a value.
TOKEN_WORDS = frozenset({
    "token", "secret", "secrete", "apikey", "credential", "credentials", "creds", "auth",
    "authorization", "bearer", "authtoken", "privatekey", "secretkey", "accesskey",
})
TOKEN_SUFFIXES = ("token", "secret", "apikey", "secretkey", "accesskey", "privatekey", "authkey")

# ``key`` alone is too common (dict keys, database keys); these qualifiers mean
# the data-structure sense, or a key that is public by design.
KEY_STOP_QUALIFIERS = frozenset({
    "public", "pub", "primary", "foreign", "schema", "sequence", "bucket", "sort", "partition",
    "cache", "map", "dict", "hash", "idx", "index", "row", "lookup", "object", "ha", "unique",
    "composite", "sharding", "routing", "group", "idempotency", "dedup", "hot", "short", "sign",
})
# Tokens that are not credentials: request-forgery nonces, cursors, LLM counts.
TOKEN_STOP_QUALIFIERS = frozenset({
    "csrf", "xsrf", "authenticity", "public", "page", "next", "continuation", "cancellation",
    "sync", "max", "num", "total", "input", "output", "prompt", "completion", "reasoning",
})
# A keyword followed by one of these names metadata about the secret
# (``token_type``, ``key_id``, ``secret_length``), not the secret itself.
TRAILING_STOP_WORDS = frozenset({
    "id", "ids", "name", "names", "url", "uri", "urls", "endpoint", "file", "filename", "path", "dir",
    "type", "types", "size", "length", "len", "count", "hash", "field", "fields", "prefix", "suffix",
    "format", "version", "env", "var", "variable", "header", "param", "label", "event", "index", "idx",
    "expiry", "expires", "expiration", "ttl", "timeout", "limit", "max", "min", "budget", "policy",
    "mode", "location", "method", "class", "kind", "helper", "provider", "manager", "selector",
    "pressed", "down", "up", "meshing", "vault", "store", "storage", "ref", "reference", "source",
    "command", "cmd", "arn", "rotation", "hint", "enabled", "required", "valid", "validator",
    "encoder", "decoder", "parser", "service", "client", "handler", "generator", "usage", "counter",
    "state", "status", "list", "set",
})

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

# --- placeholder vocabulary ----------------------------------------------

PLACEHOLDER_WORDS = (
    "changeme", "change_me", "change-me", "placeholder", "your", "redacted", "dummy", "fake",
    "sample", "insert", "replace", "example", "todo", "xxxx", "****", "...", "put_", "_here",
)
PLACEHOLDER_VALUES = frozenset({
    "none", "null", "nil", "undefined", "true", "false", "empty", "secret", "password", "passwd",
    "token", "apikey", "api_key", "key", "string", "str", "value", "test", "testing", "default",
    "admin", "root", "user", "username", "pass", "required", "optional", "hidden", "unset",
})
# A whole value that is a reference, not a literal: ${VAR}, {{ var }}, <var>,
# %VAR%, $VAR, [PASSWORD], %s.
TEMPLATE_VALUE = re.compile(
    r"^(?:\$\{.*\}|\$\(.*\)|\{\{.*\}\}|\{[^{}]*\}|<[^<>]*>|%[\w.-]*%|\$[A-Za-z_{(][\w.{}]*"
    r"|\[[^\]]*\]|%[sdr])$",
    re.DOTALL,
)
# An unquoted value that is code: var.db_password, X25519.key_length, getenv(...).
CODE_VALUE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(.*)?$|^[A-Za-z_][\w.]*\(")
_VERSION = re.compile(r"(?<![\w.])v?\d{1,4}\.\d{1,4}\.\d{1,4}")
_UUID = re.compile(r"^[0-9a-fA-F]{8}[-_]?(?:[0-9a-fA-F]{4}[-_]?){3}[0-9a-fA-F]{12}$")
_FILE_SUFFIX = re.compile(r"\.(?:pem|p12|pfx|key|crt|cer|json|ya?ml|txt|env|cfg|conf|ini|png|jpe?g|gif|html?|xml)$")
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
    upper = sum(c.isupper() for c in value)
    if all(c.isalpha() or c in "_-." for c in value) and min(upper, n - upper) < n / 4:
        return False  # words in camelCase, not a random mix of cases
    return entropy(value) >= min(3.0, math.log2(n) - 0.8)


def password_like(value: str, quoted: bool) -> bool:
    """Human-chosen passwords are not random: any real-looking literal counts."""
    if len(value) < 4 or not is_literal(value) or is_stand_in(value):
        return False
    if not any(c.isalnum() for c in value):
        return False
    if " " in value.strip():
        return quoted and len(value.split()) >= 2 and "://" not in value
    return char_classes(value) >= 2


def random_body(body: str) -> bool:
    """The body of a vendor-prefixed token: digits and letters mixed, not a hash or UUID."""
    if _UUID.match(body) or all(c in "0123456789abcdefABCDEF" for c in body):
        return False
    digits = sum(c.isdigit() for c in body)
    return 0.08 <= digits / len(body) <= 0.8 and entropy(body) >= 3.6 and not is_stand_in(body)


def is_literal(value: str) -> bool:
    return not TEMPLATE_VALUE.match(value.strip())


def is_placeholder(value: str) -> bool:
    """``xxxx``, ``<YOUR_KEY>``, ``changeme``, ``aaaa...``: stand-ins, not secrets."""
    low = value.lower()
    if low in PLACEHOLDER_VALUES or any(w in low for w in PLACEHOLDER_WORDS):
        return True
    return bool(low) and max(low.count(c) for c in set(low)) > 0.45 * len(low)


def is_stand_in(value: str) -> bool:
    """A placeholder, or an alphabet listing such as ``abcdefghijklmnop``."""
    return is_placeholder(value) or _longest_ascending_run(value.lower()) >= 12


def _longest_ascending_run(value: str) -> int:
    best = run = 1
    for prev, cur in zip(value, value[1:]):
        run = run + 1 if ord(cur) - ord(prev) == 1 or (prev, cur) == ("9", "a") else 1
        best = max(best, run)
    return best


def char_classes(value: str) -> int:
    """How many of lower, upper, digit and symbol appear (``_-.`` are joiners, not symbols)."""
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() and c not in "_-." for c in value))


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in (value.count(c) for c in set(value))) if n else 0.0


def is_jwt(token: str) -> bool:
    """Header and payload must decode to JSON objects, the header naming ``alg``/``typ``."""
    header, payload = (_b64_json_object(part) for part in token.split(".")[:2])
    return bool(header and payload) and ('"alg"' in header or '"typ"' in header)


def _b64_json_object(segment: str) -> str | None:
    """Decode base64url by hand (a few lines, no extra import) and keep JSON objects."""
    bits = nbits = 0
    raw = bytearray()
    for ch in segment:
        if ch not in _B64URL:
            return None
        bits, nbits = (bits << 6) | _B64URL[ch], nbits + 6
        if nbits >= 8:
            nbits -= 8
            raw.append((bits >> nbits) & 0xFF)
            bits &= (1 << nbits) - 1
    try:
        decoded = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    return decoded if decoded.startswith("{") and decoded.endswith("}") and '":' in decoded else None
