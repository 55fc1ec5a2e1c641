"""mcp-chat through the shipped nginx config with a bearer token from an mcpServers entry's
`headers`: the search works, and the token shows nowhere (output, --debug, errors, export, db)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import thread_id_of
from tests.deploy.stack import NGINX_PORT, TOKEN, Stack

pytestmark = [pytest.mark.sqlite_only, pytest.mark.timeout(180)]


def _config(tmp_path: Path, name: str, headers: dict[str, str]) -> str:
    path = tmp_path / name
    entry = {"url": f"http://127.0.0.1:{NGINX_PORT}/mcp", "headers": headers}
    path.write_text(json.dumps({"mcpServers": {"search": entry}}), encoding="utf-8")
    return str(path)


def _tool_messages(llm) -> list[str]:
    return [m["content"] for q in llm.chat_requests() for m in q["messages"] if m["role"] == "tool"]


def test_token_in_headers_reaches_the_server_and_is_never_shown(chat, llm, stack: Stack, tmp_path):
    config = _config(tmp_path, "mcp.json", {"Authorization": "Bearer ${SEARCH_TOKEN}"})
    r = chat("--new", "--mcp-config", config, "--require-tools", "--no-memory", "--debug",
             input="서울 검색\n/servers\n", env={"SEARCH_TOKEN": TOKEN})
    assert r.code == 0, r.err
    tool = _tool_messages(llm)
    assert len(tool) == 1 and "서울" in tool[0] and '"items"' in tool[0], tool  # answered through nginx
    assert "Authorization=***" in r.out  # /servers: command output, on stdout
    tid = thread_id_of(r.err)  # the session id line is a status line: stderr when piped
    exports = [chat.sub("export", tid, "--format", fmt) for fmt in ("md", "json")]
    assert all(e.code == 0 for e in exports)
    assert TOKEN not in r.out + r.err + "".join(e.out + e.err for e in exports)
    assert TOKEN.encode() not in Path(chat.db).read_bytes()


def test_wrong_token_is_one_clear_error_without_the_token(chat, llm, stack: Stack, tmp_path):
    wrong = "tok-wrong-value-31337"
    config = _config(tmp_path, "bad.json", {"Authorization": f"Bearer {wrong}"})
    for extra in ((), ("--debug",)):
        r = chat("--new", "--mcp-config", config, "--no-memory", *extra, input="서울 검색\n/servers\n")
        assert wrong not in r.out + r.err, r.err
        assert "search" in r.err and "401" in r.err, r.err  # the entry's name and why
    assert all(len(s.requests) == 0 for s in stack.stubs.values())


def test_a_literal_bearer_token_is_masked_alone_too():
    from client.engine.mcp.specs import parse_entry

    spec = parse_entry("s", {"url": "http://127.0.0.1:8080/mcp", "headers": {"Authorization": "Bearer tok-lit-777"}}, "p")
    assert spec.redact("HTTP 401 for tok-lit-777") == "HTTP 401 for ***"
    assert "tok-lit-777" not in spec.shown
