"""Tests for the secret detector (``engine.absorb.secrets``).

Every key below is synthetic: built at run time from a seeded generator and
string concatenation, so no scanner mistakes this file for a leak and no real
credential is involved.
"""

from __future__ import annotations

import base64
import json
import random
import string
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.absorb.secrets import SecretFinding, find_secrets, first_secret

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"


def fake(n: int, alphabet: str = ALNUM, seed: int = 0) -> str:
    """A deterministic random-looking string: the shape of a key, none of its value."""
    rng = random.Random(f"{seed}-{n}-{alphabet}")
    return "".join(rng.choice(alphabet) for _ in range(n))


def digits(n: int, seed: int = 0) -> str:
    return fake(n, string.digits, seed)


def b64url(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def pem(kind: str) -> str:
    body = "\n".join(fake(64, B64, seed=i) for i in range(4))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


JWT = ".".join([b64url({"alg": "HS256", "typ": "JWT"}), b64url({"sub": "4242", "name": "Ada"}),
                fake(43, ALNUM + "-_")])

# (rule, text before, secret, text after): the secret sits mid-sentence.
EMBEDDED = [
    ("openai-api-key", "my key is ", "sk-" + "proj-" + fake(74, ALNUM + "-_") + "T3Blbk" + "FJ" + fake(74, ALNUM + "-_"),
     " please keep it"),
    ("openai-api-key", "old style ", "sk-" + fake(20) + "T3Blbk" + "FJ" + fake(20, seed=1), " was revoked"),
    ("anthropic-api-key", "use ", "sk-" + "ant-api03-" + fake(93, ALNUM + "-_") + "AA", " for claude"),
    ("aws-access-key-id", "id ", "AKIA" + fake(16, UPPER_DIGITS), " in us-east-1"),
    ("aws-access-key-id", "session ", "ASIA" + fake(16, UPPER_DIGITS, seed=1), " expires soon"),
    ("aws-secret-access-key", 'aws_secret_access_key = "', fake(40, B64), '" in the file'),
    ("github-token", "push with ", "ghp_" + fake(36), " today"),
    ("github-token", "app token ", "ghs_" + fake(36, seed=2), " rotated"),
    ("github-token", "fine grained ", "github_pat_" + fake(22) + "_" + fake(59), " works"),
    ("gitlab-token", "ci uses ", "glpat-" + fake(20, ALNUM + "_-"), " daily"),
    ("slack-token", "bot ", "xoxb-" + digits(12) + "-" + digits(13) + "-" + fake(24), " posts"),
    ("slack-token", "user ", "xoxp-" + digits(11) + "-" + digits(12) + "-" + digits(13) + "-" + fake(32, HEX),
     " reads"),
    ("slack-webhook", "hook ", "https://hooks.slack.com/services/T" + fake(8, UPPER_DIGITS) + "/B"
     + fake(8, UPPER_DIGITS) + "/" + fake(24), " for alerts"),
    ("stripe-key", "billing ", "sk_" + "live_" + fake(24), " charges"),
    ("stripe-key", "restricted ", "rk_" + "live_" + fake(24, seed=3), " reads"),
    ("stripe-key", "testing ", "sk_" + "test_" + fake(24, seed=4), " only"),
    ("google-api-key", "maps ", "AIza" + fake(35, ALNUM + "-_"), " loads"),
    ("jwt", "Authorization header was ", JWT, " yesterday"),
    ("private-key-block", "deploy key:\n", pem("RSA PRIVATE KEY"), "\nend"),
    ("private-key-block", "ec: ", pem("EC PRIVATE KEY"), " done"),
    ("private-key-block", "ssh: ", pem("OPENSSH PRIVATE KEY"), " done"),
    ("private-key-block", "dsa: ", pem("DSA PRIVATE KEY"), " done"),
    ("private-key-block", "gpg: ", pem("PGP PRIVATE KEY BLOCK"), " done"),
    ("private-key-block", "pkcs8: ", pem("ENCRYPTED PRIVATE KEY"), " done"),
    ("url-credentials", "db is postgres://admin:", "Zq8" + fake(13), "@db.internal:5432/app now"),
    ("curl-credentials", "run curl -u deploy:", "pR7x" + fake(8), " https://api.example.org/v1"),
    ("password-assignment", 'config has password = "', "Tr0ub4dor&" + digits(1), '" in it'),
    ("password-assignment", "DB_PASSWORD=", "m4ple-" + fake(6), " in .env"),
    ("secret-assignment", "api_key: ", fake(32), " is set"),
    ("secret-assignment", '{"token": "', fake(40, seed=5), '"}'),
    ("secret-assignment", "export SECRET=", fake(32, seed=6), "\n"),
    ("secret-assignment", "<authToken>", fake(28, seed=7), "</authToken>"),
    ("bearer-token", "Authorization: Bearer ", fake(40, seed=8), " was sent"),
    ("npm-token", "registry ", "npm_" + fake(36), " publishes"),
    ("pypi-token", "upload with ", "pypi-" + "AgEIcHlwaS5vcmc" + fake(120, ALNUM + "-_"), " ok"),
    ("twilio-key", "sms ", "SK" + fake(32, HEX), " sends"),
    ("sendgrid-api-key", "mail ", "SG." + fake(22, ALNUM + "-_") + "." + fake(43, ALNUM + "-_"), " sends"),
    ("huggingface-token", "hub ", "hf_" + fake(34, string.ascii_letters), " pulls"),
    ("digitalocean-token", "droplets ", "dop_v1_" + fake(64, HEX), " created"),
    ("shopify-token", "store ", "shpat_" + fake(32, HEX), " syncs"),
    ("atlassian-api-token", "jira ", "ATATT3" + fake(180, ALNUM + "-_="), " works"),
    ("azure-storage-key", "conn DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=",
     fake(86, B64) + "==", ";EndpointSuffix=core.windows.net"),
    ("discord-bot-token", "bot ", "M" + fake(23) + "." + fake(6) + "." + fake(27), " joined"),
    ("telegram-bot-token", "bot ", digits(10) + ":AA" + fake(33, ALNUM + "_-"), " replies"),
    ("1password-secret-key", "emergency kit ", "A3-" + "-".join(fake(k, UPPER_DIGITS, seed=k)
                                                                 for k in (6, 11, 5, 5, 5)), " stored"),
    ("prefixed-token", "infra ", "zyx_" + fake(36, seed=9), " token"),
    ("secret-assignment", "deploy --api-key ", fake(32, seed=16), " --region eu"),
    ("secret-assignment", 'System.setProperty("DRONE_TOKEN", "', fake(32, seed=17), '");'),
    ("secret-assignment", 'if ("', fake(30, seed=18), '" == api_key) {'),
    ("secret-assignment", "My API key: ", fake(32, HEX, seed=19), " (rotate monthly)"),
    ("password-assignment", "Note: the office wifi password is ", "sunflower" + digits(4), ", ask Ana."),
]


@pytest.mark.parametrize(("rule", "before", "secret", "after"), EMBEDDED, ids=[e[0] for e in EMBEDDED])
def test_finds_each_format_at_its_exact_position(rule: str, before: str, secret: str, after: str) -> None:
    text = before + secret + after
    assert find_secrets(text) == [SecretFinding(rule, len(before), len(before) + len(secret))]
    assert first_secret(text) == SecretFinding(rule, len(before), len(before) + len(secret))


LOOK_ALIKES = [
    "Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b yesterday.",
    "see a1b2c3d and 9fceb02d0ae5 for the fix",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed",
    "md5 d41d8cd98f00b204e9800998ecf8427e and sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "pull python@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "upgraded to v1.2.3, then 1.0.0-rc.1 and 2.10.0b3",
    "https://example.com/search?page=2&token_type=bearer&sort=desc",
    "https://example.com/oauth/callback?state=ok&next=/home",
    "/usr/local/lib/python3.11/site-packages/engine/secrets.py",
    r"C:\Users\me\AppData\Local\Temp\build_output_2024.txt",
    "The word SGVsbG8gd29ybGQ is hello world in base64.",
    "I forgot my password again",
    "the API key is in the vault",
    "token budget of 2048",
    "password: see 1Password",
    "The key to success is consistency: practise every day.",
    "The password policy requires twelve characters.",
    "Bearer of bad news, I'm afraid.",
    "email me at john.smith@example.com or call 555-123-4567",
    "mongodb://localhost:27017/mydb",
    'password = "changeme"',
    'api_key = "<YOUR_KEY>"',
    "token: ${TOKEN}",
    "password=*****",
    'api_key = "xxxxxxxxxxxxxxxxxxxx"',
    'secret: "{{ vault_secret }}"',
    'API_KEY = os.environ["API_KEY"]',
    'password = os.getenv("DB_PASSWORD")',
    "postgres://app:${DB_PASSWORD}@db:5432/app",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "max_tokens: 4096",
    "token_type: bearer",
    "public_key = " + fake(43, seed=10),
    "key_id = 7f3a1c9e-5b2d-4e8f-9a6b-3c1d2e4f5a6b",
    "tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')",
    "-----BEGIN PUBLIC KEY-----\n" + fake(64, B64) + "\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\n" + fake(64, B64) + "\n-----END CERTIFICATE-----",
    "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
    # Code that mentions keys and tokens without holding one.
    "if token == other.token: return True",
    "password: SecretStr",
    "Either pass `rescore=False` or quantize the query.",
    "DispatchKey::CompositeImplicitAutograd",
    "entity_mask_token=entity_mask_token,",
    'IMAGE_TOKEN = "<image>"',
    """jsonnet_token = r'[^\\W\\d]\\w*'""",
    'cache_key = f"{user_id}:{page}"',
    'assert result.index.tz.key == "Europe/Berlin"',
    'classifier_key = "complex128"',
    "csrf_token = " + fake(40, seed=20),
    "https://user:password@example.com/docs",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []
    assert first_secret(text) is None


@pytest.mark.parametrize(("rule", "before", "secret", "after"), EMBEDDED, ids=[e[0] for e in EMBEDDED])
def test_finding_never_shows_the_secret(rule: str, before: str, secret: str, after: str) -> None:
    finding = first_secret(before + secret + after)
    assert finding is not None
    for shown in (repr(finding), str(finding)):
        # No 8-character window of the secret (the rule name may share a prefix like "github").
        assert all(secret[i:i + 8] not in shown for i in range(len(secret) - 7))


def test_finding_has_no_value_field() -> None:
    assert set(SecretFinding.__slots__) == {"rule", "start", "end"}


def test_several_secrets_are_all_found_in_order() -> None:
    github, aws = "ghp_" + fake(36, seed=11), "AKIA" + fake(16, UPPER_DIGITS, seed=12)
    password = "Winter" + digits(4) + "!"
    text = f"first {github}, then {aws} and finally password = '{password}' done"
    found = find_secrets(text)
    assert [(f.rule, text[f.start:f.end]) for f in found] == [
        ("github-token", github), ("aws-access-key-id", aws), ("password-assignment", password)]
    assert first_secret(text) == found[0]


def test_findings_never_overlap() -> None:
    text = 'githubToken = "' + "ghp_" + fake(36, seed=13) + '"'
    found = find_secrets(text)
    assert [f.rule for f in found] == ["github-token"]


@pytest.mark.parametrize("text", ["", " ", "\n\n", "a", "password", "key=", "-----BEGIN"])
def test_degenerate_inputs(text: str) -> None:
    assert find_secrets(text) == []
    assert first_secret(text) is None


@pytest.mark.parametrize("text", [
    "\x00\x01\x02 token = \x7f\x1b[31m",
    "Grüße aus München: das Passwort ist geheim, naïve café ☕ 🔑",
    "パスワードを忘れました。キーは金庫にあります。",
    "key=\udcff\ud800 broken surrogates",
    "token: é" + "ü" * 40,
])
def test_control_and_non_ascii_text_do_not_crash(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(("rule", "before", "secret"), [
    ("github-token", "Grüße 🔑 mein Schlüssel: ", "ghp_" + fake(36, seed=14)),
    # "İ".lower() is two characters long: offsets must not drift after it.
    ("password-assignment", "İstanbul İİİ ofisi: db_password = '", "Kedi" + digits(4, seed=21) + "!"),
    ("secret-assignment", "ÇİĞ İÖÜ api_key: ", fake(32, seed=22)),
])
def test_secret_after_non_ascii_text_keeps_character_offsets(rule: str, before: str, secret: str) -> None:
    found = find_secrets(before + secret + "' end")
    assert found == [SecretFinding(rule, len(before), len(before) + len(secret))]


def test_one_megabyte_of_prose_is_clean_and_quick() -> None:
    sentence = "We talked about the trip, the token budget of 2048 and where the spare key is. "
    text = (sentence * (1_000_000 // len(sentence) + 1))[:1_000_000]
    start = time.perf_counter()
    assert find_secrets(text) == []
    assert time.perf_counter() - start < 5.0


def test_one_megabyte_with_a_secret_at_the_end() -> None:
    secret = "sk_" + "live_" + fake(24, seed=15)
    text = "x " * 500_000 + secret
    assert find_secrets(text) == [SecretFinding("stripe-key", 1_000_000, 1_000_000 + len(secret))]


@pytest.mark.parametrize("sentence", [
    "John: I finally passed my driving test, the key was practice!",
    "Maria: Can you pass me the recipe? My secret ingredient is cinnamon.",
    "Sam: The concert tickets are $45: cheap for front row.",
    "Alex: My password manager keeps nagging me: update, update, update.",
    "Lee: At 3:30pm we met at Gate B12 = the usual spot.",
])
def test_natural_dialogue_is_never_flagged(sentence: str) -> None:
    assert find_secrets(sentence) == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_text_gives_sorted_disjoint_spans(text: str) -> None:
    found = find_secrets(text)
    assert all(0 <= f.start < f.end <= len(text) for f in found)
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))
    assert first_secret(text) == (found[0] if found else None)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=ALNUM + "_-=:\"' ./+{}$<>", max_size=300))
def test_code_like_text_never_crashes(text: str) -> None:
    find_secrets("api_key = " + text)
    find_secrets("password: " + text)


def test_prose_scan_is_fast() -> None:
    # The budget is about 10 us per 200 characters; the bound here only catches regressions
    # of an order of magnitude, so a slow CI machine does not make the test flaky.
    texts = [f"Day {i}: we walked to the harbour, talked about the token budget, and the key " * 2 for i in range(200)]
    start = time.perf_counter()
    for text in texts:
        first_secret(text)
    assert (time.perf_counter() - start) / len(texts) < 200e-6
