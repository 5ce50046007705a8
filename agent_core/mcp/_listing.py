"""What a server offers: its tools, resources and prompts, every page of each list."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from mcp import Client

from agent_core.mcp._content import prompt_message, resource_part, tool_annotations
from agent_core.mcp._pagination import all_pages
from agent_core.mcp._requests import Requests
from agent_core.mcp.apps.meta import tool_ui
from agent_core.mcp.settings import effective_tool_settings
from agent_core.mcp.types import (
    PromptArgument,
    PromptInfo,
    PromptResult,
    ResourceContent,
    ResourceInfo,
    ToolInfo,
)

__all__ = ["Listing"]


class Listing(Requests):
    """The server's lists, and reading a resource or a prompt from them."""

    async def _list_tools(self, client: Client) -> tuple[ToolInfo, ...]:
        if client.server_capabilities.tools is None:
            return ()
        tools: list[ToolInfo] = []
        for page in await all_pages(lambda cursor: client.list_tools(cursor=cursor)):
            for tool in page.tools:
                annotations = tool_annotations(tool.annotations)
                settings = effective_tool_settings(self.config, tool.name, annotations)
                tools.append(
                    ToolInfo(
                        server=self.name,
                        name=tool.name,
                        description=tool.description or "",
                        input_schema=tool.input_schema,
                        include=settings.include,
                        permission_required=settings.permission_required,
                        asks_every_call=settings.asks_every_call,
                        title=tool.title,
                        annotations=annotations,
                        output_schema=tool.output_schema,
                        task_support=tool.execution.task_support if tool.execution else None,
                        ui=tool_ui(tool.meta),
                    )
                )
        return tuple(tools)

    async def list_resources(self) -> list[ResourceInfo]:
        """The server's resources (empty when it has none).

        Raises:
            McpServerError: the server is not ready or the request failed.
        """
        if self._ready_client().server_capabilities.resources is None:
            return []
        pages = await all_pages(
            lambda cursor: self._request("the resource list", partial(Client.list_resources, cursor=cursor))
        )
        return [
            ResourceInfo(
                server=self.name,
                uri=str(r.uri),
                name=r.name,
                description=r.description or "",
                mime_type=r.mime_type,
                title=r.title,
                size=r.size,
            )
            for page in pages
            for r in page.resources
        ]

    async def read_resource(self, uri: str) -> ResourceContent:
        """Read one resource.

        Raises:
            McpServerError: the server is not ready, does not know ``uri``, or the request failed.
        """
        answer = await self._request(f"reading {uri}", lambda client: client.read_resource(uri))
        return ResourceContent(self.name, uri, tuple(resource_part(part) for part in answer.contents))

    async def list_prompts(self) -> list[PromptInfo]:
        """The server's prompts (empty when it has none).

        Raises:
            McpServerError: the server is not ready or the request failed.
        """
        if self._ready_client().server_capabilities.prompts is None:
            return []
        pages = await all_pages(
            lambda cursor: self._request("the prompt list", partial(Client.list_prompts, cursor=cursor))
        )
        return [
            PromptInfo(
                server=self.name,
                name=p.name,
                description=p.description or "",
                title=p.title,
                arguments=tuple(
                    PromptArgument(a.name, a.description or "", bool(a.required)) for a in p.arguments or ()
                ),
            )
            for page in pages
            for p in page.prompts
        ]

    async def get_prompt(self, name: str, arguments: Mapping[str, str] | None = None) -> PromptResult:
        """A prompt filled in with ``arguments``.

        Raises:
            McpServerError: the server is not ready, does not know the prompt, or the request failed.
        """
        answer = await self._request(
            f"the prompt {name}", lambda client: client.get_prompt(name, dict(arguments or {}))
        )
        return PromptResult(
            self.name, name, answer.description or "", tuple(prompt_message(m) for m in answer.messages)
        )
