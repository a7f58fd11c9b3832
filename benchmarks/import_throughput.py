"""Import throughput against a plain ONNX embedding of the same texts (issue 18: ratio >= 0.8).

The texts are the first ``--n`` LoCoMo dialogue turns (``../shared/eval/locomo/turns.jsonl``,
read in place; the JSONL the import reads is written to a temporary folder and deleted). Two
things are timed on the same texts, interleaved ``--rounds`` times in one process:

- **plain**: the model files MemLens uses, through onnxruntime and the tokenizer alone, the way
  fastembed batches by default (256 texts in input order, padded to the longest, truncated at the
  tokenizer config's 512, mean pooling, normalised); no MemLens code.
- **import**: ``Memory.import_file`` of the same texts into a fresh memory, end to end (reading,
  validation and the secret scan, embedding, classification, plans, SQLite, the vector index).

Both have the model loaded and warm before timing. CPU time (``process_time``, every thread) is
the figure to compare on a shared machine; wall time is printed beside it. The embedder is
wrapped in an object that times its ``embed`` calls, so the pipeline's own cost is the rest;
``--profile`` runs one more import under cProfile and says where that rest goes.

    python -m benchmarks.import_throughput                  (1,000 turns, 2 rounds)
    python -m benchmarks.import_throughput --n 300 --rounds 1 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

TURNS = Path(__file__).resolve().parents[2] / "shared" / "eval" / "locomo" / "turns.jsonl"
PLAIN_BATCH = 256  # fastembed's default batch size for embed()


def turns(n: int, path: Path = TURNS) -> list[str]:
    texts = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            text = json.loads(line).get("text", "").strip()
            if text:
                texts.append(text)
            if len(texts) == n:
                break
    return texts


class PlainOnnx:
    """The tokenizer and ONNX file of MemLens's default model, with nothing of MemLens around them."""

    def __init__(self, folder: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=int(config.get("model_max_length", 512)))
        pad = config.get("pad_token", "[PAD]")
        self.tokenizer.enable_padding(pad_id=self.tokenizer.token_to_id(pad), pad_token=pad)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL  # as fastembed
        self.session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = []
        for start in range(0, len(texts), PLAIN_BATCH):
            encoded = self.tokenizer.encode_batch(list(texts[start:start + PLAIN_BATCH]))
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                             "token_type_ids": np.zeros_like(ids)})[0]
            pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            out.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.concatenate(out).astype(np.float32)


class TimedEmbedder:
    """Passes embedding through to ``inner`` and adds up the CPU and wall time spent in it."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        self.cpu = self.wall = 0.0
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.cpu += time.process_time() - cpu
            self.wall += time.perf_counter() - wall
            self.texts += len(texts)


def _timed(work: Any) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu, time.perf_counter() - wall


def import_once(inner: Any, source: Path, folder: Path, name: str) -> dict[str, float]:
    from engine import Memory

    embedder = TimedEmbedder(inner)
    outcome: dict[str, Any] = {}

    def run() -> None:
        with Memory(folder / f"{name}.sqlite", embedder=embedder) as memory:
            outcome["run"] = memory.import_file(source)
    cpu, wall = _timed(run)
    return {"cpu_s": cpu, "wall_s": wall, "embed_cpu_s": embedder.cpu, "embed_wall_s": embedder.wall,
            "items": outcome["run"].items, "embedded": embedder.texts}


# Where the pipeline's own time goes: (label, file suffix, function) read from one profiled import.
PARTS = (
    ("embedding: model runs (fastembed, onnxruntime)", "models/embeddings.py", "_infer"),
    ("embedding: token counting and windows", "models/embeddings.py", "_pieces"),
    ("reading the file (identity + JSONL)", "io/stream.py", "identify"),
    ("validation incl. secret scan", "absorb/planner.py", "_validated"),
    ("  of which the secret scan", "absorb/validation.py", "reject_secrets"),
    ("merging near-identical items", "absorb/planner.py", "merge_near"),
    ("classifier incl. nearest facts", "absorb/planner.py", "_classify_all"),
    ("  of which vector index search", "search/vectors.py", "nearest_many"),
    ("SQLite: storing the plan", "store/plans.py", "save_plan"),
    ("SQLite: writing facts (PlanWriter)", "plans/apply.py", "write"),
    ("vector/text index update", "search/index_sync.py", "apply"),
)


def profile_import(inner: Any, source: Path, folder: Path) -> dict[str, Any]:
    profiler = cProfile.Profile()
    profiler.enable()
    result = import_once(inner, source, folder, "profiled")
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in stats.values())  # every function's own time: the whole run
    parts = {}
    for label, suffix, function in PARTS:
        found = [entry[3] for (file, _, name), entry in stats.items() if file.endswith(suffix) and name == function]
        parts[label] = round(max(found, default=0.0), 3)  # cumulative; recursion-safe as one entry
    return {"profiled_s": round(total, 2), "cumulative_s": parts, "embed_cpu_s": round(result["embed_cpu_s"], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="LoCoMo turns")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", action="store_true", help="one more import under cProfile")
    args = parser.parse_args()
    if not TURNS.is_file():
        print(json.dumps({"skipped": f"{TURNS} not found (the shared eval data)"}))
        return
    from engine.models.embeddings import default_model_dir, shared_embedder

    texts = turns(args.n)
    plain, inner = PlainOnnx(default_model_dir()), shared_embedder()
    plain.embed(texts[:8])
    inner.embed(texts[:8])
    with open("/proc/loadavg", encoding="ascii") as load:
        started_load = load.read().split()[:3]
    with tempfile.TemporaryDirectory(prefix="memlens-throughput-") as name:
        folder = Path(name)
        source = folder / "turns.jsonl"
        source.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
        rounds = []
        for r in range(args.rounds):
            cpu, wall = _timed(lambda: plain.embed(texts))
            rounds.append({"plain_cpu_s": cpu, "plain_wall_s": wall, **import_once(inner, source, folder, f"r{r}")})
            print(json.dumps({k: round(v, 2) for k, v in rounds[-1].items()}), file=sys.stderr, flush=True)
        profile = profile_import(inner, source, folder) if args.profile else None
    with open("/proc/loadavg", encoding="ascii") as load:
        ended_load = load.read().split()[:3]
    plain_cpu, import_cpu = (sum(r[k] for r in rounds) for k in ("plain_cpu_s", "cpu_s"))
    plain_wall, import_wall = (sum(r[k] for r in rounds) for k in ("plain_wall_s", "wall_s"))
    embed_cpu = sum(r["embed_cpu_s"] for r in rounds)
    print(json.dumps({
        "texts": len(texts), "rounds": args.rounds, "load_start": started_load, "load_end": ended_load,
        "plain_texts_per_cpu_s": round(len(texts) * args.rounds / plain_cpu, 1),
        "import_texts_per_cpu_s": round(len(texts) * args.rounds / import_cpu, 1),
        "ratio_cpu": round(plain_cpu / import_cpu, 3), "ratio_wall": round(plain_wall / import_wall, 3),
        "import_share_in_embed": round(embed_cpu / import_cpu, 3),
        "import_share_pipeline_own": round(1 - embed_cpu / import_cpu, 3),
        "embed_vs_plain_cpu": round(embed_cpu / plain_cpu, 3),
        "profile": profile}))


if __name__ == "__main__":
    main()
