"""Load: four front ends writing and searching one file at once, and the HTTP server under concurrent clients.

Four processes share one memory file: a CLI-style worker (the engine facade, actor ``cli``), an
HTTP client of a real ``memlens serve`` subprocess, an MCP client driving a real ``memlens mcp``
subprocess on stdio, and a GUI stand-in (the facade, actor ``gui``). Checked: no error of any kind
(``database is locked`` included) reaches a worker, no write is lost (the facts and the journal's
absorb / reinforce rows match what the workers were told), and every search hit names a fact that
exists with the text it was shown. Throughput and p95 latency are printed and go into the
``make stress`` table; they are reported, never asserted.

Sizes: ``MEMLENS_STRESS_WRITES`` / ``MEMLENS_STRESS_SEARCHES`` (totals over the four workers;
120 and 600 by default, ``make stress`` runs 2,000 and 10,000; ``MEMLENS_STRESS=1`` alone picks
those too) and ``MEMLENS_STRESS_HTTP_REQUESTS`` for the HTTP test (800 by default, 8,000 long).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from engine import Memory
from engine.store.plans import INSERTING

from tests.api.conftest import free_port
from tests.reliability.conftest import REPORT

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("load_worker.py")
LONG = os.environ.get("MEMLENS_STRESS") == "1"
WRITES = int(os.environ.get("MEMLENS_STRESS_WRITES", "2000" if LONG else "120"))
SEARCHES = int(os.environ.get("MEMLENS_STRESS_SEARCHES", "10000" if LONG else "600"))
HTTP_REQUESTS = int(os.environ.get("MEMLENS_STRESS_HTTP_REQUESTS", "8000" if LONG else "800"))
KINDS = ("cli", "http", "mcp", "gui")
RSS_GROWTH = 0.30  # the server's RSS may grow at most this much from the first to the last quarter


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen, Path]]:
    """A real ``memlens serve`` on a free loopback port over tmp_path/load.sqlite."""
    db = tmp_path / "load.sqlite"
    port = free_port()
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "engine.faces.cli.main", "--db", str(db), "serve", "--port", str(port)],
                            cwd=ROOT, env=_env(), stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            try:
                if httpx.get(f"{url}/stats", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.1)
        yield url, proc, db
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if n < total % parts else 0) for n in range(parts)]


@pytest.mark.slow
def test_four_front_ends_write_and_search_one_file(tmp_path: Path, server) -> None:
    url, server_proc, db = server
    start = tmp_path / "start"
    writes, searches = _split(WRITES, len(KINDS)), _split(SEARCHES, len(KINDS))
    procs, outs = [], []
    for n, kind in enumerate(KINDS):
        out = tmp_path / f"{kind}.json"
        outs.append(out)
        procs.append(subprocess.Popen(
            [sys.executable, str(WORKER), kind, str(db), str(out), str(start), str(writes[n]), str(searches[n]), str(n), url],
            cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=open(tmp_path / f"{kind}.err", "w"), text=True))
    for kind, proc in zip(KINDS, procs):
        assert proc.stdout.readline().strip() == "ready", (tmp_path / f"{kind}.err").read_text()
    start.touch()
    for kind, proc in zip(KINDS, procs):
        assert proc.wait(timeout=3600) == 0, (tmp_path / f"{kind}.err").read_text()
    reports = [json.loads(out.read_text()) for out in outs]
    assert server_proc.poll() is None

    errors = {r["kind"]: r["errors"] for r in reports if r["errors"]}
    for r in reports:
        for message in r["errors"]:
            REPORT["errors"][f"load {r['kind']}: {message.split(':')[0]}"] += 1
    assert not errors, errors  # "database is locked" or anything else reaching a user

    written = [(r["kind"], w) for r in reports for w in r["writes"]]
    assert len(written) == sum(writes)
    inserted = {w["fact_id"]: w["text"] for _, w in written if w["outcome"] in INSERTING}
    duplicates = sum(1 for _, w in written if w["outcome"] == "duplicate")
    outcomes = Counter(w["outcome"] for _, w in written)
    assert len(inserted) == sum(outcomes[o] for o in INSERTING)  # no fact id was handed out twice
    with Memory(db, actor="check") as memory:
        facts = memory.facts(range(1, max(inserted, default=0) + 1000))
        assert sorted(facts) == sorted(inserted)  # every write told "inserted" is there, and nothing else
        assert all(facts[fid].text == text for fid, text in inserted.items())
        journal = memory.journal(limit=10_000_000)
        absorbed = [e.fact_id for e in journal if e.action == "absorb"]
        assert sorted(absorbed) == sorted(inserted)
        reinforced = sum(1 for e in journal if e.action == "reinforce")
        assert reinforced == duplicates
        actors = Counter(e.actor for e in journal if e.action == "absorb")
        assert set(actors) <= set(KINDS)
        for kind in KINDS:  # each worker's inserts are journalled under its own front end's actor
            assert actors[kind] == sum(1 for k, w in written if k == kind and w["outcome"] in INSERTING)
        texts = Counter(f.text for f in facts.values())
        assert max(texts.values()) == 1  # racing writers of one shared text made one fact

        # Search consistency: every hit is a committed fact with the text shown; a fact read back
        # right after its write was found (unless it has since left the active set).
        bad_hits, misses = [], []
        for r in reports:
            for s in r["searches"]:
                for hit in s["hits"]:
                    if hit["id"] not in facts or facts[hit["id"]].text != hit["text"]:
                        bad_hits.append((r["kind"], s["query"], hit))
                if s["own"] and s["fact_id"] is not None and s["fact_id"] not in {h["id"] for h in s["hits"]} \
                        and facts[s["fact_id"]].status == "active":
                    misses.append((r["kind"], s["query"]))
        assert bad_hits == []
        assert misses == []

    total_searches = sum(len(r["searches"]) for r in reports)
    assert total_searches == sum(searches)
    t0, t1 = min(r["t0"] for r in reports), max(r["t1"] for r in reports)
    span = max(t1 - t0, 1e-9)
    write_s = [x for r in reports for x in r["write_s"]]
    search_s = [x for r in reports for x in r["search_s"]]
    rows = [("load: writes (4 front ends, one file)", len(written)),
            ("load: searches", total_searches),
            ("load: write outcomes", " ".join(f"{o}={n}" for o, n in sorted(outcomes.items()))),
            ("load: wall time (s)", f"{span:.1f}"),
            ("load: writes/s", f"{len(written) / span:.1f}"),
            ("load: searches/s", f"{total_searches / span:.1f}"),
            ("load: p95 write latency (ms)", f"{p95(write_s) * 1000:.1f}"),
            ("load: p95 search latency (ms)", f"{p95(search_s) * 1000:.1f}"),
            ("load: writes lost", 0), ("load: errors reaching a worker", 0)]
    for r in reports:
        rows.append((f"load: {r['kind']} p95 write / search (ms)",
                     f"{p95(r['write_s']) * 1000:.0f} / {p95(r['search_s']) * 1000:.0f}"))
    REPORT["load"].extend(rows)
    print()
    for label, value in rows:
        print(f"  {label:<50} {value}")


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
def test_http_server_under_concurrent_clients_stays_flat(server) -> None:
    url, proc, _ = server
    threads_n = 8
    seed = [f"Seed fact {n}: the {['ingest', 'billing', 'gateway', 'parser'][n % 4]} team moved to "
            f"{['Lisbon', 'Osaka', 'Accra', 'Hobart', 'Cusco'][n % 5]} in quarter {n % 7 + 1} of year {2000 + n}." for n in range(40)]
    with httpx.Client(base_url=url, timeout=60) as client:
        plan = client.post("/absorb", json={"items": seed}).json()
    ids = [it["fact_id"] for it in plan["items"] if it["fact_id"] is not None]
    assert ids

    statuses: Counter = Counter()
    failures: list[str] = []
    rss: list[tuple[int, int]] = []  # (requests done so far, RSS KiB)
    done = [0]
    lock = threading.Lock()
    per_thread = HTTP_REQUESTS // threads_n

    def run(t: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as client:
            for n in range(per_thread):
                op = (t + n) % 3
                try:
                    if op == 0:
                        r = client.post("/search", json={"query": f"which team moved to {['Lisbon', 'Osaka', 'Accra'][n % 3]} {n}"})
                    elif op == 1:
                        r = client.post("/absorb", json={"items": [f"Dry run note {t}-{n}: the parser team reviewed "
                                                                   f"ticket {t * 100_000 + n} today."], "dry_run": True})
                    else:
                        r = client.get(f"/facts/{ids[n % len(ids)]}")
                except httpx.HTTPError as err:
                    with lock:
                        failures.append(f"{type(err).__name__}: {err}")
                    continue
                with lock:
                    statuses[r.status_code] += 1
                    done[0] += 1

    def sample(stop: threading.Event) -> None:
        while not stop.is_set():
            with lock:
                count = done[0]
            rss.append((count, _rss_kib(proc.pid)))
            stop.wait(0.05)

    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(stop,))
    sampler.start()
    began = time.perf_counter()
    workers = [threading.Thread(target=run, args=(t,)) for t in range(threads_n)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - began
    stop.set()
    sampler.join()
    rss.append((done[0], _rss_kib(proc.pid)))

    assert failures == []
    assert proc.poll() is None
    assert set(statuses) == {200}, statuses  # no 5xx (and no other refusal either)
    total = sum(statuses.values())
    assert total == per_thread * threads_n
    # Warm-up is the first quarter of the requests; compare its peak with the last quarter's peak.
    first = [kib for count, kib in rss if count <= total // 4]
    last = [kib for count, kib in rss if count >= 3 * total // 4]
    assert first and last
    growth = max(last) / max(first) - 1
    rows = [("http: concurrent requests (8 threads, loopback)", total),
            ("http: requests/s", f"{total / elapsed:.1f}"),
            ("http: 5xx responses", sum(n for s, n in statuses.items() if s >= 500)),
            ("http: server RSS first / last quarter (MiB)", f"{max(first) / 1024:.0f} / {max(last) / 1024:.0f}"),
            ("http: RSS growth after warm-up", f"{growth * 100:+.1f}%")]
    REPORT["load"].extend(rows)
    print()
    for label, value in rows:
        print(f"  {label:<50} {value}")
    assert growth < RSS_GROWTH, rows
