"""mcp-memory-service-lite (its sqlite-vec backend) on MemLens's int8 MiniLM, offline.

The package's ONNX embedder loads ``~/.cache/mcp_memory/onnx_models/all-MiniLM-L6-v2/onnx/``
(``model.onnx`` + ``tokenizer.json``) and downloads an archive only when that folder is
missing. The parent runs this with ``HOME`` set to a scratch folder, where the folder is laid
out here from MemLens's model folder (the int8 ONNX file linked, the tokenizer files copied,
unchanged), and with ``MCP_MEMORY_ONNX_ALLOW_DOWNLOAD=0``, ``HF_HUB_OFFLINE=1`` and
``MCP_MEMORY_ALLOW_HASH_EMBEDDINGS=0``: no download is attempted and its hash "embeddings"
fallback is refused, so a failed load stops the run instead of measuring a different model.

Each session is written with ``store_batch`` (one transaction, one batched embedding), the
memories' ``created_at`` being the session's time plus the turn's position in seconds, as
benchmarks/locomo.py does. Identical texts share a content hash and the second is refused as a
duplicate: hits map back to every turn with that text. Questions go through
``search_memories``, the call its MCP ``memory_search`` tool makes, in its default mode
``semantic`` (sqlite-vec nearest neighbours) and again in mode ``hybrid`` (BM25 + vector,
0.3 / 0.7 weighted). Its embedding cache is emptied before each pass, so no question's vector
comes from the other pass.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from importlib.metadata import version
from pathlib import Path

import runner_common as common

MODES = ("semantic", "hybrid")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")


def lay_out_model(model_dir: Path) -> Path:
    """The folder the package's default ONNX model is read from, filled from MemLens's folder."""
    target = Path.home() / ".cache" / "mcp_memory" / "onnx_models" / "all-MiniLM-L6-v2" / "onnx"
    target.mkdir(parents=True, exist_ok=True)
    link = target / "model.onnx"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to((model_dir / "model.onnx").resolve())
    for name in TOKENIZER_FILES:
        shutil.copyfile(model_dir / name, target / name)
    return target


def run(job: dict) -> dict:
    for name, value in (("MCP_MEMORY_ONNX_ALLOW_DOWNLOAD", "0"), ("HF_HUB_OFFLINE", "1"),
                        ("MCP_MEMORY_ALLOW_HASH_EMBEDDINGS", "0"), ("MCP_MEMORY_USE_ONNX", "1")):
        os.environ[name] = value
    folder = lay_out_model(Path(job["model_dir"]))

    from mcp_memory_service.embeddings.onnx_embeddings import ONNXEmbeddingModel
    from mcp_memory_service.models.memory import Memory
    from mcp_memory_service.storage.shared import _embedding_cache_clear
    from mcp_memory_service.storage.sqlite_vec import SqliteVecMemoryStorage
    from mcp_memory_service.utils.hashing import generate_content_hash

    assert ONNXEmbeddingModel.DOWNLOAD_PATH / "onnx" == folder, "HOME did not move the model folder"
    loop = asyncio.new_event_loop()
    store_dir = Path(job["store_dir"])
    store_dir.mkdir(parents=True, exist_ok=True)
    top_k, ingest_s, stored = job["top_k"], 0.0, 0
    runs = {mode: {"ranked": {}, "search_ms": []} for mode in MODES}
    for conv in job["conversations"]:
        path = store_dir / f"{conv['conv_id']}.db"
        for leftover in store_dir.glob(f"{conv['conv_id']}.db*"):
            leftover.unlink()
        storage = SqliteVecMemoryStorage(str(path))
        loop.run_until_complete(storage.initialize())
        model = storage.embedding_model
        assert isinstance(model, ONNXEmbeddingModel), f"not the ONNX model: {type(model).__name__}"
        assert not getattr(storage, "embedding_backend_degraded", False), "hash embeddings in use"
        turns_of: dict[str, list[str]] = {}
        for when, turns in common.sessions(conv["turns"]):
            memories = []
            for k, turn in enumerate(turns):
                digest = generate_content_hash(turn["text"])
                turns_of.setdefault(digest, []).append(turn["fact_id"])
                memories.append(Memory(content=turn["text"], content_hash=digest, tags=[],
                                       metadata={"turn": turn["fact_id"]}, created_at=when + k))
            results, elapsed = common.timed(lambda: loop.run_until_complete(storage.store_batch(memories)))
            ingest_s += elapsed / 1000
            stored += sum(1 for ok, _message in results if ok)
        for mode in MODES:
            _embedding_cache_clear()
            for text in job["warmup"]:
                loop.run_until_complete(storage.search_memories(query=text, mode=mode, limit=top_k))
            for question in conv["questions"]:
                found, elapsed = common.timed(lambda: loop.run_until_complete(
                    storage.search_memories(query=question["question"], mode=mode, limit=top_k)))
                assert "error" not in found, found.get("error")
                runs[mode]["search_ms"].append(elapsed)
                runs[mode]["ranked"][question["qid"]] = common.unique(
                    turn for hit in found["memories"] for turn in turns_of[hit["content_hash"]])
        loop.run_until_complete(storage.close())
    loop.close()
    return {
        "version": version("mcp-memory-service-lite"),
        "config": {"embedding": f"its ONNXEmbeddingModel on MemLens's int8 model.onnx and tokenizer files "
                                f"(onnxruntime {version('onnxruntime')}, tokenizers {version('tokenizers')})",
                   "vectors": f"sqlite-vec {version('sqlite-vec')}",
                   "search": "SqliteVecMemoryStorage.search_memories(query, mode, limit=top_k)",
                   "timestamps": "created_at = session time + turn position (s)"},
        "ingest_s": round(ingest_s, 2),
        "facts_given": sum(len(c["turns"]) for c in job["conversations"]),
        "facts_stored": stored,
        "runs": runs,
    }


if __name__ == "__main__":
    common.main(run)
