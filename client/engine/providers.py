"""Where the model runs: one `Provider` per kind, in one registry.

`clova` (CLOVA Studio), `openai` (any OpenAI-compatible server) or `local` (llama-server and a
small model on this machine, prepared once, run as a child process). Each provider answers
everything the rest of the client needs to know about it: its window and output reserve, the
calibration prior of the token estimate, how large tool results may be, how to build the chat
model, how to count the tool list it sends, and what must run while a chat lasts.

Light at import (no langchain): the command line reads the registry before `--help`.
Nothing here prints, reads settings from the environment or writes to Settings (a frozen value):
settling returns a new Settings, and what a running provider learns (the local server's URL, the
chat's slot, the summary server once it answers) is a `Runtime`, passed along. Notices go out
as (key, fields) to the caller.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable

from client.core.config import MIN_TOOL_COMPLETION_TOKENS, ConfigError, Settings
from client.engine.local.spec import CONTEXT_WINDOW, QWEN_CODER_15B, RESERVED_OUTPUT, TOOL_RESULT_CHARS

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.tools import BaseTool

Notify = Callable[[str, dict[str, Any]], None]  # (message key, fields): the ui words and shows it

SUMMARY_OUTPUT = 600  # one summary section, at most
# (input window, reserved output) per CLOVA model; other models get the provider's defaults.
CLOVA_WINDOWS: dict[str, tuple[int, int]] = {
    "HCX-005": (128_000, 4_096),
    "HCX-007": (128_000, 4_096),
    "HCX-003": (8_192, 1_024),
    "HCX-DASH-002": (32_000, 1_024),
    "HCX-DASH-001": (4_096, 1_024),
}
# llama-server's sampling options, sent in the OpenAI-compatible body: a repetition guard for a
# 1.5B model that otherwise repeats one sentence until the output limit.
LOCAL_SAMPLING = {"repeat_penalty": 1.1, "repeat_last_n": 256, "frequency_penalty": 0.2}
LOCAL_MAX_OUTPUT = 512  # answers, of a 4,096-token window


def _ignore(key: str, fmt: dict[str, Any]) -> None:
    pass


@dataclass
class Runtime:
    """What a provider's runtime learns while the chat runs (Settings stay what was resolved).

    `base_url`: where the chat model answers (local: the server it started); `chat_slot`: the
    server slot the chat keeps (its prompt cache; summaries use the other); `summary_base_url`:
    the niced server for background summaries, set once it answers (read when a summary starts).
    """

    base_url: str
    chat_slot: int | None = None
    summary_base_url: str = ""
    api_key: str | None = None  # local: the key its server requires (client/engine/local/keeper.py)

    @classmethod
    def of(cls, s: Settings) -> Runtime:
        """Nothing learnt: the endpoint the settings name."""
        return cls(s.base_url)

    def summary_server(self) -> Runtime | None:
        """The runtime of the summary server, once it is ready (None before)."""
        return Runtime(self.summary_base_url, api_key=self.api_key) if self.summary_base_url else None

    def key(self, s: Settings) -> str | None:
        """The key requests to this endpoint carry: the runtime's own, else the settings'."""
        return self.api_key or s.api_key


@dataclass(frozen=True)
class Provider:
    """Facts and behaviour of one provider. Subclasses override what differs."""

    name: str
    label: str  # plain words for the model family; the ui turns it into a sentence
    window: int = 32_000  # input window of a model not listed in `windows`
    reserved_output: int = 2_048
    windows: dict[str, tuple[int, int]] = field(default_factory=dict)
    calibration_prior: float = 1.0  # tokenizer tokens per estimated token, until the server reports
    tool_result_chars: int | None = None  # cap for the bundled search server; None: its own default
    summary_output: int = SUMMARY_OUTPUT
    memory_budget: int | None = None  # cap on the [장기 기억] section, for small windows
    memory_source: str = "both"  # where memory candidates come from unless --memory-source says (docs/memory.md)
    prompt_cache: bool = False  # a server that keeps the last prompt, free to warm (client/engine/warm.py)

    def window_for(self, model: str) -> tuple[int, int]:
        """(input window, reserved output) of `model`."""
        return self.windows.get(model, (self.window, self.reserved_output))

    def settle(self, s: Settings, *, model: str | None, base_url: str | None, api_key: str | None) -> Settings:
        """`s` with this provider's endpoint, key and model (the values options and environment gave)."""
        return dataclasses.replace(s, model=model or s.model, base_url=base_url or s.base_url, api_key=api_key)

    def build_model(self, settings: Settings, runtime: Runtime, *, with_tools: bool = True,
                    role: str = "chat") -> BaseChatModel:
        raise NotImplementedError

    def tools_tokens(self, tools: list[BaseTool]) -> int:
        """Estimated tokens of the tool list as this provider sends it."""
        from client.core.context.budget import estimate_tools_tokens

        return estimate_tools_tokens(tool_schemas(tools))

    def summary_tokens(self, s: Settings) -> int:
        return min(self.summary_output, s.max_output_tokens)

    @asynccontextmanager
    async def runtime(self, s: Settings, notify: Notify = _ignore) -> AsyncIterator[Runtime]:
        """What must run while the chat lasts; nothing by default."""
        yield Runtime.of(s)


