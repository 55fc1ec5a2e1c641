"""Who may call the HTTP server and which Host it answers: --allowed-hosts/--allowed-origins
(DNS-rebinding protection), --auth-token (bearer, rotation), GET /healthz, the access log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp.types import LATEST_PROTOCOL_VERSION

from server.gate import BearerAuth, describe_security, split_list, transport_security
from tests.server.helpers import reported_port, server_env, stop_process

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def test_lists_from_options_and_env():
    assert split_list(None) == []
    assert split_list("a, b,,a") == ["a", "b"]
    assert split_list(["x", "y,z"]) == ["x", "y", "z"]


def test_transport_security_keeps_loopback_and_adds_the_named():
    assert transport_security("127.0.0.1", [], []) is None  # FastMCP's default: loopback only
    s = transport_security("127.0.0.1", ["mcp.internal:*"], ["https://app.example"])
    assert s is not None and s.enable_dns_rebinding_protection
    assert s.allowed_hosts == ["127.0.0.1:*", "localhost:*", "[::1]:*", "mcp.internal:*"]
    assert "https://app.example" in s.allowed_origins and "http://localhost:*" in s.allowed_origins


def test_start_up_lines_say_what_a_wide_bind_does():
    wide = " ".join(describe_security("0.0.0.0", [], [], 0))
    assert "protection is OFF" in wide and "--allowed-hosts" in wide and "no --auth-token" in wide
    narrow = " ".join(describe_security("0.0.0.0", ["mcp.internal:*"], [], 2))
    assert "mcp.internal:*" in narrow and "OFF" not in narrow and "2 token(s)" in narrow
    assert "only loopback" in " ".join(describe_security("127.0.0.1", [], [], 0))


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        (None, "missing token"),
        (b"Bearer", "not a bearer token"),
        (b"Basic dTpw", "not a bearer token"),
        (b"Bearer tok-0ld", None),
        (b"bearer tok-n3w", None),
        (b"Bearer tok-n3", "wrong token"),
        (b"Bearer tok-n3w-and-more", "wrong token"),
    ],
)
def test_bearer_check(header, reason):
    auth = BearerAuth(None, ["tok-n3w", "tok-0ld"])
    headers = [(b"authorization", header)] if header is not None else [(b"host", b"x")]
    assert auth.check(headers) == reason


def _serve(tmp_path: Path, host: str, *args: str, **env: str) -> tuple[subprocess.Popen, int, Path]:
    log = tmp_path / f"server-{len(list(tmp_path.glob('server-*.log')))}.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "server", "--host", host, "--port", "0", *args],
                                env=server_env(None, **env), cwd=tmp_path, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=out)
    try:
        return proc, reported_port(log, proc), log
    except BaseException:
        stop_process(proc)
        raise


def _post(host: str, port: int, **headers: str) -> httpx.Response:
    return httpx.post(f"http://{host}:{port}/mcp", json=INIT, headers={**HEADERS, **headers}, timeout=10)


def test_default_loopback_bind_refuses_foreign_hosts(tmp_path):
    proc, port, _ = _serve(tmp_path, "127.0.0.1")
    try:
        assert _post("127.0.0.1", port, Host="evil.example:80").status_code == 421
        assert _post("127.0.0.1", port, Origin="http://evil.example").status_code == 403
        assert _post("127.0.0.1", port).status_code == 200
    finally:
        stop_process(proc)


def test_allowed_hosts_and_origins_from_env(tmp_path):
    proc, port, _ = _serve(tmp_path, "127.0.0.1", MCP_ALLOWED_HOSTS="mcp.internal:8080,other:*",
                           MCP_ALLOWED_ORIGINS="https://app.example")
    try:
        assert _post("127.0.0.1", port, Host="mcp.internal:8080").status_code == 200
        assert _post("127.0.0.1", port, Host="other:9").status_code == 200
        assert _post("127.0.0.1", port, Host="mcp.internal:9999").status_code == 421
        assert _post("127.0.0.1", port, Origin="https://app.example").status_code == 200
        assert _post("127.0.0.1", port, Origin="https://evil.example").status_code == 403
    finally:
        stop_process(proc)


def test_non_loopback_bind_without_options_says_so_at_start(tmp_path):
    # 127.0.0.2 is not one of the names FastMCP treats as loopback: the same as 0.0.0.0 for it,
    # without listening beyond this machine.
    proc, port, log = _serve(tmp_path, "127.0.0.2")
    try:
        text = log.read_text()
        assert "WARNING server: bound to 127.0.0.2 without --allowed-hosts: DNS-rebinding protection is OFF" in text
        assert "WARNING server: no --auth-token" in text
        assert _post("127.0.0.2", port, Host="anything:1").status_code == 200  # as announced
    finally:
        stop_process(proc)


def test_token_health_and_access_log(tmp_path):
    proc, port, log = _serve(tmp_path, "127.0.0.1", "--auth-token", "tok-first-1111",
                             "--auth-token", "tok-second-2222")
    try:
        health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10)
        assert health.status_code == 200 and health.text == "ok\n"
        refused = _post("127.0.0.1", port, Authorization="Bearer tok-guess-3333")
        assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer ")
        assert _post("127.0.0.1", port, Authorization="Bearer tok-second-2222").status_code == 200
        assert _post("127.0.0.1", port, Authorization="Bearer tok-first-1111").status_code == 200
    finally:
        stop_process(proc)
    text = log.read_text()
    access = [line for line in text.splitlines() if " server.access: " in line]
    assert len(access) == 4, access  # one line per request
    assert " INFO server.access: GET /healthz 200 " in access[0]
    assert " WARNING server.access: POST /mcp 401 " in access[1] and access[1].endswith("(wrong token)")
    assert all(" INFO server.access: POST /mcp 200 " in line for line in access[2:])
    assert "tok-" not in text
