"""The agent's configured providers: id, type, where the key comes from, base URL."""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

from PySide6.QtCore import Qt

from agent_core.agent.keyring_secrets import KEYRING_SCHEME
from agent_core.agent.schema import ProviderConfig
from agent_core.agent.secrets import ENV_SCHEME
from desktop.models._table import RowTableModel

__all__ = ["ProviderColumn", "ProviderListModel", "ProviderRole", "key_source"]


def key_source(value: str | None) -> str:
    """Where a key comes from, in words; never the key itself."""
    if not value:
        return "no key"
    if value.startswith(ENV_SCHEME):
        return f"environment ({value[len(ENV_SCHEME) :]})"
    if value.startswith(KEYRING_SCHEME):
        return "system keyring"
    return "in agent.yaml (plain text)"


class ProviderColumn(IntEnum):
    ID = 0
    TYPE = 1
    KEY = 2
    BASE_URL = 3


class ProviderRole(IntEnum):
    ID = Qt.ItemDataRole.UserRole + 1
    CONFIG = Qt.ItemDataRole.UserRole + 2


class ProviderListModel(RowTableModel[tuple[str, ProviderConfig]]):
    HEADERS = ("Provider", "Type", "Key", "Base URL")

    def set_providers(self, providers: Mapping[str, ProviderConfig]) -> None:
        self._reset_rows(sorted(providers.items()))

    def row_of(self, provider_id: str) -> int | None:
        return next((i for i, (pid, _) in enumerate(self._rows) if pid == provider_id), None)

    def cell_data(self, row: tuple[str, ProviderConfig], column: int, role: int) -> Any:
        provider_id, config = row
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                ProviderColumn.ID: provider_id,
                ProviderColumn.TYPE: config.type or provider_id,
                ProviderColumn.KEY: key_source(config.api_key),
                ProviderColumn.BASE_URL: config.base_url or "",
            }[ProviderColumn(column)]
        if role == ProviderRole.ID:
            return provider_id
        if role == ProviderRole.CONFIG:
            return config
        return None
