"""Server processes with their own configuration: credentials, .env, stdio purity, binding, signals."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.types import LATEST_PROTOCOL_VERSION

from tests.server.helpers import (
    CLIENT_ID,
    trust_folder,
    CLIENT_SECRET,
    free_port,
    server_env,
    start_http_server,
    stdio_session,
    stop_process,
)
from tests.stubs.naver_stub import NaverStub

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _error(result: Any) -> str:
    assert result.isError is True, result.content
    return result.content[0].text


def test_missing_credentials_name_the_env_vars(naver_stub: NaverStub, tmp_path: Path) -> None:
    env = server_env(None, NAVER_API_BASE_URL=naver_stub.base_url)
    with open(tmp_path / "err.log", "w") as log:
        session = stdio_session(env, tmp_path, log)
        try:
            for _ in range(2):  # the session keeps answering
                text = _error(session.call("web_search", {"query": "자격 증명"}))
                assert "NAVER_CLIENT_ID" in text and "NAVER_CLIENT_SECRET" in text and "credentials missing" in text
            assert "검색어" in _error(session.call("web_search", {"query": " "}))  # validation still first
        finally:
            session.close()
    assert naver_stub.requests == []
    assert "Traceback" not in (tmp_path / "err.log").read_text()


def test_connection_error(tmp_path: Path) -> None:
    env = server_env(None, NAVER_API_BASE_URL=f"http://127.0.0.1:{free_port()}",
                     NAVER_CLIENT_ID=CLIENT_ID, NAVER_CLIENT_SECRET=CLIENT_SECRET)
    with open(tmp_path / "err.log", "w") as log:
        session = stdio_session(env, tmp_path, log)
        try:
            for _ in range(2):
                text = _error(session.call("news_search", {"query": "연결"}))
                assert "연결할 수 없습니다" in text and "connection failed" in text
                assert CLIENT_SECRET not in text and CLIENT_ID not in text
        finally:
            session.close()


def test_dotenv_is_read_and_real_env_wins(naver_stub: NaverStub, tmp_path: Path) -> None:
    """In a folder the user trusted (tests/server/test_env_file.py: an untrusted one is not read)."""
    (tmp_path / ".env").write_text(
        f"NAVER_CLIENT_ID={CLIENT_ID}\nNAVER_CLIENT_SECRET=wrong-secret-in-dotenv\n"
        f"NAVER_API_BASE_URL={naver_stub.base_url}\nNAVER_RESULT_MAX_CHARS=1000\n",
        encoding="utf-8",
    )
    env = server_env(None, NAVER_CLIENT_SECRET=CLIENT_SECRET, **trust_folder(tmp_path))  # the real variable must win
    naver_stub.set_mode("huge", count=20, item_chars=300)
    with open(tmp_path / "err.log", "w") as log:
        session = stdio_session(env, tmp_path, log)
        try:
            result = session.call("web_search", {"query": "환경 파일", "display": 20})
        finally:
            session.close()
    assert result.isError is False, result.content
    text = result.content[0].text
    assert len(text) <= 1000 and json.loads(text)["truncated"] is True
    assert naver_stub.requests[0]["headers"]["x-naver-client-id"] == CLIENT_ID
    assert naver_stub.requests[0]["headers"]["x-naver-client-secret"] == CLIENT_SECRET


def test_no_env_file_leaves_the_folder_env_unread(naver_stub: NaverStub, tmp_path: Path) -> None:
    """How the client spawns the bundled server: a .env in the working folder is not its configuration."""
    (tmp_path / ".env").write_text(
        f"NAVER_CLIENT_ID={CLIENT_ID}\nNAVER_CLIENT_SECRET={CLIENT_SECRET}\nNAVER_API_BASE_URL={naver_stub.base_url}\n",
        encoding="utf-8",
    )
    with open(tmp_path / "err.log", "w") as log:
        session = stdio_session(server_env(None), tmp_path, log, "--no-env-file")
        try:
            result = session.call("web_search", {"query": "환경 파일"})
        finally:
            session.close()
    assert result.isError is True  # no credentials: the folder's were not read
    assert naver_stub.requests == []


def test_stdio_stdout_carries_only_protocol(naver_stub: NaverStub, tmp_path: Path) -> None:
    calls = [
        INIT,
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "web_search", "arguments": {"query": "로그"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "web_search", "arguments": {"query": ""}}},
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--transport", "stdio", "--log-level", "debug"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env(naver_stub), cwd=tmp_path,
        bufsize=0,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in calls).encode())
        proc.stdin.flush()
        messages = []  # every stdout line must be JSON-RPC
        pending = b""
        # raw reads from the descriptor: select() knows nothing of a file object's buffer, so after a
        # readline() that pulled two answers in at once (ids 3 and 4 can arrive together on a busy
        # machine) it would wait for bytes already read
        while len([m for m in messages if "id" in m]) < 4:
            ready, _, _ = select.select([proc.stdout], [], [], 60)  # a bound, not a speed limit
            assert ready, f"no answer; got {messages}"
            chunk = os.read(proc.stdout.fileno(), 65536)
            assert chunk, "server closed stdout early"
            *lines, pending = (pending + chunk).split(b"\n")
            messages.extend(json.loads(line) for line in lines)
        rest, stderr_bytes = proc.communicate(timeout=15)  # closes stdin: EOF ends the server
    finally:
        stop_process(proc)
    assert proc.returncode == 0 and pending + rest == b""  # nothing after the four answers
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert set(by_id) == {1, 2, 3, 4}
    assert by_id[3]["result"]["isError"] is False and by_id[4]["result"]["isError"] is True
    stderr = stderr_bytes.decode()
    assert "DEBUG" in stderr  # the logs went to stderr
    assert "Traceback" not in stderr and CLIENT_SECRET not in stderr


def test_stdio_ctrl_c_exits_quietly(naver_stub: NaverStub, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--transport", "stdio"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env(naver_stub), cwd=tmp_path,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(INIT) + "\n").encode())
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 20)
        assert ready and json.loads(proc.stdout.readline())["id"] == 1
        proc.send_signal(signal.SIGINT)
        proc.wait(15)  # stdin stays open: only the signal can end it
        assert proc.stderr is not None
        stderr = proc.stderr.read()
    finally:
        stop_process(proc)
    assert proc.returncode == 0
    assert b"Traceback" not in stderr and b"KeyboardInterrupt" not in stderr


def _listeners(port: int) -> list[tuple[str, str]]:
    """(table, local address hex) of sockets listening on `port`, from /proc/net/tcp{,6}."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if int(port_hex, 16) == port and fields[3] == "0A":  # 0A = LISTEN
                found.append((table, address))
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc/net/tcp")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_http_binds_loopback_by_default_and_stops_quietly(
    naver_stub: NaverStub, tmp_path: Path, sig: signal.Signals
) -> None:
    log_path = tmp_path / "server.log"
    with open(log_path, "w") as log:
        proc, port = start_http_server(server_env(naver_stub), tmp_path, log)  # no --host
        try:
            assert _listeners(port) == [("/proc/net/tcp", "0100007F")]  # 127.0.0.1 only
            proc.send_signal(sig)
            proc.wait(15)
        finally:
            stop_process(proc)
    assert proc.returncode == 0
    text = log_path.read_text()
    assert "Naver search MCP server on http://127.0.0.1:" in text  # loopback, as announced
    assert f"running on http://127.0.0.1:{port} " in text  # the port it chose (--port 0)
    assert "Traceback" not in text and "KeyboardInterrupt" not in text


