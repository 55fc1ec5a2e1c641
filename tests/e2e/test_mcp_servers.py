"""Several MCP servers at once: one dies, names collide, config entries are broken.

The command line in this process (tests/cli.py), but for the server killed mid-session (a client
process we talk to between turns); our search server (stdio) and server-everything (HTTP or
stdio) side by side, the recording model stub; see test_mcp_everything.py.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ChatRunner
from tests.e2e.test_mcp_everything import (  # noqa: F401 - fixtures
    assert_tool_pairs,
    call_line,
    everything_http,
    everything_js,
    tool_results,
    write_config,
)
from tests.waits import HANG

pytestmark = pytest.mark.sqlite_only  # MCP behaviour does not depend on the storage backend
ECHO = call_line("echo", {"message": "살아있음"})


class Live:
    """The client driven one line at a time, to act between turns. Reads stdout and stderr
    as one stream, as a terminal shows them (in a pipe status and tool lines go to stderr)."""

    def __init__(self, chat: ChatRunner, *args: str) -> None:
        argv = [sys.executable, "-m", "client", "--db", chat.db, *args]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  cwd=chat.tmp, env=chat.env)
        self.lines: queue.Queue[str] = queue.Queue()
        self.out: list[str] = []
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def _pump(self) -> None:
        assert self.p.stdout is not None
        for raw in self.p.stdout:
            self.lines.put(raw.decode(errors="replace"))

    def wait_for(self, text: str, timeout: float = HANG) -> list[str]:
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            got.append(line)
            self.out.append(line)
            if text in line:
                return got
        raise AssertionError(f"no {text!r} in output:\n{''.join(self.out)}")

    def turn(self, line: str) -> str:
        """Send one line and return its output up to the status line."""
        assert self.p.stdin is not None
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()
        return "".join(self.wait_for("[상태]"))

    def command(self, line: str, last: str) -> str:
        assert self.p.stdin is not None
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()
        return "".join(self.wait_for(last))

    def close(self) -> tuple[int, str]:
        assert self.p.stdin is not None
        self.p.stdin.close()
        code = self.p.wait(timeout=60)
        self.pump.join(timeout=10)  # read to EOF
        while not self.lines.empty():
            self.out.append(self.lines.get_nowait())
        return code, "".join(self.out)


def test_one_server_killed_others_keep_working_then_it_comes_back(chat, llm, naver, everything_http, tmp_path):
    config = write_config(tmp_path, {"everything": {"url": everything_http.url}})
    live = Live(chat, "--new", "--mcp-config", config, "--with-search", "--context", "none", "--no-memory")
    try:
        live.wait_for("현재 세션 ID:")
        assert "Echo: 살아있음" in live.turn(ECHO)
        everything_http.kill()
        out = live.turn(ECHO)  # the call fails as a tool error; the turn completes
        assert "[도구 오류]: MCP server 'everything' is unreachable" in out
        out = live.turn("서울 날씨 검색")  # the other server's tools keep working
        assert "[도구 선택]: web_search" in out and "[도구 오류]" not in out
        out = live.command("/servers", "everything:")
        assert "everything: 끊김" in out
        everything_http.start()  # same port: a call after the reconnect back-off reconnects
        retries_left = 50
        while "Echo: 살아있음" not in (out := live.turn(ECHO)):
            assert "is unreachable" in out, out  # still within the back-off: a tool error again
            retries_left -= 1
            assert retries_left, "the server was not reconnected"
        assert "재연결" in live.command("/servers", "everything:")
    finally:
        code, err = live.close()
    assert code == 0, err
    assert "Traceback" not in err
    reqs = llm.chat_requests()
    results = tool_results(reqs)
    assert results["echo"][0].startswith("Echo: 살아있음")
    assert all("is unreachable" in r for r in results["echo"][1:-1])
    assert results["echo"][-1].startswith("Echo: 살아있음")
    assert "서울 날씨" in results["web_search"][0]
    assert naver.requests
    for req in reqs:
        assert_tool_pairs(req)
    gone = [m for q in reqs for m in q["messages"] if m["role"] == "tool" and "is unreachable" in m["content"]]
    assert gone  # the dead server's call reached the model as a tool result


def test_colliding_tool_names_are_prefixed_by_server(cli, llm, everything_js, everything_http, tmp_path):
    config = write_config(tmp_path, {
        "local": {"command": "node", "args": [everything_js, "stdio"]},
        "remote": {"url": everything_http.url},
    })
    lines = [call_line("local_echo", {"message": "from-local"}), call_line("remote_get-sum", {"a": 2, "b": 3}), "/tools"]
    r = cli("--new", "--mcp-config", config, "--context", "none", "--no-memory", input="\n".join(lines) + "\n")
    assert r.code == 0, r.err
    names = {t["function"]["name"] for t in llm.chat_requests()[0]["tools"]}
    assert {"local_echo", "remote_echo", "local_get-sum", "remote_get-sum"} <= names
    assert "echo" not in names
    results = tool_results(llm.chat_requests())
    assert results["local_echo"] == ["Echo: from-local"]
    assert "The sum of 2 and 3 is 5." in results["remote_get-sum"][0]
    assert "  local_echo (echo): Echoes back the input string" in r.out


def test_server_urls_repeatable_and_mcp_config_from_env(cli, llm, everything_http, tmp_path):
    r = cli("--new", "--server-url", everything_http.url, "--no-memory", input=call_line("echo", {"message": "u"}) + "\n")
    assert r.code == 0, r.err
    assert tool_results(llm.chat_requests())["echo"] == ["Echo: u"]
    llm.clear()
    config = write_config(tmp_path, {"ev": {"url": everything_http.url}})
    r = cli("--new", "--no-memory", input="/servers\n", env={"MCP_CONFIG": config})
    assert r.code == 0, r.err
    assert "ev: 연결됨 · http " + everything_http.url in r.out
    assert "search:" not in r.out  # configured servers replace the bundled default


def test_broken_entries_reported_by_name_others_still_serve(cli, llm, naver, tmp_path):
    config = write_config(tmp_path, {
        "nocmd": {"command": str(tmp_path / "no-such-server")},
        "deadurl": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
    })
    secret = "tok-never-printed-1234"
    r = cli("--new", "--mcp-config", config, "--with-search", "--no-memory", input="서울 검색\n/servers\n",
             env={"TOKEN": secret})
    assert r.code == 0, r.err
    err = [line for line in r.err.splitlines() if "연결하지 못했습니다" in line]  # one line per broken entry
    assert len(err) == 2, r.err
    assert "'nocmd'" in err[0] and "no-such-server" in err[0]
    assert "'deadurl'" in err[1] and "http://127.0.0.1:9/mcp" in err[1]
    assert "[도구 응답]:" in r.err and naver.requests  # the bundled server's tools work
    assert "deadurl: 연결 실패" in r.out and "Authorization=***" in r.out
    assert secret not in r.out + r.err
    assert "Traceback" not in r.err


def test_invalid_config_files_exit_2_naming_the_entry(cli, llm, tmp_path):
    cases = {
        "invalid.json": ('{"mcpServers": {"a": {"command": "x",}}}', ["invalid.json", "1행"]),
        "badurl.json": (json.dumps({"mcpServers": {"ok": {"command": "x"}, "web": {"url": "localhost:3001/mcp"}}}),
                        ["'web'", "localhost:3001/mcp"]),
        "novar.json": (json.dumps({"mcpServers": {"svc": {"command": "x", "env": {"K": "${UNSET_VAR_XYZ}"}}}}),
                       ["'svc'", "UNSET_VAR_XYZ"]),
        "shape.json": (json.dumps({"servers_list": []}), ["mcpServers"]),
    }
    for name, (text, words) in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        r = cli("--new", "--mcp-config", str(path), input="안녕\n")
        assert r.code == 2, (name, r.out, r.err)
        lines = r.err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.err, (name, r.err)
        for w in words:
            assert w in lines[0], (name, lines[0])
    r = cli("--new", "--mcp-config", str(tmp_path / "missing.json"), input="안녕\n")
    assert r.code == 2 and "missing.json" in r.error_line()
    assert llm.requests == []  # nothing was sent anywhere
    assert not Path(cli.db).exists()  # refused before the database was opened
