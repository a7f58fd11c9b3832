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


@pytest.mark.timeout(120)  # a deadline against catastrophic backtracking, not a speed figure
def test_one_megabyte_of_prose_is_clean() -> None:
    sentence = "We talked about the trip, the token budget of 2048 and where the spare key is. "
    text = (sentence * (1_000_000 // len(sentence) + 1))[:1_000_000]
    assert find_secrets(text) == []


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


# --- providers from the public catalogues (gitleaks, trufflehog, detect-secrets) ------------------

def der_b64(header: bytes, n: int = 600, seed: int = 0, width: int = 64) -> str:
    """A base64 body that opens like a DER structure: ``header`` then random bytes, in PEM-width lines."""
    rng = random.Random(seed)
    encoded = base64.b64encode(header + bytes(rng.randrange(256) for _ in range(n))).decode()
    return "\n".join(encoded[i:i + width] for i in range(0, len(encoded), width))


RSA_PKCS1 = bytes.fromhex("308204a40201000282010100")
PKCS8 = bytes.fromhex("308204be020100300d06092a864886f70d0101010500048204a8")
OPENSSH = b"openssh-key-v1\x00"
PUBLIC_KEY = bytes.fromhex("30820122300d06092a864886f70d01010105000382010f00")
CERTIFICATE = bytes.fromhex("3082035d30820245a003020102020900")

CATALOGUE = [
    ("groq-api-key", "gsk_" + fake(52, seed=30)),
    ("xai-api-key", "xai-" + fake(80, seed=31)),
    ("perplexity-api-key", "pplx-" + fake(48, seed=32)),
    ("replicate-api-token", "r8_" + fake(37, seed=33)),
    ("pinecone-api-key", "pcsk_" + fake(5, seed=34) + "_" + fake(63, seed=35)),
    ("dockerhub-token", "dckr_pat_" + fake(27, ALNUM + "_-", seed=36)),
    ("supabase-token", "sbp_" + fake(40, HEX, seed=37)),
    ("linear-api-key", "lin_api_" + fake(40, seed=38)),
    ("notion-token", "ntn_" + digits(11, seed=39) + fake(35, seed=40)),
    ("stripe-webhook-secret", "whsec_" + fake(32, seed=41)),
    ("tailscale-key", "tskey-auth-" + fake(12, seed=42) + "-" + fake(30, seed=43)),
    ("postman-api-key", "PMAK-" + fake(24, HEX, seed=44) + "-" + fake(34, HEX, seed=45)),
    ("sk-api-key", "sk-" + fake(48, seed=46)),  # OpenAI's older keys and OpenAI-style APIs
    ("openrouter-api-key", "sk-or-v1-" + fake(64, HEX, seed=47)),
    ("anthropic-api-key", "sk-" + "ant-api03-" + fake(88, ALNUM + "-_", seed=48) + "AA"),  # 103 characters
    ("anthropic-api-key", "sk-" + "ant-api03-" + fake(61, ALNUM + "-_", seed=49)),  # cut short, still long
    ("gitlab-token", "glrt-" + fake(24, ALNUM + "_-", seed=50)),
    ("cloudflare-api-token", "cfut_" + fake(40, seed=51) + fake(8, HEX, seed=52)),
]


@pytest.mark.parametrize(("rule", "secret"), CATALOGUE, ids=[f"{r}-{i}" for i, (r, _) in enumerate(CATALOGUE)])
def test_catalogue_formats_are_found(rule: str, secret: str) -> None:
    text = f"deploy note: {secret} (rotate quarterly)"
    assert find_secrets(text) == [SecretFinding(rule, 13, 13 + len(secret))]


def test_a_103_character_anthropic_key_is_one_finding() -> None:
    key = "sk-" + "ant-api03-" + fake(88, ALNUM + "-_", seed=53) + "AA"
    assert len(key) == 103
    assert find_secrets(f"ANTHROPIC_API_KEY={key}") == [SecretFinding("anthropic-api-key", 18, 18 + len(key))]


# --- issue 19, item 9 -----------------------------------------------------------------------------

@pytest.mark.parametrize(("before", "rule", "secret", "after"), [
    ("GET https://api.example.org/v1/", "github-token", "ghp_" + fake(36, seed=54), "/repos"),
    ("https://registry.example.org/download.", "npm-token", "npm_" + fake(36, seed=55), " failed"),
    ("https://hooks.example.net/services/", "keyword-context", fake(32, seed=56), ""),
], ids=["after-slash", "after-dot", "webhook-path"])
def test_token_after_slash_or_dot_in_a_url_path(before: str, rule: str, secret: str, after: str) -> None:
    assert find_secrets(before + secret + after) == [SecretFinding(rule, len(before), len(before) + len(secret))]


@pytest.mark.parametrize("invisible", ["\u200b", "\u00ad", "\u200d", "\ufeff"])
def test_token_split_by_an_invisible_character(invisible: str) -> None:
    token = "ghp_" + fake(36, seed=57)
    split = token[:15] + invisible + token[15:]
    text = "my token " + split + " expires"
    assert find_secrets(text) == [SecretFinding("github-token", 9, 9 + len(split))]


def test_invisible_characters_keep_later_spans_right() -> None:
    key = "AKIA" + fake(16, UPPER_DIGITS, seed=58)
    text = "a\u200bb\u00adc " + key[:8] + "\u200b" + key[8:] + " tail"
    (found,) = find_secrets(text)
    assert (found.rule, text[found.start:found.end].replace("\u200b", "")) == ("aws-access-key-id", key)


@pytest.mark.parametrize("line", [
    'OPENAI_API_KEY="{}"', "export OPENAI_API_KEY={}", "MY_LLM='{}'", "LLM_KEY: {}",
])
def test_sk_key_in_env_syntax(line: str) -> None:
    key = "sk-" + fake(48, seed=59)
    text = line.format(key)
    assert [(f.rule, text[f.start:f.end]) for f in find_secrets(text)] == [("sk-api-key", key)]


@pytest.mark.parametrize("template", [
    "aws_secret_access_key = {}", "AWS_SECRET_ACCESS_KEY={}", "aws_secret_access_key: {}",
    '"SecretAccessKey": "{}"', "[default]\naws_access_key_id = AKIA" + "Q" * 16 + "\naws_secret_access_key = {}\n",
])
def test_aws_secret_access_key_after_its_label(template: str) -> None:
    secret = fake(40, B64, seed=60)
    text = template.format(secret)
    assert any(text[f.start:f.end] == secret for f in find_secrets(text))


@pytest.mark.parametrize("header", [RSA_PKCS1, PKCS8, OPENSSH], ids=["pkcs1", "pkcs8", "openssh"])
def test_private_key_body_without_its_header(header: bytes) -> None:
    body = der_b64(header, seed=61)
    text = "the key was:\n" + body + "\n(rotated since)"
    assert find_secrets(text) == [SecretFinding("private-key-body", 13, 13 + len(body))]


@pytest.mark.parametrize("header", [PUBLIC_KEY, CERTIFICATE], ids=["public-key", "certificate"])
def test_public_key_and_certificate_bodies_are_not_secrets(header: bytes) -> None:
    assert find_secrets("cert:\n" + der_b64(header, seed=62)) == []


@pytest.mark.parametrize("text", [
    "Payment " + "pi_" + "3Mtw" + fake(20, seed=63) + " succeeded",
    "webhook event " + "evt_" + "1N" + fake(22, seed=64) + " arrived",
    "customer " + "cus_" + fake(14, seed=65) + " upgraded",
    "charge " + "ch_" + "3M" + fake(22, seed=66) + " refunded",
    "subscription " + "sub_" + "1M" + fake(22, seed=67) + " renewed",
    "invoice " + "in_" + "1M" + fake(22, seed=68) + " paid",
    "Loaded APDefaultSettings from the plist",
    "the APDefaultSettings class and APRecentSearchesController",
], ids=["pi", "evt", "cus", "ch", "sub", "in", "camelcase", "camelcase-2"])
def test_stripe_object_ids_and_camelcase_names_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(("rule", "secret"), [
    ("stripe-key", "sk_" + "live_" + fake(24, seed=69)),
    ("stripe-key", "rk_" + "live_" + fake(24, seed=70)),
    ("stripe-webhook-secret", "whsec_" + fake(32, seed=71)),
], ids=["sk_live", "rk_live", "whsec"])
def test_stripe_secret_keys_are_secrets(rule: str, secret: str) -> None:
    assert find_secrets(f"stripe: {secret}") == [SecretFinding(rule, 8, 8 + len(secret))]


# --- credential word or provider name before a random value ---------------------------------------

RANDOM = fake(32, seed=72)
KEYWORD_CONTEXT = [
    '"apiKey": "{}"', "clientSecret: {}", "api-key = {}", "ACCESS_KEY={}", "X-Auth-Token: {}",
    "curl -H 'Authorization: Bearer {}' https://api.example.org", "curl -H 'X-Api-Key: {}' https://api.example.org",
    "https://api.example.org/v1/items?token={}&page=2", "private_key => '{}'", "the bearer token is {} for now",
    "access_key:\n  {}",
]


@pytest.mark.parametrize("template", KEYWORD_CONTEXT)
def test_credential_words_in_any_spelling(template: str) -> None:
    text = template.format(RANDOM)
    assert [text[f.start:f.end] for f in find_secrets(text)] == [RANDOM]


@pytest.mark.parametrize("template", [
    "zerobounce: {}", 'mailjet = "{}"', "client = Mailjet({!r})", "Using the sendbird integration with {} from now on",
])
def test_provider_name_before_a_random_value(template: str) -> None:
    text = template.format(RANDOM)
    assert [(f.rule, text[f.start:f.end]) for f in find_secrets(text)] == [("vendor-context", RANDOM)]


def test_curl_user_and_password() -> None:
    text = "curl -u deploy:" + "Zx8" + fake(12, seed=73) + " https://ci.example.org/api"
    assert [f.rule for f in find_secrets(text)] == ["curl-credentials"]


@pytest.mark.parametrize("template", [
    'public_key = "{}"', "commit_sha: {}", '"signature": "{}"', "csrf_token={}", "request_id: {}",
    "publicToken = '{}'", 'image_digest = "{}"', "primaryKey={}", "key_id = {}",
])
def test_harmless_labels_veto_a_random_value(template: str) -> None:
    assert find_secrets(template.format(RANDOM)) == []


def test_quoted_random_string_with_no_label() -> None:
    value = fake(40, seed=74)
    text = f'client.connect("{value}")'
    assert find_secrets(text) == [SecretFinding("high-entropy-string", 16, 16 + len(value))]


def test_a_strict_provider_shape_decides_alone() -> None:
    # ``telegram`` names a published shape (<bot id>:<35 characters>); a value of another shape is not its token.
    assert find_secrets('telegram_token = "x = "7055:A' + fake(34, seed=75) + '""') == []


# --- structure: manifests, connection strings, URLs, JWTs -----------------------------------------

def test_kubernetes_secret_manifest_data() -> None:
    value = base64.b64encode(("Rk9" + fake(13, seed=76)).encode()).decode()
    text = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {value}\n"
    assert find_secrets(text) == [SecretFinding("kubernetes-secret", text.index(value), text.index(value) + len(value))]


def test_kubernetes_configmap_and_templated_secret_are_not_flagged() -> None:
    value = base64.b64encode(b"not a secret at all").decode()
    assert find_secrets(f"kind: ConfigMap\ndata:\n  greeting: {value}\n") == []
    assert find_secrets("kind: Secret\ndata:\n  password: {{ .Values.password | b64enc }}\n") == []


@pytest.mark.parametrize(("rule", "text", "secret"), [
    ("connection-string-password", "Server=db.internal;Database=app;User Id=svc;Password={};",
     "Qv7!" + fake(10, seed=77)),
    ("url-credentials", "postgres://svc:{}@db.internal:5432/app", "Qv7" + fake(13, seed=78)),
    ("url-credentials", "mongodb+srv://svc:{}@cluster0.example.mongodb.net/app", "Qv7" + fake(13, seed=79)),
    ("config-value", '<add key="ClearTextPassword" value="{}" />', "Qv7!" + fake(9, seed=80)),
], ids=["connection-string", "postgres", "mongodb+srv", "nuget-config"])
def test_credentials_in_connection_strings_and_urls(rule: str, text: str, secret: str) -> None:
    full = text.format(secret)
    assert find_secrets(full) == [SecretFinding(rule, full.index(secret), full.index(secret) + len(secret))]


def test_base64_of_a_jwt() -> None:
    token = base64.b64encode(JWT.encode()).decode()
    assert [f.rule for f in find_secrets(f"cookie={token}")] == ["jwt-base64"]


# --- what ordinary text and code look like --------------------------------------------------------

@pytest.mark.parametrize("text", [
    "See https://github.com/acme/app/commit/3f786850e387550fdab836ed7e6dc881de23001b for the fix.",
    "https://acme.notion.site/Roadmap-BD80F56CDC1441E6BF6011AB6D852875",
    '@auto_docstring(checkpoint="zai-org/GLM-ASR-Nano-2512")',
    "token = floatToFixedToStr(token, precisionBits=16)",
    'iam_api_key="%s" % IBM_IAM_API_KEY_ENV',
    "The ticket 123e4567-e89b-12d3-a456-426614174000 was closed after v2.14.3 shipped.",
    "I moved the photos to /home/maria/Pictures/2023_summer_vacation_italy/",
    "we pinned python@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    'integrity="sha512-' + fake(86, B64, seed=81) + '=="',
    "RecentSearchesViewControllerDelegate and NSFetchedResultsControllerDelegate conform",
    "She said the password to the wifi is on the fridge, and the key is under the mat.",
    "Melanie: I finally finished reading 'Thinking, Fast and Slow' - thanks for the recommendation!",
    "data:image/png;base64," + fake(60, B64, seed=82),
    "Listen to this: https://open.spotify.com/track/" + fake(22, seed=86) + "?si=" + fake(16, HEX, seed=87),
    "Here are the photos https://www.dropbox.com/s/" + fake(15, seed=88) + "/beach.jpg?dl=0",
    "notes: https://docs.google.com/document/d/1" + fake(43, ALNUM + "-_", seed=89) + "/edit",
])
def test_ordinary_text_and_code_are_clean(text: str) -> None:
    assert find_secrets(text) == []


# --- knobs and entropy helpers --------------------------------------------------------------------

def test_scan_with_default_knobs_is_find_secrets() -> None:
    from engine.absorb.secret_entropy import DEFAULT_KNOBS
    from engine.absorb.secrets import scan
    text = "zerobounce: " + RANDOM + " and ghp_" + fake(36, seed=83)
    assert scan(text, DEFAULT_KNOBS) == find_secrets(text)


def test_switching_a_rule_off_leaves_the_generic_evidence() -> None:
    import dataclasses

    from engine.absorb.secret_entropy import DEFAULT_KNOBS
    from engine.absorb.secrets import scan
    text = "ghp_" + fake(36, seed=84)
    knobs = dataclasses.replace(DEFAULT_KNOBS, disabled=frozenset({"github-token"}), pinned_prefixes=False)
    assert [f.rule for f in scan(text, knobs)] == ["prefixed-token"]


def test_expected_entropy_matches_random_strings() -> None:
    from engine.absorb.secret_entropy import entropy_deficit, expected_entropy
    rng = random.Random(85)
    for k, alphabet in ((16, HEX), (62, ALNUM)):
        samples = ["".join(rng.choice(alphabet) for _ in range(32)) for _ in range(300)]
        mean_deficit = sum(entropy_deficit(s) for s in samples) / len(samples)
        assert abs(mean_deficit) < 0.03
    assert expected_entropy(32, 16) == pytest.approx(3.61, abs=0.01)


@pytest.mark.parametrize(("value", "size"), [
    ("0123456789", 10), ("deadbeef0123", 16), ("abc123xyz", 36), ("AbC123xyz", 62), ("Ab+/9", 64), ("ab-12_cd", 38),
])
def test_alphabet_size(value: str, size: int) -> None:
    from engine.absorb.secret_entropy import alphabet_size
    assert alphabet_size(value) == size