def test_stateless_flag_answers_plain_json_without_a_session(naver_stub: NaverStub, tmp_path: Path) -> None:
    with open(tmp_path / "server.log", "w") as log:
        proc, port = start_http_server(server_env(naver_stub), tmp_path, log, "--stateless")
        try:
            headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
            url = f"http://127.0.0.1:{port}/mcp"
            with httpx.Client(timeout=10) as client:
                init = client.post(url, json=INIT, headers=headers)
                assert init.status_code == 200
                assert init.headers["content-type"].startswith("application/json")  # json_response=True
                assert "mcp-session-id" not in init.headers  # stateless_http=True
                call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "blog_search", "arguments": {"query": "무상태"}}}
                result = client.post(url, json=call, headers=headers).json()["result"]
        finally:
            stop_process(proc)
    assert result["isError"] is False
    assert json.loads(result["content"][0]["text"])["items"][0]["title"] == "무상태 관련 블로그 1"


def test_a_dotenv_that_is_not_utf8_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"NAVER_CLIENT_ID=\xff\xfe\n")
    p = subprocess.run([sys.executable, "-m", "server", "--transport", "stdio"], env=server_env(None, **trust_folder(tmp_path)),
                       cwd=tmp_path,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [p.stderr.strip()], p.stderr  # one line, no traceback
    assert "not UTF-8" in p.stderr and "--no-env-file" in p.stderr
    assert p.stdout == ""  # nothing on the protocol stream
