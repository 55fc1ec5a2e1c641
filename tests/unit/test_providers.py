"""The provider registry: each provider's facts, how settings are settled from them, and the
bottom of the import graph (client/core/config.py imports nothing from the package)."""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from client.core.config import ConfigError, Settings
from client.core.faults import MAX_TRIES, with_retries
from client.engine.local.spec import CONTEXT_WINDOW, TOOL_RESULT_CHARS
from client.engine.mcp.specs import bundled_spec, server_specs
from client.engine.providers import PROVIDERS, choose_provider, for_model, get_provider, provider_name
from client.ui.options import PROVIDER_NAMES, add_chat_options, resolve

ROOT = Path(__file__).resolve().parents[2]


def test_registry_names_match_the_light_option_choices():
    assert tuple(PROVIDERS) == PROVIDER_NAMES == ("clova", "openai", "local")
    assert all(PROVIDERS[n].name == n for n in PROVIDERS)


def test_local_window_reserved_output_and_result_size_come_from_the_provider():
    local = get_provider("local")
    assert local.window_for(local.model) == (CONTEXT_WINDOW, 1_024)
    assert local.window_for("anything") == (CONTEXT_WINDOW, 1_024)  # one model, served with -c
    assert local.tool_result_chars == TOOL_RESULT_CHARS
    assert local.calibration_prior > 1.0


def test_clova_windows_per_model_and_a_default():
    clova = get_provider("clova")
    assert clova.window_for("HCX-005") == (128_000, 4_096)
    assert clova.window_for("HCX-003") == (8_192, 1_024)
    assert clova.window_for("HCX-NEW") == (32_000, 2_048)
    assert clova.tool_result_chars is None and clova.calibration_prior == 1.0


def test_openai_uses_the_default_window_whatever_the_model():
    openai = get_provider("openai")
    assert openai.window_for("llama3.2") == (32_000, 2_048)
    assert openai.tool_result_chars is None


def test_unknown_provider_is_a_config_error():
    with pytest.raises(ConfigError) as e:
        get_provider("nope")
    assert e.value.key == "bad_value" and "nope" in str(e.value.fmt["given"])


def test_local_budget_is_window_minus_reserved_output():
    s = get_provider("local").settle(Settings(provider="local"), model=None, base_url=None, api_key=None)
    s = for_model(s)
    assert s.max_output_tokens == 1_024 and s.max_input_tokens == 3_072


def test_choosing_local_leaves_the_environment_alone(monkeypatch):
    monkeypatch.delenv("NAVER_RESULT_MAX_CHARS", raising=False)
    before = dict(os.environ)
    s = choose_provider(Settings(api_key=None), provider_name(None, clova_key=None), auto=True)
    assert s.provider == "local" and s.provider_auto and s.model == get_provider("local").model
    assert dict(os.environ) == before


def test_base_url_is_only_for_openai():
    with pytest.raises(ConfigError) as e:
        choose_provider(Settings(), "local", base_url="http://127.0.0.1:1/v1")
    assert e.value.key == "base_url_openai_only"


def test_the_bundled_server_gets_the_local_result_cap_in_its_own_env(monkeypatch):
    monkeypatch.delenv("NAVER_RESULT_MAX_CHARS", raising=False)
    spec = server_specs(Settings(provider="local"))[0]
    assert spec.bundled and spec.env["NAVER_RESULT_MAX_CHARS"] == str(TOOL_RESULT_CHARS)
    assert "NAVER_RESULT_MAX_CHARS" not in os.environ
    assert "NAVER_RESULT_MAX_CHARS" not in server_specs(Settings(provider="clova"))[0].env


def test_a_user_result_cap_wins(monkeypatch):
    monkeypatch.setenv("NAVER_RESULT_MAX_CHARS", "999")
    assert bundled_spec(result_chars=TOOL_RESULT_CHARS, env=os.environ).env["NAVER_RESULT_MAX_CHARS"] == "999"


def test_resolve_settles_the_local_budget_from_the_provider(monkeypatch):
    for name in ("CLOVA_STUDIO_API_KEY", "CLOVASTUDIO_API_KEY", "MCP_CHAT_PROVIDER", "MAX_INPUT_TOKENS"):
        monkeypatch.delenv(name, raising=False)
    p = argparse.ArgumentParser()
    add_chat_options(p)
    s = resolve(p.parse_args(["--provider", "local"]))
    assert (s.provider, s.max_input_tokens, s.memory_budget) == ("local", 3_072, 300)


def test_config_imports_nothing_from_the_package():
    tree = ast.parse((ROOT / "client/core/config.py").read_text(encoding="utf-8"))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0]
    relative = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0]
    assert not relative and not [m for m in names if m == "client" or m.startswith("client.")]


def test_importing_config_loads_no_other_client_module():
    code = "import sys, client.core.config; print(sorted(m for m in sys.modules if m.startswith('client')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['client', 'client.core', 'client.core.config']"


def test_one_retry_loop_shrinks_once_on_a_context_fault_then_gives_up():
    import httpx
    import openai

    def too_long() -> openai.BadRequestError:
        resp = httpx.Response(400, request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions"))
        return openai.BadRequestError("maximum context length exceeded", response=resp, body=None)

    calls, shrunk, waits = [], [], []

    async def call() -> str:
        calls.append(1)
        raise too_long()

    with pytest.raises(openai.BadRequestError):
        asyncio.run(with_retries(call, on_retry=lambda *a: waits.append(a), on_context=lambda: shrunk.append(1)))
    assert len(calls) == 2 and shrunk == [1] and waits == []  # shrunk once, then final; never waited
    assert MAX_TRIES >= 2
