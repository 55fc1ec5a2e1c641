"""Where the model runs: `clova` (CLOVA Studio), `openai` (any OpenAI-compatible server) or
`local` (llama-server + a small model on this machine, prepared once, run as a child process).

`apply_provider` settles the provider while options are resolved; `provider_runtime` starts
and stops what the provider needs around a chat; `build_openai_model` is the chat model for
the two non-CLOVA providers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator
from urllib.parse import urlsplit

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from client.ui import i18n
from client.core.config import ConfigError, Settings
from client.core.context.budget import estimate_text_tokens
from client.engine.local.spec import QWEN_CODER_15B, TOOL_RESULT_CHARS

from client.ui.provider_options import PROVIDERS, add_provider_options  # noqa: F401 - light, parsed before the rest
LOCAL_MODEL = QWEN_CODER_15B.name
LOCAL_LABEL = "Qwen2.5-Coder-1.5B-Instruct Q4_K_M"
# llama-server's sampling options, sent in the OpenAI-compatible body: a repetition guard for a
# 1.5B model that otherwise repeats one sentence until the output limit.
LOCAL_SAMPLING = {"repeat_penalty": 1.1, "repeat_last_n": 256, "frequency_penalty": 0.2}
LOCAL_MAX_OUTPUT = 512  # answers, of a 4,096-token window
LOCAL_SUMMARY_OUTPUT = 200  # one summary section
SUMMARY_OUTPUT = 600


def apply_provider(s: Settings, args: argparse.Namespace) -> None:
    """Choose the provider and set model, endpoint and key for it (before the budget)."""
    chosen = getattr(args, "provider", None) or os.environ.get("MCP_CHAT_PROVIDER", "").strip() or None
    if chosen is not None and chosen not in PROVIDERS:
        raise ConfigError("bad_option", detail=f"MCP_CHAT_PROVIDER={chosen!r}")
    base_url = getattr(args, "base_url", None)
    s.provider = chosen or ("clova" if s.api_key else "local")
    s.provider_auto = chosen is None and s.provider == "local"
    if s.provider == "clova":
        s.base_url = base_url or s.base_url
    elif s.provider == "openai":
        s.base_url = base_url or os.environ.get("OPENAI_BASE_URL", "").strip()
        if not s.base_url:
            raise ConfigError("openai_no_base_url")
        s.api_key = os.environ.get("OPENAI_API_KEY") or None
        s.model = getattr(args, "model", None) or os.environ.get("OPENAI_MODEL", "").strip()
        if not s.model:
            raise ConfigError("openai_no_model")
    else:
        if base_url:
            raise ConfigError("bad_option", detail="--base-url는 --provider openai 에서만 씁니다")
        s.model = LOCAL_MODEL
        s.api_key = None
        s.memory_budget = min(s.memory_budget, 300)  # of a 3,072-token budget
        # the bundled search server reads this when spawned: results sized for a 4K window
        os.environ.setdefault("NAVER_RESULT_MAX_CHARS", str(TOOL_RESULT_CHARS))


def describe(s: Settings) -> tuple[str, str]:
    """(status-line prefix, /help line) naming the provider and model in plain words."""
    if s.provider == "local":
        what = i18n.t("provider_local", model=LOCAL_LABEL)
    elif s.provider == "openai":
        what = i18n.t("provider_openai", model=s.model, host=urlsplit(s.base_url).netloc or s.base_url)
    else:
        what = i18n.t("provider_clova", model=s.model)
    return f"{what} · ", i18n.t("provider_help", what=what, budget=s.max_input_tokens)


def build_openai_model(settings: Settings, *, with_tools: bool = True) -> BaseChatModel:
    """ChatOpenAI, not ChatClovaX: no CLOVA-only parameters, and the output limit goes out as
    plain `max_tokens` (llama.cpp's server ignores `max_completion_tokens`)."""
    from langchain_openai import ChatOpenAI

    kwargs: dict[str, Any] = {}
    temperature = os.environ.get("MCP_CHAT_TEMPERATURE", "").strip()
    if temperature:
        kwargs["temperature"] = float(temperature)
    elif settings.provider == "local":
        kwargs["temperature"] = 0.3  # a small model wanders at higher temperatures
    extra: dict[str, Any] = {"max_tokens": settings.max_output_tokens}
    if settings.provider == "local":
        extra = {**LOCAL_SAMPLING, "max_tokens": min(settings.max_output_tokens, LOCAL_MAX_OUTPUT)}
    return ChatOpenAI(
        model=settings.model,
        api_key=settings.api_key or "not-needed",  # local servers accept anything
        base_url=settings.base_url,
        extra_body=extra,
        streaming=True,
        stream_usage=True,
        timeout=settings.timeout,
        max_retries=0,  # retries are the agent's (client/core/faults.py), as for CLOVA
        **kwargs,
    )


def limit_output(model: Any, max_tokens: int) -> Any:
    """The same chat model with a smaller output limit (summaries), however it sends the limit."""
    extra = getattr(model, "extra_body", None)
    if isinstance(extra, dict) and "max_tokens" in extra:
        return model.bind(extra_body={**extra, "max_tokens": min(max_tokens, extra["max_tokens"])})
    return model.bind(max_tokens=max_tokens)


def summary_output_tokens(s: Settings) -> int:
    """Bounded summary sections: a small model writes until the limit when it loops."""
    return LOCAL_SUMMARY_OUTPUT if s.provider == "local" else min(SUMMARY_OUTPUT, s.max_output_tokens)


def local_tools_tokens(tools: list[BaseTool]) -> int:
    """Estimate of the tool list as the local template renders it (compact, not full schemas)."""
    from client.engine.agent import tool_schemas
    from client.engine.local.template import render_tools

    return estimate_text_tokens(render_tools(tool_schemas(tools))) if tools else 0


def _announce(s: Settings) -> None:
    """Every status line and /help from now on name the provider and model."""
    status, help_line = describe(s)
    i18n.set_defaults(provider=status, provider_help=help_line)


@asynccontextmanager
async def provider_runtime(s: Settings) -> AsyncIterator[Settings]:
    """What the provider needs while the chat runs: for `local`, the prepared server."""
    if s.provider == "clova" and not s.api_key:
        raise ConfigError("no_key")
    if s.provider != "local":
        _announce(s)
        yield s
        return
    external = os.environ.get("MCP_CHAT_LOCAL_URL", "").strip()
    if external:  # a llama-server already running (shared by sessions, or the tests' recording proxy)
        s.base_url = external
        _announce(s)
        yield s
        return
    from client.engine.local import prepare, runtime_ready
    from client.engine.local.server import install_sigterm_handler

    if s.provider_auto and not runtime_ready() and not sys.stdin.isatty():
        raise ConfigError("no_key")  # no silent 1 GiB download from a script: one line, exit 2
    if s.provider_auto:
        print(i18n.t("auto_local", model=LOCAL_LABEL), file=sys.stderr, flush=True)
    install_sigterm_handler()
    server = prepare(start=True)  # SetupError: one line, exit 1 (client/ui/cli.py)
    helper, helper_ready = None, None
    try:
        await server.wait_ready()
        helper = _start_summary_server(server, s)  # after the chat's: its loading does not delay the start
        if helper is not None:
            helper_ready = asyncio.get_running_loop().create_task(_when_ready(helper, s))
        s.base_url = server.base_url
        _announce(s)
        if s.debug:
            print(f"[local] {server.base_url} pid={server.pid} ready in {server.ready_seconds:.1f}s", file=sys.stderr)
        yield s
    finally:
        if helper_ready is not None:
            helper_ready.cancel()
        if helper is not None:
            helper.stop(grace=1.0)  # holds nothing worth a slow clean exit; niced, it may be slow to stop
        server.stop()


def _start_summary_server(chat: Any, s: Settings) -> Any:
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
