"""An agent folder's workflow files (``workflows/*.yaml``): their schema, loading, the static
check, the templates' sandbox and checked saves. Running them is ``agent_core.workflows``."""
