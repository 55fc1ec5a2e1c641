"""Keys never reach the database, exports, logs, debug output or error text."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.backends import contains, is_pg
from tests.conftest import TEST_KEY
from tests.server.helpers import server_env, start_http_server, stop_process

pytestmark = pytest.mark.storage  # what reaches the database: both backends


@pytest.mark.bundled_search  # the Naver credentials reach the bundled server through the client's env
def test_no_secret_in_any_file_or_output(chat, llm, naver, tmp_path):
    naver.client_secret = "naver-secret-XYZ-987"
    naver.client_id = "naver-id-ABC-123"
    env = {"NAVER_CLIENT_ID": naver.client_id, "NAVER_CLIENT_SECRET": naver.client_secret}
    outputs = []
    r = chat("--thread", "sec", "--debug", input="서울 검색\n/export out.md\n/export out.json\n", env=env)
    outputs += [r.out, r.err]
    llm.push({"status": 500, "body": {"error": {"message": f"echo {TEST_KEY}"}}})  # a provider echoing the key
    llm.push({"status": 500, "body": {"error": {"message": f"echo {TEST_KEY}"}}})
    llm.push({"status": 500, "body": {"error": {"message": f"echo {TEST_KEY}"}}})
    r = chat("--thread", "sec", "--debug", input="또\n", env=env)
    outputs += [r.out, r.err]
    for sub in (("export", "sec"), ("export", "sec", "--format", "json"), ("threads",)):
        res = chat.sub(*sub)
        outputs += [res.out, res.err]
    secrets = [TEST_KEY, naver.client_secret, naver.client_id]
    for text in outputs:
        for s in secrets:
            assert s not in text
    produced = [p for p in Path(chat.tmp).rglob("*") if p.is_file()]
    assert any(p.name == "out.json" for p in produced)
    for p in produced:
        blob = p.read_bytes()
        for s in secrets:
            assert s.encode() not in blob, p
    assert naver.requests and naver.requests[0]["headers"]["x-naver-client-secret"] == naver.client_secret


def test_no_secret_in_the_database_on_either_backend(chat, llm, naver, tmp_path):
    """Every secret the client handles (model key, Naver id/secret, an MCP header token, the
    database password) stays out of the database's rows, the files and every output."""
    token = "hdr-token-QRS-654"
    naver.client_secret = "naver-secret-XYZ-987"
    naver.client_id = "naver-id-ABC-123"
    env = server_env(naver, MCP_SEARCH_TOKEN=token)
    with open(tmp_path / "server.log", "w") as log:
        proc, port = start_http_server(env, tmp_path, log)
    try:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"search": {
            "url": f"http://127.0.0.1:{port}/mcp", "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}}}}))
        outputs = []
        r = chat("--thread", "sec2", "--debug", "--mcp-config", str(config), "--require-tools",
                 input="서울 검색\n/export out.json\n", env={"SEARCH_TOKEN": token})
        assert r.code == 0, r.err
        outputs += [r.out, r.err]
    finally:
        stop_process(proc)
    assert naver.requests, "the search server was not reached with the token"
    assert "서울" in [m for m in llm.chat_requests()[-1]["messages"] if m["role"] == "tool"][0]["content"]
    for sub in (("export", "sec2"), ("export", "sec2", "--format", "json"), ("threads",)):
        res = chat.sub(*sub)
        outputs += [res.out, res.err]
    secrets = [TEST_KEY, naver.client_secret, naver.client_id, token]
    if is_pg(chat.db):
        password = urlsplit(chat.db).password
        assert password
        secrets.append(password)
    assert contains(chat.db, "서울 검색")  # the probe finds what is stored...
    for s in secrets:
        assert not contains(chat.db, s), s  # ...and none of the secrets, in any table or column
        for text in outputs:
            assert s not in text
        for p in Path(chat.tmp).rglob("*"):
            if p.is_file() and p.name != "mcp.json" and p.name != "server.log":
                assert s.encode() not in p.read_bytes(), (s, p)
