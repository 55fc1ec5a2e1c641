"""`mcp-chat -p ... --output-format json` writes exactly one JSON object on stdout whatever ends the
run: the answer, a bad option, a bad variable, no key, a rejected key, a database or a session that
cannot be opened, a required MCP server that is down, a folder that cannot be written, a model
server that cannot be reached, answers late or fails, a message over the budget, Ctrl-C. Each
object has `error`, a stable `error_kind` and the run's `exit_code` (README, docs/terminal.md).
Before: with a rejected key stdout was empty, so `mcp-chat -p "q" --output-format json | jq .answer`
printed nothing. In this process (tests/cli.py) but for the signal."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path

import pytest

from tests.faults.conftest import wait_for
from tests.faults.files import unprivileged_ids

pytestmark = pytest.mark.sqlite_only  # what reaches stdout, not storage

JSON = ("--output-format", "json")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def outcome(r, kind: str | None, code: int) -> dict:
    """The one object of a run, checked: its kind and exit code are the run's; stderr has one line."""
    assert r.code == code, r.err
    lines = r.out.splitlines()
    assert len(lines) == 1, r.out
    doc = json.loads(lines[0])
    assert (doc["error_kind"], doc["exit_code"]) == (kind, code), doc
    assert {"answer", "thread_id", "tool_calls", "usage", "context", "error"} <= set(doc)
    if kind is None:
        assert doc["error"] is None
    else:
        assert doc["error"] and "\n" not in doc["error"]
        if kind != "interrupted":  # the same line on stderr, for a person
            assert doc["error"] in r.err.splitlines(), r.err
    return doc


def test_an_answer(cli, llm):
    doc = outcome(cli("-p", "안녕", *JSON, "--no-memory"), None, 0)
    assert doc["answer"] == "답변 1: 안녕"


@pytest.mark.parametrize("args,env,says", [
    (["--provder", "local"], {}, "--provider"),  # a typo: the option and the nearest one
    (["--max-turns", "-1"], {}, "--max-turns"),
    ([], {"MAX_TURNS_TO_KEEP": "many"}, "MAX_TURNS_TO_KEEP"),  # a variable
    ([], {"CLOVA_STUDIO_API_KEY": None, "MCP_CHAT_PROVIDER": "clova"}, "CLOVA_STUDIO_API_KEY"),  # no key
], ids=["typo", "option", "variable", "no-key"])
def test_a_configuration_error(cli, llm, args, env, says):
    doc = outcome(cli("-p", "안녕", *args, *JSON, env=env), "config", 2)
    assert says in doc["error"] and doc["answer"] == "" and doc["thread_id"] is None
    assert llm.requests == []


def test_a_rejected_key(cli, llm):
    llm.require_key = "another-key"
    doc = outcome(cli("-p", "안녕", *JSON), "auth", 2)
    assert "CLOVA_STUDIO_API_KEY" in doc["error"]


def test_a_database_that_is_not_one(cli, llm, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n")
    outcome(cli("-p", "안녕", "--db", str(notes), *JSON, db=False), "database", 1)
    assert notes.read_text() == "not a database\n"


def test_a_session_that_does_not_exist(cli, llm):
    doc = outcome(cli("-p", "안녕", "-r", "no-such-session", *JSON), "session", 1)
    assert "no-such-session" in doc["error"]


def test_a_required_server_that_is_down(cli, llm):
    url = f"http://127.0.0.1:{closed_port()}/mcp"
    doc = outcome(cli("-p", "안녕", "--require-tools", "--server-url", url, *JSON), "mcp", 1)
    assert url in doc["error"] and llm.chat_requests() == []


@pytest.mark.bundled_search  # the run's user cannot read the shared search server's config
def test_a_data_folder_that_cannot_be_written(cli, llm, tmp_path):
    ids, home = unprivileged_ids(tmp_path)
    share = home / ".local" / "share"
    share.mkdir(parents=True)
    share.chmod(0o555)  # the run's user cannot make mcp-chat/ in it
    try:
        r = cli("-p", "안녕", *JSON, env={"HOME": str(home)}, db=False, as_user=ids, cwd=home)
    finally:
        share.chmod(0o755)
    doc = outcome(r, "not_writable", 1)
    assert str(share / "mcp-chat") in doc["error"] and "XDG_DATA_HOME" in doc["error"]
    assert "요청" not in doc["error"]  # no request was made
    assert llm.requests == []


def test_a_model_server_that_is_not_there(cli, llm):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    doc = outcome(cli("-p", "안녕", *JSON, env={"CLOVA_STUDIO_BASE_URL": url}), "connection", 1)
    assert url in doc["error"] and "CLOVA_STUDIO_BASE_URL" in doc["error"]


def test_a_model_server_that_answers_late(cli, llm):
    llm.push(*[{"stall": 10, "text": "늦은 답"}] * 3)  # every try
    doc = outcome(cli("-p", "안녕", "--timeout", "0.5", *JSON), "timeout", 1)
    assert llm.base_url.rstrip("/") in doc["error"] and "--timeout" in doc["error"]


def test_a_model_server_that_fails(cli, llm):
    doc = outcome(cli("-p", "[fail:400] 안녕", *JSON), "model", 1)
    assert "HTTP 400" in doc["error"]


def test_a_message_over_the_budget(cli, llm):
    doc = outcome(cli("-p", "가" * 2_000, "--max-input-tokens", "100", *JSON), "refused", 1)
    assert llm.chat_requests() == []
    assert doc["thread_id"]


@pytest.mark.cold  # a signal to a process
def test_ctrl_c(chat, llm, live):
    lv = live("-p", "[slow:30] " + "가" * 100, *JSON)
    lv.p.stdin.close()  # -p PROMPT reads a piped stdin to its end as the message's body: nothing more comes
    wait_for(lambda: llm.chat_requests())  # the answer is on its way
    lv.p.send_signal(signal.SIGINT)
    code, out, err = lv.finish(timeout=60)
    assert code == 130, err
    doc = json.loads(out)
    assert (doc["error_kind"], doc["exit_code"]) == ("interrupted", 130)


def test_every_kind_is_documented():
    """The kinds the product writes are the ones docs/terminal.md lists."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "terminal.md").read_text(encoding="utf-8")
    for kind in ("config", "auth", "session", "database", "mcp", "local_model", "not_writable", "connection",
                 "timeout", "model", "refused", "interrupted", "internal"):
        assert f"`{kind}`" in doc, kind
