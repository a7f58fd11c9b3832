"""``[http] allowed_hosts`` (issue 19): entries are checked when the config is loaded, in one
canonical spelling, and a bad entry is refused without being echoed."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import host_and_port, load_settings
from engine.errors import MemLensError
from engine.faces.http import HostAllowList, bound_host_names


def _load(tmp_path: Path, toml: str):
    path = tmp_path / "memlens.toml"
    path.write_text(toml, encoding="utf-8")
    return load_settings(path)


def test_entries_load_in_one_spelling(tmp_path: Path) -> None:
    settings = _load(tmp_path, '[http]\nallowed_hosts = ["MemLens.LAN.", "box.lan:9000", "::1", "[0:0::2]:81"]\n')
    assert settings.http.allowed_hosts == ("memlens.lan", "box.lan:9000", "[::1]", "[::2]:81")
    assert _load(tmp_path, "[http]\nport = 8765\n").http.allowed_hosts == ()


@pytest.mark.parametrize("entry", ['"*"', '"*.lan"', '"ghp_Secret0Value/x"', '"a b"', '"host:0"', '"host:99999"',
                                   '"host:80:81"', '"[::1"', '"[fe80::1%eth0]"', '""', "5", '"bad\\u0007host"',
                                   '"exa_mple.com"'])
def test_a_bad_entry_stops_loading_and_is_not_echoed(tmp_path: Path, entry: str) -> None:
    with pytest.raises(MemLensError, match=r"\[http\] allowed_hosts entries must be host names") as caught:
        _load(tmp_path, f"[http]\nallowed_hosts = [{entry}]\n")
    assert "Secret0" not in str(caught.value) and "\x07" not in str(caught.value)


def test_allowed_hosts_must_be_a_list(tmp_path: Path) -> None:
    with pytest.raises(MemLensError, match=r"\[http\] allowed_hosts must be a list"):
        _load(tmp_path, '[http]\nallowed_hosts = "memlens.lan"\n')


def test_a_name_admits_any_port_and_name_port_only_that_port() -> None:
    hosts = HostAllowList(["memlens.lan", "box.lan:9000"])
    for admitted in (b"127.0.0.1", b"127.0.0.1:8765", b"localhost", b"LOCALHOST:1", b"[::1]", b"[::1]:8765",
                     b"memlens.lan:4000", b"box.lan:9000"):
        assert hosts.admits(admitted), admitted
    for refused in (b"box.lan", b"box.lan:9001", b"evil.example", b"127.0.0.1.evil.example", b"localhost.evil",
                    b"[::2]", b"0.0.0.0", b"", b"127.0.0.1:", b"127.0.0.1 ", b"lo\xffcalhost", b"*"):
        assert not hosts.admits(refused), refused


def test_the_bound_address_counts_unless_it_is_a_wildcard() -> None:
    assert bound_host_names("192.168.1.20") == ("192.168.1.20",)
    assert bound_host_names("memlens.lan") == ("memlens.lan",)
    assert bound_host_names("0.0.0.0") == () and bound_host_names("::") == ()
    assert host_and_port("[::1]:8765") == ("[::1]", 8765)
