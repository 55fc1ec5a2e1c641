"""Where the model runs: one `Provider` per kind, in one registry.

`clova` (CLOVA Studio), `openai` (any OpenAI-compatible server) or `local` (llama-server and a
small model on this machine, prepared once, run as a child process). Each provider answers
everything the rest of the client needs to know about it: its window and output reserve, the
calibration prior of the token estimate, how large tool results may be, how to build the chat
model, how to count the tool list it sends, and what must run while a chat lasts.

Light at import (no langchain): the command line reads the registry before `--help`.
Nothing here prints, reads settings from the environment or writes to Settings (a frozen value):
settling returns a new Settings, and what a running provider learns (the local server's URL, the
chat's slot, the summary server once it answers) is a `Runtime` (client/engine/runtime.py), passed
along. Notices and the local setup's progress go to the frontend given to `runtime()`.
"""

from __future__ import annotations

import dataclasses
import functools
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator

from client.core.config import MIN_TOOL_COMPLETION_TOKENS, ConfigError, Settings, bad_value, phrase
from client.engine.frontend import Frontend
from client.engine.http import http_clients
from client.engine.local.spec import CONTEXT_WINDOW, QWEN_CODER_15B, RESERVED_OUTPUT, TOOL_RESULT_CHARS
from client.engine.runtime import Runtime

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.tools import BaseTool

DECLINE = Frontend()  # shows nothing, asks nobody
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

    def check(self, s: Settings) -> None:
        """ConfigError for what would stop runtime() (e.g. no key), before anything is opened or started."""

    @asynccontextmanager
    async def runtime(self, s: Settings, frontend: Frontend = DECLINE) -> AsyncIterator[Runtime]:
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

    def check(self, s: Settings) -> None:
        if not s.api_key:
            raise ConfigError("no_key")

    @asynccontextmanager
    async def runtime(self, s: Settings, frontend: Frontend = DECLINE) -> AsyncIterator[Runtime]:
        self.check(s)
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

    def check(self, s: Settings) -> None:
        from client.engine.local import runtime_ready

        if not s.local_url and s.provider_auto and not runtime_ready(s.dirs.cache) and not s.interactive:
            raise ConfigError("no_key")  # no silent 1 GiB download from a script: one line, exit 2

    @asynccontextmanager
    async def runtime(self, s: Settings, frontend: Frontend = DECLINE) -> AsyncIterator[Runtime]:
        """The chat's llama-server and the summary server (client/engine/local/runtime.py)."""
        from client.engine.local.runtime import local_runtime

        async with local_runtime(s, self.label, frontend) as runtime:
            yield runtime


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
        **http_clients(settings, runtime.uds),
        **kwargs,
    )


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
        raise bad_value(f"provider={name!r}", phrase("rule_choice", choices=", ".join(PROVIDERS))) from None


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
    """The tools as a request carries them (client/engine/wire_tools.py)."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from client.engine.wire_tools import wire_tool

    return [convert_to_openai_tool(wire_tool(t)) for t in tools]


def limit_output(model: Any, max_tokens: int) -> Any:
    """The same chat model with a smaller output limit (summaries), however it sends the limit."""
    extra = getattr(model, "extra_body", None)
    if isinstance(extra, dict) and "max_tokens" in extra:
        return model.bind(extra_body={**extra, "max_tokens": min(max_tokens, extra["max_tokens"])})
    return model.bind(max_tokens=max_tokens)
