"""Names the dead-code check (vulture, run by ``python3 dev.py test``) must not report.

Each is used by something vulture cannot see: Qt calling an override, pydantic or sqlite reading
an attribute, onnxruntime reading an option. Code that only tests or benchmarks use counts as
used (they are scanned too). Add a name here only with the reason it is not dead; delete dead
code instead.
"""

# ruff: noqa: B018 - a bare name is how vulture is told that a name is used

from types import SimpleNamespace

_ = SimpleNamespace()

# Qt calls these overrides of QWidget, QStyledItemDelegate, QObject and the item models.
_.sizeHint
_.paint
_.paintEvent
_.eventFilter
_.filterAcceptsRow
_.roleNames

# Qt WebEngine calls these overrides (desktop/mcp_apps/sandbox.py), and the MCP App view's host
# page calls the relay's slot through the web channel (desktop/mcp_apps/host_page.py).
_.requestStarted
_.interceptRequest
_.acceptNavigationRequest
_.createWindow
_.javaScriptConsoleMessage
_.fromView

# pydantic reads a model's configuration from this class attribute.
_.model_config

# sqlite3 reads the connection's row factory.
_.row_factory

# The MCP SDK's ClientSession calls it on every tool result (agent_core/mcp/_connection.py).
_.validate_tool_result

# onnxruntime.SessionOptions and sentence-transformers read the options set on them.
_.graph_optimization_level
_.execution_mode
_.inter_op_num_threads
_.intra_op_num_threads
_.enable_cpu_mem_arena
_.enable_mem_pattern
_.max_seq_length

# ruamel.yaml's round-trip loader reads the settings set on it (agent_core/agent/_yaml_edit.py).
_.preserve_quotes
_.allow_duplicate_keys

# Plug-in hooks: each registry loads its built-ins by "module:function" name (agent_core/plugins.py).
_.register_providers
_.register_importers
_.register_token_counters
_.register_embedding_backends
_.register_context_sources

# Jinja2 reads it: the binary operators its sandbox hands to call_binop (workflow templates).
_.intercepted_binops

# CodeMie's workflow fields, declared so that its files validate (a typo is then an error on its
# line); workflow check reads the unsupported ones by name to say they are ignored.
_.include_in_iterator_context
_.append_to_context
_.override_task
_.finish_iteration
_.result_as_human_message
_.retry_policy
_.limit_tool_output_tokens
_.datasource_ids
_.exclude_extra_context_tools
_.skill_ids
_.integration_alias
_.trace
_.mcp_server
_.resolve_dynamic_values_in_response
_.input_key
_.tokens_size_limit
_.slug
_.start_hint
_.custom_nodes
_.enable_summarization_node
_.messages_limit_before_summarization
_.tokens_limit_before_summarization
_.recursion_limit
_.max_concurrency
_.max_iteration_key_output_limit

# The MCP SDK's OAuth client calls its TokenStorage's methods, and reads the provider context's
# token expiry (agent_core/mcp/oauth_storage.py, oauth_clients.py); httpx reads an auth's
# requires_response_body (agent_core/mcp/oauth_grants.py).
_.requires_response_body
_.get_tokens
_.set_tokens
_.get_client_info
_.set_client_info
_.token_expiry_time

# Jinja2 calls them (agent_core/agent/workflow_files/_sandbox.py): its NodeTransformer visits Concat nodes, its
# templates call the environment's concat and unsafe_undefined.
_.visit_Concat
_.concat
_.unsafe_undefined

# asyncio calls a subprocess protocol's methods (agent_core/tools/script_runner.py).
_.pipe_data_received
_.process_exited
_.connection_lost

# atexit calls it when the process ends (indexer/tiers.py: background embedding stops after its slice).
_._stop_at_exit
