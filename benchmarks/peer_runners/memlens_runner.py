"""MemLens through the code of benchmarks/locomo.py, with the current default settings.

The stores are built by ``locomo._build_all`` (one absorb per session, the session's date as the
facts' time; a finished store in ``store_dir`` is reused, so ``--cache`` makes re-runs fast) and
searched by ``locomo._ask`` twice after the warm-up queries: "engine only" with each query's
vector given (the figure of the README's speed table) and "end to end" with the query embedded
inside the timed call, as a peer's search does. The end-to-end pass writes read counters, so it
runs on copies of the stores. Run with the project's interpreter and the repository on the path.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections import defaultdict
from importlib.metadata import version
from pathlib import Path

import runner_common as common


def run(job: dict) -> dict:
    from benchmarks import locomo
    from engine import Settings
    from engine.models.embeddings import shared_embedder

    embedder = shared_embedder()
    store_dir = Path(job["store_dir"])
    store_dir.mkdir(parents=True, exist_ok=True)
    turns = [t for conv in job["conversations"] for t in conv["turns"]]
    cached = all((store_dir / f"{conv['conv_id']}.json").is_file() for conv in job["conversations"])
    build: dict[str, list[float]] = defaultdict(list)
    started = time.perf_counter()
    built, asked_at = locomo._build_all(turns, store_dir, build, embedder)
    ingest_s = time.perf_counter() - started
    warmup = tuple(job["warmup"])
    settings, top_k = Settings(), job["top_k"]
    questions = [q for conv in job["conversations"] for q in conv["questions"]]
    vectors = dict(zip((q["qid"] for q in questions), embedder.embed([q["question"] for q in questions])))
    runs = {}
    with tempfile.TemporaryDirectory(prefix="memlens-peers-") as scratch:
        for label, given in (("engine only", vectors), ("end to end", None)):
            timings: dict[str, list[float]] = defaultdict(list)
            ranked: dict[str, list[str]] = {}
            for conv in job["conversations"]:
                path = built[conv["conv_id"]]
                if given is None:  # read counters are written: search a copy
                    path = Path(scratch) / path.name
                    for suffix in ("", "-wal"):
                        source = Path(f"{built[conv['conv_id']]}{suffix}")
                        if source.is_file():
                            shutil.copyfile(source, f"{path}{suffix}")
                ranked.update(locomo._ask(path, asked_at[conv["conv_id"]], conv["questions"], settings, top_k,
                                          timings, embedder, given, warmup))
            runs[label] = {"ranked": ranked, "search_ms": timings["search_ms"]}
    memory = settings.memory
    return {
        "version": version("memlens"),
        "config": {"embedding": f"{embedder.model_id} through fastembed {version('fastembed')} "
                                f"(onnxruntime {version('onnxruntime')})",
                   "timestamps": "each session's date (created_at per turn)",
                   "settings": {name: getattr(memory, name) for name in
                                ("cosine_weight", "context_weight", "freshness_floor", "freshness_rate",
                                 "candidate_pool", "text_match_budget", "bm25_power")},
                   "stores_reused": cached},
        "ingest_s": None if cached else round(ingest_s, 2),
        "facts_given": len(turns),
        "runs": runs,
    }


if __name__ == "__main__":
    common.main(run)
