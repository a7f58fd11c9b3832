"""MemLens and two published local memory engines side by side on LoCoMo, in one run (issue 18).

    python -m benchmarks.peers [--out .bench/peers.json] [--cache /tmp/recall] [--only memlens,agentrecall-db]
                               [--no-install]

Each peer is installed from the package registry at a pinned version into a scratch venv under
``.bench/peers/<name>`` (made with an interpreter whose ``sqlite3`` can load extensions, which
both need for sqlite-vec: Debian's ``/usr/bin/python3`` here; the project's own cannot), with
fastembed and onnxruntime pinned to the versions MemLens runs on. Then every system gets the
same job (see ``peer_runners/runner_common.py``): one store per conversation, the LoCoMo turns
written session by session, the questions searched in their own conversation's store after
the same warm-up queries, each search timed inside the runner around the search call only.
All three embed with the same offline int8 all-MiniLM-L6-v2 files
(``engine.models.embeddings.default_model_dir()``); nothing is downloaded at run time.

MemLens's runner is benchmarks/locomo.py's own building and asking code with the current
defaults (``--cache`` is locomo's cache folder: stores built there are reused). Recall@5 comes
from the data set's ``score_recall.py``, as in benchmarks/locomo.py; latency p50 / p95 likewise.
The ratios compare MemLens's end-to-end search (query embedded inside the timed call, as a
peer's search does) with each peer run: speed-up = peer ms / MemLens ms, recall = MemLens's
recall@5 / the peer's. The table is printed and everything is written as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any, Callable

from benchmarks import locomo
from benchmarks.report import machine
from benchmarks.synthetic import BENCH_DIR

RUNNERS = Path(__file__).resolve().parent / "peer_runners"
REPO = Path(__file__).resolve().parents[1]
TOP_K = 10
# Searched in every store before the timed questions: loads the model, the store and its index.
WARMUP = ("what did we talk about last time", "plans for the weekend", "how is the family doing",
          "a book or a film recommendation", "work and hobbies lately")
REFERENCE = ("memlens", "end to end")
Scorer = Callable[[dict[str, list[str]]], dict[str, Any]]


@dataclass(frozen=True)
class Peer:
    name: str
    runner: str
    packages: tuple[str, ...] = ()
    needs_extensions: bool = True
    env: dict[str, str] = field(default_factory=dict)


def _runtime_pins() -> tuple[str, ...]:
    """fastembed / onnxruntime at the versions MemLens embeds with here."""
    return (f"fastembed=={version('fastembed')}", f"onnxruntime=={version('onnxruntime')}")


def peers() -> dict[str, Peer]:
    fastembed, onnxruntime = _runtime_pins()
    return {
        "memlens": Peer("memlens", "memlens_runner.py", needs_extensions=False),
        "agentrecall-db": Peer("agentrecall-db", "agentrecall_db_runner.py",
                               ("agentrecall-db[semantic]==0.2.0", fastembed, onnxruntime)),
        "mcp-memory-service-lite": Peer("mcp-memory-service-lite", "mcp_memory_service_runner.py",
                                        ("mcp-memory-service-lite==12.4.0", onnxruntime)),
    }


# -- scratch environments ------------------------------------------------------------------------

def loads_extensions(python: str) -> bool:
    """Whether ``python``'s sqlite3 can load an extension (sqlite-vec needs it)."""
    probe = "import sqlite3; sqlite3.connect(':memory:').enable_load_extension(True)"
    try:
        return subprocess.run([python, "-c", probe], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def base_python() -> str:
    """The interpreter to make the peers' venvs with: one whose sqlite3 loads extensions."""
    for candidate in ("/usr/bin/python3", sys.executable, shutil.which("python3")):
        if candidate and Path(candidate).is_file() and loads_extensions(candidate):
            return candidate
    raise SystemExit("no Python here has a sqlite3 that can load extensions (the peers need sqlite-vec); "
                     "on Debian: apt-get install python3 python3-venv")


def ensure_venv(peer: Peer, root: Path, install: bool, log: Callable[[str], None]) -> str:
    """The peer's interpreter, its venv made and its pinned packages installed if not done yet."""
    if not peer.packages:
        return sys.executable
    folder = root / peer.name
    python = folder / "bin" / "python"
    stamp = folder / ".installed"
    wanted = "\n".join(peer.packages)
    if python.is_file() and stamp.is_file() and stamp.read_text() == wanted:
        return str(python)
    if not install:
        raise SystemExit(f"{peer.name} is not installed in {folder}; run without --no-install")
    log(f"installing {', '.join(peer.packages)} into {folder}")
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([base_python(), "-m", "venv", str(folder)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *peer.packages], check=True)
    if peer.needs_extensions and not loads_extensions(str(python)):
        raise SystemExit(f"{python}: sqlite3 cannot load extensions")
    stamp.write_text(wanted)
    return str(python)


def freeze(python: str) -> list[str]:
    """The venv's installed packages (pip freeze), for the record."""
    found = subprocess.run([python, "-m", "pip", "freeze", "--all"], capture_output=True, text=True, timeout=120)
    return found.stdout.split()


# -- jobs and runners ----------------------------------------------------------------------------

def job_for(system: str, turns: list[dict], questions: list[dict], store_dir: Path, model_dir: Path,
            top_k: int = TOP_K, warmup: tuple[str, ...] = WARMUP) -> dict[str, Any]:
    """The job every runner gets: turns and questions grouped by conversation."""
    convs: dict[str, dict[str, Any]] = {}
    for turn in turns:
        convs.setdefault(turn["conv_id"], {"conv_id": turn["conv_id"], "turns": [], "questions": []})
        convs[turn["conv_id"]]["turns"].append({k: turn[k] for k in ("conv_id", "fact_id", "session",
                                                                     "session_date_time", "text")})
    for question in questions:
        if question["conv_id"] in convs:
            convs[question["conv_id"]]["questions"].append({"qid": question["qid"], "question": question["question"]})
    return {"system": system, "store_dir": str(store_dir), "model_dir": str(model_dir), "top_k": top_k,
            "warmup": list(warmup), "conversations": [convs[c] for c in sorted(convs)]}


def run_runner(python: str, peer: Peer, job: dict[str, Any], work: Path, timeout: float = 3 * 3600) -> dict[str, Any]:
    """Run ``peer``'s runner on ``job`` with ``python``; its result, or SystemExit with its log's tail."""
    work.mkdir(parents=True, exist_ok=True)
    job_path, result_path, log_path = work / "job.json", work / "result.json", work / "runner.log"
    job_path.write_text(json.dumps(job), encoding="utf-8")
    result_path.unlink(missing_ok=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1", **peer.env}
    if peer.packages:  # a scratch venv: nothing of MemLens on its path, its own HOME for model caches
        env.pop("PYTHONPATH", None)
        env["HOME"] = str(work / "home")
    else:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    with log_path.open("w", encoding="utf-8") as log:
        done = subprocess.run([python, str(RUNNERS / peer.runner), str(job_path), str(result_path)],
                              stdout=log, stderr=subprocess.STDOUT, env=env, cwd=str(work), timeout=timeout)
    if done.returncode != 0 or not result_path.is_file():
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"{peer.name} runner failed (exit {done.returncode}); {log_path}:\n{tail}")
    return json.loads(result_path.read_text(encoding="utf-8"))


def schedule(systems: list[str], convs: list[str]) -> list[tuple[str, int]]:
    """(system, conversation index) in the order to run them: conversation by conversation, the
    systems' order rotated each time, so a change in the machine's load (it is shared) falls on
    every system alike instead of on whichever ran during it."""
    order = []
    for n in range(len(convs)):
        shift = n % len(systems)
        order += [(system, n) for system in systems[shift:] + systems[:shift]]
    return order


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One system's per-conversation results as one: runs' ranks and timings joined, counts summed."""
    merged = {k: v for k, v in parts[0].items() if k not in ("runs", "ingest_s", "facts_given", "facts_stored",
                                                               "wall_s")}
    for key in ("ingest_s", "facts_given", "facts_stored", "wall_s"):
        values = [p.get(key) for p in parts]
        merged[key] = None if any(v is None for v in values) else round(sum(values), 2)
    merged["runs"] = {}
    for label in parts[0]["runs"]:
        merged["runs"][label] = {"ranked": {q: r for p in parts for q, r in p["runs"][label]["ranked"].items()},
                                 "search_ms": [ms for p in parts for ms in p["runs"][label]["search_ms"]]}
    return merged


# -- figures, ratios, table ----------------------------------------------------------------------

def percentiles(values: list[float]) -> dict[str, float]:
    """p50 and p95 as benchmarks/locomo.py reports them (median; the 95th of the sorted values)."""
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 3), "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
            "n": len(ordered)}


def rows(results: dict[str, dict[str, Any]], score: Scorer) -> list[dict[str, Any]]:
    """One row per system and run: recall (scored by ``score``) and latency."""
    found = []
    for system, result in results.items():
        for label, run in result["runs"].items():
            overall = score(run["ranked"])["ALL"]
            found.append({"system": system, "run": label, "version": result.get("version"),
                          "recall@5": overall["recall@5"], "recall@10": overall.get("recall@10"),
                          "mrr": overall.get("mrr"), "search_ms": percentiles(run["search_ms"])})
    return found


def ratios(table_rows: list[dict[str, Any]], reference: tuple[str, str] = REFERENCE) -> list[dict[str, Any]]:
    """Each row with MemLens's ratio to it: ``speedup_p50/p95`` = row ms / reference ms (> 1: MemLens
    faster), ``recall_ratio`` = reference recall@5 / row recall@5 (> 1: MemLens finds more)."""
    ref = next((r for r in table_rows if (r["system"], r["run"]) == reference), None)
    out = []
    for row in table_rows:
        row = dict(row)
        if ref is not None and row["system"] != ref["system"]:
            row["speedup_p50"] = round(row["search_ms"]["p50"] / ref["search_ms"]["p50"], 2)
            row["speedup_p95"] = round(row["search_ms"]["p95"] / ref["search_ms"]["p95"], 2)
            row["recall_ratio"] = round(ref["recall@5"] / row["recall@5"], 3) if row["recall@5"] else None
        out.append(row)
    return out


def table(table_rows: list[dict[str, Any]]) -> str:
    """A Markdown table of the rows (as ``ratios`` returns them)."""
    lines = ["| system | recall@5 | recall@10 | MRR | search p50 / p95 (ms) | MemLens faster (p50 / p95) "
             "| MemLens recall@5 ÷ |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in table_rows:
        name = f"{row['system']} {row['version']}" if row.get("version") else row["system"]
        speed = (f"{row['speedup_p50']:.2f}× / {row['speedup_p95']:.2f}×" if "speedup_p50" in row else "")
        recall = f"{row['recall_ratio']:.3f}" if row.get("recall_ratio") else ""
        ms = row["search_ms"]
        lines.append(f"| {name}, {row['run']} | {row['recall@5']:.4f} | {row['recall@10']:.4f} | {row['mrr']:.4f} "
                     f"| {ms['p50']:.2f} / {ms['p95']:.2f} | {speed} | {recall} |")
    return "\n".join(lines)


def dataset_scorer(questions: list[dict], folder: Path) -> Scorer:
    """The data set's own score_recall.py over ``questions`` (turn targets, k = 1, 5, 10); with a
    subset of the conversations, over theirs only (written to ``folder``)."""
    score = locomo._scorer()
    queries = locomo.EVAL_DIR / "queries.jsonl"
    if len(questions) != len(locomo._load("queries.jsonl")):
        queries = folder / "queries-subset.jsonl"
        queries.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return lambda ranked: score(ranked, "turns", (1, 5, 10), queries_path=str(queries))


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(BENCH_DIR / "peers.json"))
    parser.add_argument("--cache", default="", help="benchmarks.locomo's cache folder: MemLens's stores reused from it")
    parser.add_argument("--only", default="", help="comma list of systems (default: all)")
    parser.add_argument("--convs", default="", help="comma list of conversation ids (default: all six)")
    parser.add_argument("--no-install", action="store_true", help="fail instead of installing a missing peer")
    parser.add_argument("--root", default=str(BENCH_DIR / "peers"), help="the peers' venvs and stores")
    args = parser.parse_args(argv)
    if not (locomo.EVAL_DIR / "turns.jsonl").is_file():
        print(f"LoCoMo data not found at {locomo.EVAL_DIR}; skipped")
        return 0
    from engine.models.embeddings import default_model_dir

    def log(text: str) -> None:
        print(f"[peers] {text}", file=sys.stderr, flush=True)

    chosen = peers()
    if args.only:
        chosen = {name: chosen[name] for name in args.only.split(",")}
    root, model_dir = Path(args.root), default_model_dir()
    turns, questions = locomo._load("turns.jsonl"), locomo._load("queries.jsonl")
    if args.convs:
        wanted = set(args.convs.split(","))
        turns = [t for t in turns if t["conv_id"] in wanted]
        questions = [q for q in questions if q["conv_id"] in wanted]
    load_before = _uptime()
    environments: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="memlens-peers-") as scratch:
        pythons, stores = {}, {}
        for name, peer in chosen.items():
            pythons[name] = ensure_venv(peer, root, not args.no_install, log)
            environments[name] = {"python": pythons[name], "packages": list(peer.packages),
                                  "freeze": freeze(pythons[name]) if peer.packages else []}
            stores[name] = (root / name / "stores" if peer.packages else
                            Path(args.cache) / "turns" if args.cache else Path(scratch) / "memlens-stores")
        convs = sorted({t["conv_id"] for t in turns})
        parts: dict[str, list[dict[str, Any]]] = {name: [] for name in chosen}
        for name, n in schedule(list(chosen), convs):
            conv = convs[n]
            log(f"{conv} on {name}")
            started = time.perf_counter()
            job = job_for(name, [t for t in turns if t["conv_id"] == conv],
                          [q for q in questions if q["conv_id"] == conv], stores[name], model_dir)
            part = run_runner(pythons[name], chosen[name], job, root / name / "run")
            part["wall_s"] = round(time.perf_counter() - started, 1)
            parts[name].append(part)
        results = {name: merge(found) for name, found in parts.items()}
        found = ratios(rows(results, dataset_scorer(questions, Path(scratch))))
    report = {"machine": machine(), "uptime_before": load_before, "uptime_after": _uptime(),
              "command": "python -m benchmarks.peers " + " ".join(argv if argv is not None else sys.argv[1:]),
              "top_k": TOP_K, "warmup": list(WARMUP), "model_dir": str(model_dir), "rows": found,
              "systems": {name: {k: v for k, v in result.items() if k != "runs"} | {"environment": environments[name]}
                          for name, result in results.items()}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(table(found))
    print(f"\n{report['uptime_before']}\n{report['uptime_after']}\nwritten to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