@dataclass(frozen=True)
class ClovaProvider(Provider):
    def build_model(self, settings: Settings, runtime: Runtime, *, with_tools: bool = True,
                    role: str = "chat") -> BaseChatModel:
        from langchain_naver import ChatClovaX

        kwargs: dict[str, Any] = {}
        if settings.model.upper().startswith("HCX-007") and with_tools:
            kwargs["reasoning_effort"] = "none"  # CLOVA requires it with tools
        return ChatClovaX(
            model=settings.model,
            api_key=settings.api_key,
            base_url=runtime.base_url,
            max_tokens=settings.max_output_tokens,
            streaming=True,
            stream_usage=True,
            timeout=settings.timeout,
            max_retries=0,  # retries are ours: visible, bounded, honouring Retry-After
            **http_clients(settings),
            **kwargs,
        )

    @asynccontextmanager
    async def runtime(self, s: Settings, notify: Notify = _ignore) -> AsyncIterator[Runtime]:
        if not s.api_key:
            raise ConfigError("no_key")
        yield Runtime.of(s)


@dataclass(frozen=True)
class OpenAIProvider(Provider):
    def settle(self, s: Settings, *, model: str | None, base_url: str | None, api_key: str | None) -> Settings:
        if not base_url:
            raise ConfigError("openai_no_base_url")
        if not model:
            raise ConfigError("openai_no_model")
        return dataclasses.replace(s, model=model, base_url=base_url, api_key=api_key)

    def build_model(self, settings: Settings, runtime: Runtime, *, with_tools: bool = True,
                    role: str = "chat") -> BaseChatModel:
        return _chat_openai(settings, runtime, {"max_tokens": settings.max_output_tokens}, None)


@dataclass(frozen=True)
class LocalProvider(Provider):
    model: str = QWEN_CODER_15B.name

    def settle(self, s: Settings, *, model: str | None, base_url: str | None, api_key: str | None) -> Settings:
        if base_url:
            raise ConfigError("base_url_openai_only")
        budget = s.memory_budget if self.memory_budget is None else min(s.memory_budget, self.memory_budget)
        return dataclasses.replace(s, model=self.model, api_key=None, memory_budget=budget)

    def build_model(self, settings: Settings, runtime: Runtime, *, with_tools: bool = True,
                    role: str = "chat") -> BaseChatModel:
        extra: dict[str, Any] = {**LOCAL_SAMPLING, "max_tokens": min(settings.max_output_tokens, LOCAL_MAX_OUTPUT)}
        if runtime.chat_slot is not None:
            # the chat keeps its slot's cached prompt (client/engine/warm.py); a summary the turn waits
            # for, memory extraction and /compact use the other slot (the server runs two)
            extra["id_slot"] = runtime.chat_slot if role == "chat" else 1 - runtime.chat_slot
        return _chat_openai(settings, runtime, extra, 0.3)  # a small model wanders at higher temperatures

    def tools_tokens(self, tools: list[BaseTool]) -> int:
        """The local template lists tools compactly (not full schemas): count what is sent."""
        if not tools:
            return 0
        from client.core.context.budget import estimate_text_tokens
        from client.engine.local.template import render_tools

        return estimate_text_tokens(render_tools(tool_schemas(tools)))

    def summary_tokens(self, s: Settings) -> int:
        return self.summary_output  # a small model writes until the limit when it loops

    @asynccontextmanager
    async def runtime(self, s: Settings, notify: Notify = _ignore) -> AsyncIterator[Runtime]:
        if s.local_url:  # a llama-server already running (shared by sessions, or the tests' recording proxy)
            yield Runtime(s.local_url)
            return
        from client.engine.local import prepare, runtime_ready
        from client.engine.local.server import install_sigterm_handler

        if s.provider_auto and not runtime_ready() and not s.interactive:
            raise ConfigError("no_key")  # no silent 1 GiB download from a script: one line, exit 2
        if s.provider_auto:
            notify("auto_local", {"model": self.label})
        install_sigterm_handler()
        server = prepare()  # build or fetch once; SetupError: one line, exit 1 (client/ui/cli.py)
        async with _chat_server(server, s, notify) as runtime:
            helper = _start_summary_server(server, s)  # after the chat's: its loading does not delay the start
            helper_ready = None
            try:
                if helper is not None:
                    helper_ready = asyncio.get_running_loop().create_task(_when_ready(helper, runtime))
                yield runtime
            finally:
                if helper_ready is not None:
                    helper_ready.cancel()
                from client.engine.local.server import stop_all

                stop_all([helper], [0.0])  # the niced helper holds nothing worth a slow exit: killed at once


