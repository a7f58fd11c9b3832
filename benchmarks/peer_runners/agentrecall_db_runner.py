"""agentrecall-db (``pip install 'agentrecall-db[semantic]'``) with MemLens's MiniLM as its embedder.

agentrecall's ``Memory(path, embeddings=True, embedder=...)`` takes any object with ``dim`` and
``embed(texts) -> list[list[float]]`` (its documented way to bring your own model), so the
adapter below loads the same int8 all-MiniLM-L6-v2 folder MemLens loads, through the same
fastembed version with the same registration (mean pooling, normalised); model2vec, the
package's default embedder, is never loaded. Vectors go to sqlite-vec, keywords to FTS5, and
its search fuses the two lists by reciprocal rank (the package's only search). ``add`` takes
no creation time (a fact's ``created_at`` is when it was written) and the default ranking
ignores time (``recency_weight=0``), so the session dates are not given. One file per
conversation; each session is written with one ``add_many``.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import runner_common as common

MODEL = "memlens/all-MiniLM-L6-v2-int8"


class MiniLM:
    """The int8 MiniLM folder through fastembed, as engine/models/embeddings.py registers it."""

    dim = 384

    def __init__(self, model_dir: str) -> None:
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        TextEmbedding.add_custom_model(model=MODEL, pooling=PoolingType.MEAN, normalization=True,
                                       sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
                                       dim=self.dim, model_file="model.onnx")
        self._model = TextEmbedding(model_name=MODEL, specific_model_path=model_dir)

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [vector.tolist() for vector in self._model.embed(list(texts))]


def run(job: dict) -> dict:
    from agentrecall import Memory

    embedder = MiniLM(job["model_dir"])
    store_dir = Path(job["store_dir"])
    store_dir.mkdir(parents=True, exist_ok=True)
    top_k, ingest_s, stored = job["top_k"], 0.0, 0
    ranked: dict[str, list[str]] = {}
    search_ms: list[float] = []
    for conv in job["conversations"]:
        path = store_dir / f"{conv['conv_id']}.db"
        for leftover in store_dir.glob(f"{conv['conv_id']}.db*"):
            leftover.unlink()
        with Memory(path, embeddings=True, embedder=embedder) as memory:
            assert memory.semantic_enabled, "agentrecall did not enable semantic search"
            for _when, turns in common.sessions(conv["turns"]):
                items = [{"content": t["text"], "metadata": {"turn": t["fact_id"]}} for t in turns]
                records, elapsed = common.timed(lambda: memory.add_many(items))
                ingest_s += elapsed / 1000
                stored += len(records)
            for text in job["warmup"]:
                memory.search(text, k=top_k)
            for question in conv["questions"]:
                hits, elapsed = common.timed(lambda: memory.search(question["question"], k=top_k))
                search_ms.append(elapsed)
                ranked[question["qid"]] = common.unique(h.record.metadata["turn"] for h in hits)
    return {
        "version": version("agentrecall-db"),
        "config": {"embedding": f"{MODEL} (MemLens's folder) through fastembed {version('fastembed')} "
                                f"(onnxruntime {version('onnxruntime')}), passed as embedder=",
                   "vectors": f"sqlite-vec {version('sqlite-vec')}",
                   "search": "Memory.search(query, k=top_k): FTS5 BM25 + vector, reciprocal rank fusion",
                   "timestamps": "not given: add() takes no creation time; recency_weight=0 ignores it"},
        "ingest_s": round(ingest_s, 2),
        "facts_given": sum(len(c["turns"]) for c in job["conversations"]),
        "facts_stored": stored,
        "runs": {"default": {"ranked": ranked, "search_ms": search_ms}},
    }


if __name__ == "__main__":
    common.main(run)
