"""ContextDesk's indexer: picks the rules, references and tools that fit each user message.

Qt-free. Embeds with a local model (ONNX by default), caches vectors on disk by content hash,
and ranks with either the anchor design's rules or ContextDesk's hybrid (dense + BM25) strategy.
"""

from __future__ import annotations

from indexer._lexical import Bm25
from indexer._lexical import tokenize as lexical_tokens
from indexer._one_thing import asks_what_one_thing_is
from indexer._texts import is_knowledge_question, one_edit_apart
from indexer.backends import EmbeddingBackend, onnx_backend, sentence_transformers_backend
from indexer.cache import EmbeddingCache
from indexer.chunking import chunk_text
from indexer.documents import Document, IndexedKind, render_parameters, tool_document
from indexer.errors import (
    BackendUnavailableError,
    EmbeddingError,
    IndexerError,
    ModelLoadError,
)
from indexer.index import Indexer, ScoredDocument, Selection, Timings
from indexer.ranking import Reason, SelectionSettings, Strategy

__all__ = [
    "BackendUnavailableError",
    "Bm25",
    "Document",
    "EmbeddingBackend",
    "EmbeddingCache",
    "EmbeddingError",
    "IndexedKind",
    "Indexer",
    "IndexerError",
    "ModelLoadError",
    "Reason",
    "ScoredDocument",
    "Selection",
    "SelectionSettings",
    "Strategy",
    "Timings",
    "asks_what_one_thing_is",
    "chunk_text",
    "is_knowledge_question",
    "lexical_tokens",
    "one_edit_apart",
    "onnx_backend",
    "render_parameters",
    "sentence_transformers_backend",
    "tool_document",
]
