"""Secrets recognised by the structure around them, whoever issued them.

A private key pasted without its ``-----BEGIN`` line is still a DER private key
in base64, and those open with a few fixed bytes (a version number, an
algorithm identifier, ``openssh-key-v1``). A Kubernetes ``Secret`` manifest
holds secrets in every ``data:`` entry, whatever their names. A connection
string (``Server=...;Password=...;``) holds one after its password field, and a
.NET ``<add key="...Password" value="..."/>`` in its value.
"""

from __future__ import annotations

import base64
import binascii
import re

from engine.absorb import secret_rules as R
from engine.absorb.secret_context import keyword_kind

# Base64 openings of private keys: PKCS#1 RSA/DSA ``MII..IBAAK``, PKCS#8 ``MII..IBAD``,
# small PKCS#8 and SEC1 EC keys, Ed25519, encrypted PKCS#8 (PBES2/PBES1), PKCS#12, OpenSSH.
# Public keys and certificates open differently (``MIIBIjAN``, ``MIIDXTCC``).
_DER_PRIVATE = re.compile(
    r"(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{3}IBA(?:AK|D|zCC)|MI[GH][A-Za-z0-9+/]AgE(?:AMB|BB)|MH[cQ]CAQEEI"
    r"|MC4CAQAwBQYDK2Vw|M[IH][A-Za-z0-9+/]{2,6}(?:BgkqhkiG9w0BBQ0w|GCSqGSIb3DQEFDTB|BgoqhkiG9w0BDAE|GCiqGSIb3DQEMAQ)"
    r"|b3BlbnNzaC1rZXktdjE)(?:[A-Za-z0-9+/=]|\r?\n|\\n|[ \t]){40,}"
)
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d:.*?Private-Lines:\s*\d+\s*(?P<body>[A-Za-z0-9+/=\s]{40,})", re.DOTALL)
_K8S_KIND = re.compile(r"""(?:^|\n)\s*kind:\s*["']?Secret["']?\s*(?:\n|$)|"kind"\s*:\s*"Secret\"""")
_YAML_DATA = re.compile(r"(?m)^(?P<indent>[ \t]*)(?P<section>data|stringData):[ \t]*$")
_YAML_ENTRY = re.compile(r"""(?P<indent>[ \t]+)[\w.-]+:[ \t]*(?P<q>["']?)(?P<v>[^\s"'#]+)(?P=q)[ \t]*(?:#.*)?$""")
_JSON_DATA = re.compile(r'"(?P<section>data|stringData)"\s*:\s*\{(?P<body>[^{}]*)\}')
_JSON_ENTRY = re.compile(r'"[\w.-]+"\s*:\s*"(?P<v>[^"]*)"')
# .NET and NuGet configuration: ``<add key="ClearTextPassword" value="..." />``.
_ADD_KEY = re.compile(r'<add\s+key\s*=\s*"(?P<k>[^"<>]{2,80})"\s+value\s*=\s*"(?P<v>[^"<>]{1,500})"')
_CONNECTION_FIELD = re.compile(r"(?i)(?:^|[;\s\"'])(?:server|data source|host|hostname|address|uid|user id|username"
                               r"|database|initial catalog|port|endpoint|accountname)\s*=")
_CONNECTION_PASSWORD = re.compile(r"(?i)(?:^|[;\s\"'])(?:password|pwd)\s*=\s*(?P<v>[^;\"'\s]{3,})")


def structure_hits(text: str, has_run: bool) -> list[tuple[int, int, str]]:
    """``(start, end, rule)`` of headerless private keys (only where ``has_run``: the text holds a
    long run of token characters), Secret manifests' data and connection-string passwords."""
    out = []
    if has_run and ("MI" in text or "b3BlbnNzaC1rZXkt" in text or "PuTTY-" in text):
        out += [(m.start(), m.start() + len(m.group().rstrip()), "private-key-body")
                for m in _DER_PRIVATE.finditer(text)]
        out += [(m.start("body"), m.end("body"), "private-key-body") for m in _PUTTY.finditer(text)]
    if "Secret" in text and "ata" in text and _K8S_KIND.search(text):
        out += _manifest_hits(text)
    if "<add" in text:
        out += [(m.start("v"), m.end("v"), "config-value") for m in _ADD_KEY.finditer(text) if _config_value(m)]
    if ";" in text and "=" in text and _CONNECTION_FIELD.search(text):
        out += [(m.start("v"), m.end("v"), "connection-string-password") for m in _CONNECTION_PASSWORD.finditer(text)
                if R.password_like(m.group("v").rstrip(";"), quoted=True)]
    return out


def _config_value(m: re.Match[str]) -> bool:
    kind = keyword_kind(m.group("k"))
    if kind == "password":
        return R.password_like(m.group("v"), quoted=True)
    return kind is not None and R.looks_random(m.group("v"))


def _manifest_hits(text: str) -> list[tuple[int, int, str]]:
    out = []
    for m in _YAML_DATA.finditer(text):
        indent = len(m.group("indent").expandtabs())
        pos = m.end() + 1
        for line in text[pos:].split("\n"):
            entry = _YAML_ENTRY.match(line)
            if entry is None or len(entry.group("indent").expandtabs()) <= indent:
                if line.strip() and not line.lstrip().startswith("#"):
                    break  # the block ended
            elif _manifest_value(entry.group("v"), m.group("section")):
                out.append((pos + entry.start("v"), pos + entry.end("v"), "kubernetes-secret"))
            pos += len(line) + 1
    for m in _JSON_DATA.finditer(text):
        offset = m.start("body")
        out += [(offset + e.start("v"), offset + e.end("v"), "kubernetes-secret")
                for e in _JSON_ENTRY.finditer(m.group("body")) if _manifest_value(e.group("v"), m.group("section"))]
    return out


def _manifest_value(value: str, section: str) -> bool:
    """A ``data:`` value is base64 of something real; a ``stringData:`` value is the secret itself."""
    if not R.is_literal(value) or R.is_placeholder(value):
        return False
    if section == "stringData":
        return R.password_like(value, quoted=True)
    if len(value) < 8 or len(value) % 4 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value):
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return True  # binary: a key or a keystore
    return len(decoded.strip()) >= 4 and R.is_literal(decoded) and not R.is_placeholder(decoded.strip())
