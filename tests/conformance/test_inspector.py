"""The official MCP Inspector (its CLI mode, pinned in scripts/conformance) against the search
server: a third-party 2025-era client, over streamable HTTP and stdio, lists and calls our tools."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.server.helpers import server_env, start_http_server, stop_process
from tests.stubs.naver_stub import NaverStub

pytestmark = pytest.mark.sqlite_only


def _inspect(inspector: list[str], target: list[str], *args: str, env: dict[str, str], cwd) -> dict:
    sep = [] if "--" in target else ["--"]
    p = subprocess.run([*inspector, *args, *sep, *target], capture_output=True, text=True, timeout=120, cwd=cwd,
                       env={**os.environ, "HOME": str(cwd), **env})
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout)


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_the_inspector_lists_and_calls_our_tools(inspector, tmp_path, transport):
    with NaverStub() as stub:
        env = {**server_env(stub), "PYTHONPATH": str(ROOT)}
        proc = None
        if transport == "http":
            log = (tmp_path / "server.log").open("w")
            proc, port = start_http_server(env, tmp_path, log)
            target = [f"http://127.0.0.1:{port}/mcp"]
        else:  # the Inspector gives a stdio server only the variables it is told to (-e)
            target = [*(a for k in ("NAVER_API_BASE_URL", "NAVER_CLIENT_ID", "NAVER_CLIENT_SECRET", "PYTHONPATH")
                        for a in ("-e", f"{k}={env[k]}")), "--", sys.executable, "-m", "server", "--transport", "stdio"]
        try:
            tools = _inspect(inspector, target, "--method", "tools/list", env=env, cwd=tmp_path)
            assert [t["name"] for t in tools["tools"]] == ["web_search", "news_search", "blog_search"]
            result = _inspect(inspector, target, "--method", "tools/call", "--tool-name", "news_search",
                              "--tool-arg", "query=서울 날씨", env=env, cwd=tmp_path)
            assert not result.get("isError")
            assert "서울 날씨" in json.loads(result["content"][0]["text"])["query"]
            assert stub.requests[-1]["kind"] == "news" and stub.requests[-1]["params"]["query"] == "서울 날씨"
        finally:
            if proc is not None:
                stop_process(proc)
