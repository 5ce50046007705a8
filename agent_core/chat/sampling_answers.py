"""How a chat answers a tool server's sampling request: the server's ``sampling`` setting and the
user's approval decide whether; the model is the server's ``samplingModel``, else one the
server's hints name among the agent's models, else the chat's; every request ends in a
``SamplingRecord`` for the reply's RequestContext, answered or not."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, MutableSet, Sequence
from dataclasses import dataclass

from agent_core.agent.schema import ChatDefaults, McpServerConfig, SamplingPolicy
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, SamplingAnswered
from agent_core.chat.resolved_model import ModelResolver
from agent_core.context.items import SamplingOutcome, SamplingRecord, TokenUsage
from agent_core.errors import ProviderError
from agent_core.providers.base import ChatMessage, ChatRequest, GenerationSettings
from agent_core.sampling_router import (
    SamplingAnswer,
    SamplingHandler,
    SamplingRefusedError,
    SamplingRequest,
    StopReason,
)

__all__ = ["ChatSampling", "SamplingEvent", "choose_model"]

SamplingEvent = ApprovalRequest | SamplingAnswered
MAX_ANSWER_CHARACTERS = 20_000  # what the record keeps of an answer (the server gets it whole)


@dataclass(frozen=True)
class ChatSampling:
    """What one chat needs to answer sampling requests."""

    models: ModelResolver
    chat: ChatDefaults
    servers: Mapping[str, McpServerConfig]
    allowed_servers: MutableSet[str]  # "always for this server", for the rest of the chat
    agent_models: Sequence[str] = ()  # provider:model refs the agent uses, for the server's hints

    def handler(self, call_id: str, tool: str, emit: Callable[[SamplingEvent], None]) -> SamplingHandler:
        """The handler for requests made during tool call ``call_id`` (of ``tool``); its approval
        requests and records go to ``emit``."""

        async def answer(request: SamplingRequest) -> SamplingAnswer:
            return await self._answer(request, call_id, tool, emit)

        return answer

    async def _answer(
        self, request: SamplingRequest, call_id: str, tool: str, emit: Callable[[SamplingEvent], None]
    ) -> SamplingAnswer:
        started = time.monotonic()

        def record(outcome: SamplingOutcome, approval: str, **details: object) -> SamplingRecord:
            done = SamplingRecord(
                call_id=call_id,
                server=request.server,
                tool=tool,
                system_prompt=request.system_prompt,
                prompt=request.prompt,
                max_tokens=request.max_tokens,
                outcome=outcome,
                approval=approval,
                elapsed_seconds=round(time.monotonic() - started, 4),
                **details,  # type: ignore[arg-type]
            )
            emit(SamplingAnswered(done))
            return done

        if request.refused:
            record("refused", "", note=request.refused)
            raise SamplingRefusedError(request.refused)
        config = self.servers.get(request.server)
        policy = config.sampling if config is not None else SamplingPolicy.DENY
        if policy is SamplingPolicy.DENY:
            why = f"The settings of '{request.server}' refuse sampling (sampling: deny)."
            record("denied", "denied_by_setting", note=why)
            raise SamplingRefusedError(why)
        if policy is SamplingPolicy.ALLOW:
            approval = "allowed_by_setting"
        elif request.server in self.allowed_servers:
            approval = "allowed_for_server"
        else:
            ask = ApprovalRequest(
                call_id=call_id, server=request.server, tool=tool, arguments={}, sampling=request
            )
            emit(ask)
            decision = await ask.wait()
            if decision is ApprovalDecision.DENY:
                record("denied", "denied", note="Denied by the user.")
                raise SamplingRefusedError("The user denied the sampling request.")
            if decision is ApprovalDecision.ALLOW_FOR_CHAT:
                self.allowed_servers.add(request.server)
                approval = "allowed_for_server"
            else:
                approval = "allowed_once"
        model_ref, note = choose_model(
            request.model_hints,
            config.sampling_model if config is not None else None,
            self.chat.model,
            self.agent_models,
        )
        try:
            model = self.models.resolve(model_ref)
            completion = await asyncio.wait_for(
                model.provider.complete(
                    ChatRequest(
                        messages=_messages(request),
                        settings=GenerationSettings(
                            model=model.model_id,
                            max_output_tokens=request.max_tokens,
                            temperature=self.chat.temperature
                            if request.temperature is None
                            else request.temperature,
                            top_p=self.chat.top_p,
                        ),
                    )
                ),
                self.chat.reply_timeout_seconds,
            )
        except (ProviderError, TimeoutError) as error:
            why = (
                str(error) or f"no answer within {self.chat.reply_timeout_seconds:g} s (replyTimeoutSeconds)"
            )
            record("failed", approval, model=model_ref, note=why)
            raise ProviderError(why) from error
        text = completion.text
        usage = TokenUsage(
            completion.usage.input_tokens,
            completion.usage.output_tokens,
            completion.usage.cached_input_tokens,
        )
        record(
            "answered",
            approval,
            model=model_ref,
            answer=text[:MAX_ANSWER_CHARACTERS],
            usage=usage,
            note=note,
        )
        stop: StopReason = "maxTokens" if completion.finish_reason == "length" else "endTurn"
        return SamplingAnswer(text, model_ref, stop, usage)


def choose_model(
    hints: Sequence[str], server_model: str | None, chat_model: str, agent_models: Sequence[str]
) -> tuple[str, str]:
    """The model that answers, and a note on why when it is not simply the chat's: the server's
    ``samplingModel`` (the user's choice wins), else the first hint that names one of the
    agent's models (the spec's substring match), else the chat's model."""
    if server_model:
        return server_model, "the server's samplingModel"
    for hint in hints:
        for ref in (chat_model, *agent_models):
            if hint.lower() in ref.lower():
                return ref, f"the server's model hint '{hint}'"
    return chat_model, ""


def _messages(request: SamplingRequest) -> list[ChatMessage]:
    system = [ChatMessage("system", request.system_prompt)] if request.system_prompt else []
    return [*system, *(ChatMessage(m.role, m.text) for m in request.messages)]
