"""Where the model runs: one `Provider` per kind, in one registry.

`clova` (CLOVA Studio), `openai` (any OpenAI-compatible server) or `local` (llama-server and a
small model on this machine, prepared once, run as a child process). Each provider answers
everything the rest of the client needs to know about it: its window and output reserve, the
calibration prior of the token estimate, how large tool results may be, how to build the chat
model, how to count the tool list it sends, and what must run while a chat lasts.

Light at import (no langchain): the command line reads the registry before `--help`.
Nothing here prints or writes os.environ; notices go out as (key, fields) to the caller.
"""

from __future__ import annotations

import asyncio
import functools
import os
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
    prompt_cache: bool = False  # a server that keeps the last prompt, free to warm (client/engine/warm.py)

    def window_for(self, model: str) -> tuple[int, int]:
        """(input window, reserved output) of `model`."""
        return self.windows.get(model, (self.window, self.reserved_output))

    def settle(self, s: Settings, *, model: str | None, base_url: str | None) -> None:
        """Endpoint, key and model of this provider, from options and the environment."""
        s.base_url = base_url or s.base_url

    def build_model(self, settings: Settings, *, with_tools: bool = True, role: str = "chat") -> BaseChatModel:
        raise NotImplementedError

    def tools_tokens(self, tools: list[BaseTool]) -> int:
        """Estimated tokens of the tool list as this provider sends it."""
        from client.core.context.budget import estimate_tools_tokens

        return estimate_tools_tokens(tool_schemas(tools))

    def summary_tokens(self, s: Settings) -> int:
        return min(self.summary_output, s.max_output_tokens)

    @asynccontextmanager
    async def runtime(self, s: Settings, notify: Notify = _ignore) -> AsyncIterator[Settings]:
        """What must run while the chat lasts; nothing by default."""
        yield s


@dataclass(frozen=True)
class ClovaProvider(Provider):
    def build_model(self, settings: Settings, *, with_tools: bool = True, role: str = "chat") -> BaseChatModel:
        from langchain_naver import ChatClovaX

        kwargs: dict[str, Any] = {}
        if settings.model.upper().startswith("HCX-007") and with_tools:
            kwargs["reasoning_effort"] = "none"  # CLOVA requires it with tools
        return ChatClovaX(
            model=settings.model,
            api_key=settings.api_key,
            base_url=settings.base_url,
            max_tokens=settings.max_output_tokens,
            streaming=True,
            stream_usage=True,
            timeout=settings.timeout,
            max_retries=0,  # retries are ours: visible, bounded, honouring Retry-After
            **http_clients(settings),
            **kwargs,
        )

    @asynccontextmanager
    async def runtime(self, s: Settings, notify: Notify = _ignore) -> AsyncIterator[Settings]:
        if not s.api_key:
            raise ConfigError("no_key")
        yield s


@dataclass(frozen=True)
class OpenAIProvider(Provider):
    def settle(self, s: Settings, *, model: str | None, base_url: str | None) -> None:
        s.base_url = base_url or os.environ.get("OPENAI_BASE_URL", "").strip()
        if not s.base_url:
            raise ConfigError("openai_no_base_url")
        s.api_key = os.environ.get("OPENAI_API_KEY") or None
        s.model = model or os.environ.get("OPENAI_MODEL", "").strip()
        if not s.model:
            raise ConfigError("openai_no_model")

    def build_model(self, settings: Settings, *, with_tools: bool = True, role: str = "chat") -> BaseChatModel:
        return _chat_openai(settings, {"max_tokens": settings.max_output_tokens}, None)


@dataclass(frozen=True)
class LocalProvider(Provider):
    model: str = QWEN_CODER_15B.name

    def settle(self, s: Settings, *, model: str | None, base_url: str | None) -> None:
        if base_url:
            raise ConfigError("base_url_openai_only")
        s.model = self.model
        s.api_key = None
        if self.memory_budget is not None:
            s.memory_budget = min(s.memory_budget, self.memory_budget)

    def build_model(self, settings: Settings, *, with_tools: bool = True, role: str = "chat") -> BaseChatModel:
        extra: dict[str, Any] = {**LOCAL_SAMPLING, "max_tokens": min(settings.max_output_tokens, LOCAL_MAX_OUTPUT)}
        if settings.chat_slot is not None and settings.base_url != settings.summary_base_url:
            # the chat keeps its slot's cached prompt (client/engine/warm.py); a summary the turn waits
            # for, memory extraction and /compact use the other slot (the server runs two)
            extra["id_slot"] = settings.chat_slot if role == "chat" else 1 - settings.chat_slot
        return _chat_openai(settings, extra, 0.3)  # a small model wanders at higher temperatures

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
    async def runtime(self, s: Settings, notify: Notify = _ignore) -> AsyncIterator[Settings]:
        external = os.environ.get("MCP_CHAT_LOCAL_URL", "").strip()
        if external:  # a llama-server already running (shared by sessions, or the tests' recording proxy)
            s.base_url = external
            yield s
            return
        from client.engine.local import prepare, runtime_ready
        from client.engine.local.server import install_sigterm_handler

        if s.provider_auto and not runtime_ready() and not sys.stdin.isatty():
            raise ConfigError("no_key")  # no silent 1 GiB download from a script: one line, exit 2
        if s.provider_auto:
            notify("auto_local", {"model": self.label})
        install_sigterm_handler()
        server = prepare()  # build or fetch once; SetupError: one line, exit 1 (client/ui/cli.py)
        async with _chat_server(server, s, notify):
            helper = _start_summary_server(server)  # after the chat's: its loading does not delay the start
            helper_ready = None
            try:
                if helper is not None:
                    helper_ready = asyncio.get_running_loop().create_task(_when_ready(helper, s))
                yield s
            finally:
                if helper_ready is not None:
                    helper_ready.cancel()
                from client.engine.local.server import stop_all

                stop_all([helper], [0.0])  # the niced helper holds nothing worth a slow exit: killed at once