@asynccontextmanager
async def _chat_server(server: Any, s: Settings, notify: Notify) -> AsyncIterator[Runtime]:
    """The chat's llama-server: the warm one this user keeps (client/engine/local/keeper.py),
    reused or started for MCP_CHAT_LOCAL_KEEP_ALIVE seconds after the session, or else one of
    this session's own. Either way it answers only requests with the key in the runtime."""
    import secrets
    import time

    from client.engine.local import keeper
    from client.engine.local.server import stop_all

    keep = keeper.keep_alive()
    started = time.monotonic()
    lease = await keeper.acquire(server, keep) if sys.platform.startswith("linux") else None
    owned = None
    try:
        if lease is not None and lease.state is not None:
            st = lease.state
            server.api_key, url, pid, seconds = st.key, st.base_url, st.pid, time.monotonic() - started
        else:
            server.api_key = secrets.token_urlsafe(32)
            owned = server.start()
            seconds = await server.wait_ready()
            url, pid = server.base_url, server.pid
        runtime = Runtime(url, chat_slot=0, api_key=server.api_key)  # slot 0 of the server's two (SLOTS)
        if s.debug:
            notify("local_ready", {"url": url, "pid": pid, "seconds": seconds})
        yield runtime
    finally:
        stop_all([owned], [5.0])
        if lease is not None:
            lease.release(keep)


def _start_summary_server(chat: Any, s: Settings) -> Any:
    """The niced one-slot server for background summaries (client/engine/local/server.py),
    spawned once the chat's is ready; None when it cannot start (summaries then use the chat's).
    Only at a terminal: in a pipe the next message waits for the summary, which then needs the
    CPU at once (the chat's second slot). MCP_CHAT_SUMMARY_SERVER=1 / 0 forces it on / off."""
    if not (s.interactive if s.summary_server is None else s.summary_server):
        return None
    from client.engine.local.server import summary_server

    try:
        return summary_server(chat).start()
    except OSError:
        return None


async def _when_ready(helper: Any, runtime: Runtime) -> None:
    """Background summaries move to the helper once it answers; until then, or if it never
    does, they go to the chat's server as before."""
    try:
        await helper.wait_ready()
    except Exception:  # noqa: BLE001 - the chat's server still serves summaries
        return
    runtime.summary_base_url = helper.base_url


def _chat_openai(settings: Settings, runtime: Runtime, extra: dict[str, Any], temperature: float | None) -> BaseChatModel:
    """ChatOpenAI, not ChatClovaX: no CLOVA-only parameters, and the output limit goes out as
    plain `max_tokens` in the body (llama.cpp's server ignores `max_completion_tokens`)."""
    from langchain_openai import ChatOpenAI

    kwargs: dict[str, Any] = {}
    if settings.temperature is not None:
        kwargs["temperature"] = settings.temperature
    elif temperature is not None:
        kwargs["temperature"] = temperature
    return ChatOpenAI(
        model=settings.model,
        api_key=runtime.key(settings) or "not-needed",  # a server without a key accepts anything
        base_url=runtime.base_url,
        extra_body=extra,
        streaming=True,
        stream_usage=True,
        timeout=settings.timeout,
        max_retries=0,  # retries are the agent's (client/core/faults.py), as for CLOVA
        **http_clients(settings),
        **kwargs,
    )


