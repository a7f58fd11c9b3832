"""A child process for test_load.py: writes and searches one memory file through one front end.

Usage: ``python tests/reliability/load_worker.py KIND DB OUT START WRITES SEARCHES SEED [URL]``

KIND is ``cli`` or ``gui`` (the engine facade in this process, with that actor, as the CLI and
the desktop app use it), ``http`` (an httpx client of a running ``memlens serve`` at URL) or
``mcp`` (the official MCP client driving a ``memlens mcp`` subprocess on stdio). The worker warms
up, prints ``ready``, waits until the file START exists, then does WRITES absorbs of one fact
each, spreading SEARCHES searches between them: each write is followed by a search for the text
it just wrote (read your own write), the rest search for words of other workers' facts. Every
error that reaches it is recorded, never raised. At the end it writes one JSON report to OUT:
each write's text, outcome and fact id, each search's hit ids and texts, latencies and errors.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PEOPLE = ["Amara", "Bogdan", "Chiara", "Dmitri", "Esther", "Farid", "Gwen", "Hiroshi", "Ines", "Jonas"]
VERBS = ["reviewed", "rewrote", "benchmarked", "documented", "deployed", "audited", "profiled", "migrated"]
THINGS = ["the billing database", "the Kubernetes ingress", "the onboarding handbook", "the Grafana latency board",
          "the Rust parser prototype", "the nightly backup job", "the payments webhook", "the search ranking code",
          "the mobile release train", "the vendor contract tracker", "the on-call rotation", "the SSO gateway"]
PLACES = ["Lisbon", "Tbilisi", "Osaka", "Winnipeg", "Nairobi", "Tromsø", "Cusco", "Gdańsk", "Hobart", "Accra"]
# Every worker also absorbs these, racing the others: one fact each, the rest reinforce it.
SHARED = ["The whole company meets in the atrium every Monday at ten for the weekly update.",
          "All production deploys are frozen during the last week of December each year.",
          "Expense reports are due on the fifth working day of every month, no exceptions."]
SHARED_EVERY = 25  # one write in this many is a shared text


def fact_text(kind: str, n: int, rng: random.Random) -> str:
    if n % SHARED_EVERY == SHARED_EVERY - 1:
        return SHARED[(n // SHARED_EVERY) % len(SHARED)]
    return (f"Load ticket {kind.upper()}-{n:05d}-{rng.randrange(10**6):06d}: {rng.choice(PEOPLE)} "
            f"{rng.choice(VERBS)} {rng.choice(THINGS)} from {rng.choice(PLACES)} in sprint {rng.randint(1, 400)}.")


class Facade:
    def __init__(self, db: str, actor: str) -> None:
        from engine import Memory
        self.memory = Memory(db, actor=actor)
        self.memory.warm_up()

    def absorb(self, text: str) -> list[dict]:
        plan = self.memory.absorb([text])
        return [{"outcome": it.outcome, "fact_id": it.fact_id} for it in plan.items]

    def search(self, query: str) -> list[dict]:
        return [{"id": h.fact.id, "text": h.fact.text} for h in self.memory.search(query, top_k=5)]

    def close(self) -> None:
        self.memory.close()


class Http:
    def __init__(self, url: str) -> None:
        import httpx
        self.client = httpx.Client(base_url=url, timeout=60)

    def _post(self, path: str, body: dict) -> dict:
        response = self.client.post(path, json=body)
        if response.status_code != 200:
            raise RuntimeError(f"HTTP {response.status_code}: {response.text[:300]}")
        return response.json()

    def absorb(self, text: str) -> list[dict]:
        return [{"outcome": it["outcome"], "fact_id": it["fact_id"]} for it in self._post("/absorb", {"items": [text]})["items"]]

    def search(self, query: str) -> list[dict]:
        return [{"id": h["id"], "text": h["text"]} for h in self._post("/search", {"query": query, "top_k": 5})["results"]]

    def close(self) -> None:
        self.client.close()


def run_mcp(db: str, body: Callable[[Any], None]) -> None:
    """Run ``body`` with a synchronous absorb/search object over an MCP session (in the event loop's thread)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "engine.faces.cli.main", "--db", db, "mcp"], cwd=str(ROOT),
                                   env={k: v for k, v in os.environ.items() if k.startswith(("XDG_", "PATH", "HOME", "MEMLENS_CROSS"))})

    async def main() -> None:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()

                async def call(tool: str, args: dict) -> dict:
                    result = await session.call_tool(tool, args)
                    if result.is_error:
                        raise RuntimeError(f"MCP tool error: {result.content[0].text if result.content else result}")
                    return result.structured_content

                class Client:
                    @staticmethod
                    def absorb(text: str) -> list[dict]:
                        out = anyio.from_thread.run(call, "memory_absorb", {"items": [text]})
                        return [{"outcome": it["outcome"], "fact_id": it["fact_id"]} for it in out["items"]]

                    @staticmethod
                    def search(query: str) -> list[dict]:
                        out = anyio.from_thread.run(call, "memory_search", {"query": query, "top_k": 5})
                        return [{"id": h["id"], "text": h["text"]} for h in out["results"]]

                await call("memory_search", {"query": "warm up"})
                await anyio.to_thread.run_sync(body, Client)

    anyio.run(main)


def work(client: Any, kind: str, start: Path, writes: int, searches: int, seed: int) -> dict:
    rng = random.Random(seed)
    report: dict[str, Any] = {"kind": kind, "writes": [], "searches": [], "errors": [], "write_s": [], "search_s": []}
    print("ready", flush=True)
    while not start.exists():
        time.sleep(0.01)
    report["t0"] = time.time()
    done_searches = 0
    for n in range(writes):
        text = fact_text(kind, n, rng)
        began = time.perf_counter()
        try:
            items = client.absorb(text)
            report["write_s"].append(time.perf_counter() - began)
            report["writes"].append({"text": text, **items[0]})
        except Exception as err:  # every error that reaches a caller is a finding
            report["errors"].append(f"absorb: {type(err).__name__}: {err}")
            continue
        # Searches due by now: the first reads this write back, the others look for anyone's words.
        due = (searches * (n + 1)) // writes - done_searches
        for k in range(due):
            query = text if k == 0 else f"{rng.choice(PEOPLE)} {rng.choice(VERBS)} {rng.choice(THINGS)} {rng.choice(PLACES)}"
            began = time.perf_counter()
            try:
                hits = client.search(query)
                report["search_s"].append(time.perf_counter() - began)
                report["searches"].append({"query": query, "own": k == 0, "fact_id": items[0]["fact_id"], "hits": hits})
            except Exception as err:
                report["errors"].append(f"search: {type(err).__name__}: {err}")
            done_searches += 1
    report["t1"] = time.time()
    return report


def main() -> None:
    kind, db, out, start = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    writes, searches, seed = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
    if kind == "mcp":
        holder: dict = {}
        run_mcp(db, lambda client: holder.update(work(client, kind, start, writes, searches, seed)))
        report = holder
    else:
        client = Facade(db, kind) if kind in ("cli", "gui") else Http(sys.argv[8])
        try:
            report = work(client, kind, start, writes, searches, seed)
        finally:
            client.close()
    out.write_text(json.dumps(report), encoding="utf-8")


if __name__ == "__main__":
    main()
