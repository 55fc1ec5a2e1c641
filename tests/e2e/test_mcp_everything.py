"""The client against the reference MCP server `@modelcontextprotocol/server-everything`.

Pinned in scripts/everything/package-lock.json, installed into tests/.npm by
scripts/install_everything.sh (skipped only when npm is missing). Every tool
is called once through the stub model, over streamable HTTP and over stdio;
assertions are on what the model endpoint received next.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import ROOT, TEST_KEY

pytestmark = pytest.mark.sqlite_only  # MCP behaviour does not depend on the storage backend
SECRET = "ev-SECRET-value-789"
# tool -> (arguments, texts its result must carry to the model)
CALLS: dict[str, tuple[dict, list[str]]] = {
    "echo": ({"message": "hello-echo-42"}, ["Echo: hello-echo-42"]),
    "get-sum": ({"a": 17, "b": 25}, ["42"]),
    "get-annotated-message": ({"messageType": "error", "includeImage": True},
                              ["Error: Operation failed", "[image: image/png"]),
    "get-env": ({}, ["EV_TOKEN", "***"]),
    "get-resource-links": ({"count": 2}, ["[resource link: ", "<demo://resource/dynamic/"]),
    "get-resource-reference": ({"resourceType": "Blob", "resourceId": 2}, ["demo://resource/dynamic/blob/2"]),
    "get-structured-content": ({"location": "Chicago"}, ['"temperature"', '"humidity"']),
    "get-tiny-image": ({}, ["[image: image/png", "MCP logo"]),
    "gzip-file-as-resource": ({"name": "t.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resource"},
                              ["demo://resource/session/t.gz", "application/gzip", "binary"]),
    "toggle-simulated-logging": ({}, ["logging"]),
    "toggle-subscriber-updates": ({}, ["updates"]),
    "trigger-long-running-operation": ({"duration": 1, "steps": 3}, ["Long running operation completed"]),
    "simulate-research-query": ({"topic": "quantum"}, ["Research Report: quantum"]),
}
# Registered only because mcp-chat declares elicitation, sampling and roots; tested in test_mcp_features.py.
FEATURE_TOOLS = {"trigger-elicitation-request", "trigger-sampling-request", "trigger-url-elicitation", "get-roots-list"}


# -- shared with test_mcp_servers.py -------------------------------------------
@pytest.fixture(scope="session")
def everything_js() -> str:
    """Path of server-everything's entry script (installed once, reused)."""
    if shutil.which("npm") is None:  # scripts/test.sh needs it: CI never skips these
        (pytest.fail if os.environ.get("CI") else pytest.skip)("npm is not installed")
    p = subprocess.run([str(ROOT / "scripts" / "install_everything.sh")], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip().splitlines()[-1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EverythingHTTP:
    """server-everything over streamable HTTP on a fixed port; can be killed and restarted."""

    def __init__(self, js: str) -> None:
        self.js, self.port = js, free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.proc: subprocess.Popen | None = None

    def start(self) -> "EverythingHTTP":
        env = {"PATH": os.environ.get("PATH", ""), "PORT": str(self.port)}
        self.proc = subprocess.Popen(["node", self.js, "streamableHttp"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                assert self.proc.poll() is None, "server-everything exited"
                time.sleep(0.1)
        raise AssertionError("server-everything did not listen")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def everything_http(everything_js: str) -> Iterator[EverythingHTTP]:
    server = EverythingHTTP(everything_js).start()
    yield server
    server.kill()


def write_config(tmp: Path, servers: dict) -> str:
    path = tmp / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return str(path)


def tool_results(reqs: list[dict]) -> dict[str, list[str]]:
    """Tool name -> contents of its tool messages, from the requests that carried them."""
    out: dict[str, list[str]] = {}
    seen: set[str] = set()
    for req in reqs:
        names = {c["id"]: c["function"]["name"] for m in req["messages"] for c in m.get("tool_calls") or []}
        for m in req["messages"]:
            if m["role"] == "tool" and m["tool_call_id"] not in seen:
                seen.add(m["tool_call_id"])
                out.setdefault(names[m["tool_call_id"]], []).append(m["content"])
    return out


def assert_tool_pairs(req: dict) -> None:
    """Every assistant message with tool_calls is followed by one tool message per call id."""
    msgs = req["messages"]
    for i, m in enumerate(msgs):
        if m["role"] == "assistant" and m.get("tool_calls"):
            ids = [c["id"] for c in m["tool_calls"]]
            after = msgs[i + 1 : i + 1 + len(ids)]
            assert [a["role"] for a in after] == ["tool"] * len(ids), req
            assert sorted(a["tool_call_id"] for a in after) == sorted(ids)


def call_line(tool: str, args: dict) -> str:
    return f"[tool:{tool} {json.dumps(args, ensure_ascii=False)}]"


# -- every tool, both transports -----------------------------------------------
# http in the main tier only (the fast tier keeps stdio; the transports have their own tests)
@pytest.mark.parametrize("transport", [pytest.param("http", marks=pytest.mark.slow), "stdio"])
def test_every_tool_of_server_everything(cli, llm, everything_js, everything_http, tmp_path, transport):
    if transport == "http":
        entry = {"url": everything_http.url, "headers": {"X-Test-Token": "${EV_TOKEN}"}}
    else:
        entry = {"command": "node", "args": [everything_js, "stdio"], "env": {"EV_TOKEN": "${EV_TOKEN}"}}
    config = write_config(tmp_path, {"everything": entry})
    lines = [call_line(tool, args) for tool, (args, _) in CALLS.items()] + ["/tools", "/servers"]
    r = cli("--new", "--mcp-config", config, "--context", "none", "--no-memory",
             "--yes",  # some of these tools are not read-only: no terminal here to ask
             input="\n".join(lines) + "\n", env={"EV_TOKEN": SECRET}, timeout=110)
    assert r.code == 0, r.err
    assert "Traceback" not in r.err and "ValueError" not in r.out + r.err
    reqs = llm.chat_requests()
    advertised = {t["function"]["name"] for t in reqs[0]["tools"]}
    assert advertised == set(CALLS) | FEATURE_TOOLS, "server-everything's tools changed: update CALLS for the pinned version"
    results = tool_results(reqs)
    for tool, (_, expected) in CALLS.items():
        assert len(results.get(tool, [])) == 1, (tool, results.get(tool))
        content = results[tool][0]
        assert isinstance(content, str) and content.strip(), tool
        for text in expected:
            if text == "EV_TOKEN" and transport == "http":
                continue  # over HTTP the server's environment is its own
            if text == "***" and transport == "http":
                continue
            assert text in content, (tool, text, content[:300])
    for req in reqs:
        assert_tool_pairs(req)
    assert len(reqs) == 2 * len(CALLS)  # each turn: the call, then the answer with its result
    # piped: no intermediate progress, one final line per long-running tool (on stderr)
    assert "[진행] trigger-long-running-operation: 완료 (3/3)" in r.err
    assert "[진행] simulate-research-query: 완료" in r.err
    assert "1/3" not in r.out + r.err
    assert "\x1b" not in r.out + r.err
    # /tools per server with descriptions, /servers with state; secrets never shown
    assert f"[everything] 연결됨 · 도구 {len(CALLS) + len(FEATURE_TOOLS)}개" in r.out
    assert "  echo: Echoes back the input string" in r.out
    assert "everything: 연결됨 · " + transport in r.out
    blob = r.out + r.err + "".join(json.dumps(q) for q in llm.requests)
    assert SECRET not in blob
    assert TEST_KEY not in blob  # our keys never reach a third-party server's environment