def http_clients(settings: Settings) -> dict[str, Any]:
    """The HTTP clients the openai SDK would make for itself (same defaults: timeout, limits,
    redirects), sharing one TLS context: loading the CA store takes ~40 ms (seconds on a busy
    machine) and every chat model would otherwise load it twice (a sync and an async client),
    three models a session."""
    import openai

    verify = tls_context()
    return {"http_client": openai.DefaultHttpxClient(timeout=settings.timeout, verify=verify),
            "http_async_client": openai.DefaultAsyncHttpxClient(timeout=settings.timeout, verify=verify)}


@functools.cache
def tls_context() -> Any:
    """The TLS context the openai SDK's HTTP library builds by default, made once per process."""
    try:
        import httpx2 as http  # the openai SDK's HTTP library from 2.x on
    except ImportError:  # pragma: no cover - older SDKs use httpx
        import httpx as http  # type: ignore[no-redef]
    return http.create_ssl_context()


PROVIDERS: dict[str, Provider] = {
    "clova": ClovaProvider("clova", "CLOVA Studio", windows=CLOVA_WINDOWS),
    "openai": OpenAIProvider("openai", "OpenAI-compatible"),
    "local": LocalProvider(
        "local", "Qwen2.5-Coder-1.5B-Instruct Q4_K_M", window=CONTEXT_WINDOW, reserved_output=RESERVED_OUTPUT,
        calibration_prior=1.2,  # Qwen's tokenizer counts ~20% more than our estimate
        tool_result_chars=TOOL_RESULT_CHARS, summary_output=200, memory_budget=300,  # of a 3,072-token budget
        memory_source="user",  # its extraction keeps 5 of 21 facts, the user's statements 21 (bench/memory_real.py)
        prompt_cache=True,
    ),
}


def get_provider(name: str) -> Provider:
    try:
        return PROVIDERS[name]
    except KeyError:
        raise ConfigError("bad_option", detail=f"provider={name!r}") from None


def provider_name(chosen: str | None, *, clova_key: str | None) -> str:
    """The provider to use: the one chosen, else clova with a key and local without."""
    if chosen:
        get_provider(chosen)
        return chosen
    return "clova" if clova_key else "local"


def choose_provider(s: Settings, name: str, *, model: str | None = None, base_url: str | None = None,
                    api_key: str | None = None, auto: bool = False) -> Settings:
    """`s` on provider `name`, with its endpoint, key and model. `auto`: local was picked for
    want of a CLOVA key (no --provider given)."""
    provider = get_provider(name)
    return provider.settle(dataclasses.replace(s, provider=name, provider_auto=auto),
                           model=model, base_url=base_url, api_key=api_key)


def for_model(s: Settings, model: str | None = None, budget: int | None = None) -> Settings:
    """`s` for `model` (default: s.model): its output reserve and request budget (an explicit
    budget, given now or before, is kept)."""
    model = model or s.model
    window, out = get_provider(s.provider).window_for(model)
    out = max(out, MIN_TOOL_COMPLETION_TOKENS)
    if budget is not None:
        return dataclasses.replace(s, model=model, max_output_tokens=out, max_input_tokens=budget, budget_explicit=True)
    tokens = s.max_input_tokens if s.budget_explicit else window - out
    return dataclasses.replace(s, model=model, max_output_tokens=out, max_input_tokens=tokens)


def build_model(settings: Settings, runtime: Runtime | None = None, *, with_tools: bool = True,
                role: str = "chat") -> BaseChatModel:
    """The chat model of settings.provider; role "summary": the tool-less one for summaries and memory."""
    return get_provider(settings.provider).build_model(settings, runtime or Runtime.of(settings),
                                                       with_tools=with_tools, role=role)


def tool_schemas(tools: list[BaseTool]) -> list[dict[str, Any]]:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return [convert_to_openai_tool(t) for t in tools]


def limit_output(model: Any, max_tokens: int) -> Any:
    """The same chat model with a smaller output limit (summaries), however it sends the limit."""
    extra = getattr(model, "extra_body", None)
    if isinstance(extra, dict) and "max_tokens" in extra:
        return model.bind(extra_body={**extra, "max_tokens": min(max_tokens, extra["max_tokens"])})
    return model.bind(max_tokens=max_tokens)