@asynccontextmanager
async def _chat_server(server: Any, s: Settings, notify: Notify) -> AsyncIterator[None]:
    """The chat's llama-server: the warm one this user keeps (client/engine/local/keeper.py),
    reused or started for MCP_CHAT_LOCAL_KEEP_ALIVE seconds after the session, or else one of
    this session's own. Either way only requests with the session's key are answered."""
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
            server.api_key, s.base_url = st.key, st.base_url
            pid, seconds = st.pid, time.monotonic() - started
        else:
            server.api_key = secrets.token_urlsafe(32)
            owned = server.start()
            seconds = await server.wait_ready()
            s.base_url, pid = server.base_url, server.pid
        s.api_key = server.api_key
        s.chat_slot = 0  # of the server's two (client/engine/local/server.py SLOTS)
        if s.debug:
            notify("local_ready", {"url": s.base_url, "pid": pid, "seconds": seconds})
        yield
    finally:
        stop_all([owned], [5.0])
        if lease is not None:
            lease.release(keep)


def _start_summary_server(chat: Any) -> Any:
    """The niced one-slot server for background summaries (client/engine/local/server.py),
    spawned once the chat's is ready; None when it cannot start (summaries then use the chat's).
    Only at a terminal: in a pipe the next message waits for the summary, which then needs the
    CPU at once (the chat's second slot). MCP_CHAT_SUMMARY_SERVER=1 / 0 forces it on / off."""
    forced = os.environ.get("MCP_CHAT_SUMMARY_SERVER", "").strip()
    if forced == "0" or (forced != "1" and not sys.stdin.isatty()):
        return None
    from client.engine.local.server import summary_server

    try:
        return summary_server(chat).start()
    except OSError:
        return None


async def _when_ready(helper: Any, s: Settings) -> None:
    """Background summaries move to the helper once it answers; until then, or if it never
    does, they go to the chat's server as before."""
    try:
        await helper.wait_ready()
    except Exception:  # noqa: BLE001 - the chat's server still serves summaries
        return
    s.summary_base_url = helper.base_url


def _chat_openai(settings: Settings, extra: dict[str, Any], temperature: float | None) -> BaseChatModel:
    """ChatOpenAI, not ChatClovaX: no CLOVA-only parameters, and the output limit goes out as
    plain `max_tokens` in the body (llama.cpp's server ignores `max_completion_tokens`)."""
    from langchain_openai import ChatOpenAI

    kwargs: dict[str, Any] = {}
    explicit = os.environ.get("MCP_CHAT_TEMPERATURE", "").strip()
    if explicit:
        kwargs["temperature"] = float(explicit)
    elif temperature is not None:
        kwargs["temperature"] = temperature
    return ChatOpenAI(
        model=settings.model,
        api_key=settings.api_key or "not-needed",  # local servers accept anything
        base_url=settings.base_url,
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
        prompt_cache=True,
    ),
}


def get_provider(name: str) -> Provider:
    try:
        return PROVIDERS[name]
    except KeyError:
        raise ConfigError("bad_option", detail=f"provider={name!r}") from None


def choose_provider(s: Settings, chosen: str | None, *, model: str | None = None, base_url: str | None = None) -> Provider:
    """Settle s.provider (None: clova with a key, else local) and its endpoint, key and model."""
    chosen = chosen or None
    if chosen is not None:
        get_provider(chosen)
    s.provider = chosen or ("clova" if s.api_key else "local")
    s.provider_auto = chosen is None and s.provider == "local"
    provider = get_provider(s.provider)
    provider.settle(s, model=model, base_url=base_url)
    return provider


def apply_model_window(s: Settings, budget: int | None = None) -> None:
    """Output reserve and request budget for s.model (an explicit budget is kept)."""
    window, out = get_provider(s.provider).window_for(s.model)
    s.max_output_tokens = max(out, MIN_TOOL_COMPLETION_TOKENS)
    if budget is not None:
        s.max_input_tokens, s.budget_explicit = budget, True
    elif not s.budget_explicit:
        s.max_input_tokens = window - s.max_output_tokens


def build_model(settings: Settings, *, with_tools: bool = True, role: str = "chat") -> BaseChatModel:
    """The chat model of settings.provider; role "summary": the tool-less one for summaries and memory."""
    return get_provider(settings.provider).build_model(settings, with_tools=with_tools, role=role)


def tool_schemas(tools: list[BaseTool]) -> list[dict[str, Any]]:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return [convert_to_openai_tool(t) for t in tools]


def limit_output(model: Any, max_tokens: int) -> Any:
    """The same chat model with a smaller output limit (summaries), however it sends the limit."""
    extra = getattr(model, "extra_body", None)
    if isinstance(extra, dict) and "max_tokens" in extra:
        return model.bind(extra_body={**extra, "max_tokens": min(max_tokens, extra["max_tokens"])})
    return model.bind(max_tokens=max_tokens)


def summary_output_tokens(s: Settings) -> int:
    """Bounded summary sections: a small model writes until the limit when it loops."""
    return get_provider(s.provider).summary_tokens(s)
