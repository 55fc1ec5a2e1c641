"""The client end to end: the real command line in this process (tests/cli.py), real MCP servers
(the shared search server over HTTP, the bundled one over stdio), stubs on loopback; a process
for the first run, which starts cold as a user's does.

Assertions are on what the model endpoint received (request bodies). On SQLite only: what the
PostgreSQL store does with the same turns (transcript, tool pairs, delete, setup) is
tests/e2e/test_postgres_store.py's, on both backends.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.backends import contains, count_rows, query, table, tables
from tests.conftest import TEST_KEY, roles, thread_id_of, user_texts

ALLOWED_MESSAGE_KEYS = {"role", "content", "tool_calls", "tool_call_id", "name"}


@pytest.mark.cold  # a process, and a true cold start, as a user's first run
@pytest.mark.bundled_search  # with the default stdio search server
def test_new_thread_system_once_first(chat, llm):
    r = chat("--new", input="안녕하세요\n두 번째 질문\n")
    assert r.code == 0, r.err
    assert "현재 세션 ID:" in r.err
    assert r.out.splitlines() == ["답변 1: 안녕하세요", "답변 2: 두 번째 질문"]  # a pipe: only the answers
    reqs = llm.chat_requests()
    assert len(reqs) == 2
    for req in reqs:
        assert roles(req)[0] == "system"
        assert roles(req).count("system") == 1
    assert user_texts(reqs[1]) == ["안녕하세요", "두 번째 질문"]
    assert roles(reqs[1]) == ["system", "user", "assistant", "user"]


def test_resume_after_exit_carries_earlier_turns(cli, llm):
    r1 = cli("--new", input="첫 질문\n종료\n")
    tid = thread_id_of(r1.err)
    r2 = cli("--thread", tid, input="이어서 질문\n")
    assert r2.code == 0, r2.err
    assert f"현재 세션 ID: {tid}" in r2.err
    last = llm.chat_requests()[-1]
    assert roles(last) == ["system", "user", "assistant", "user"]  # system stored once, not re-added
    assert user_texts(last) == ["첫 질문", "이어서 질문"]


def test_two_threads_never_see_each_other(cli, llm):
    a = thread_id_of(cli("--thread", "thread-a", input="사과는 빨갛다\n").err)
    cli("--thread", "thread-b", input="바나나는 노랗다\n")
    cli("--thread", a, input="무슨 과일?\n")
    reqs = llm.chat_requests()
    b_req = reqs[1]
    assert not any("사과" in u for u in user_texts(b_req))
    assert not any("바나나" in u for u in user_texts(reqs[2]))
    assert user_texts(reqs[2]) == ["사과는 빨갛다", "무슨 과일?"]


@pytest.mark.bundled_search  # a tool turn through the default stdio search server
def test_tool_turn_stored_and_replayed_in_order(cli, llm, naver):
    r = cli("--thread", "tools", input="서울 맛집 검색해줘\n고마워\n")
    assert r.code == 0, r.err
    assert "[도구 선택]: web_search" in r.err
    assert "[도구 호출]:" in r.err and "[도구 응답]:" in r.err
    assert naver.requests and naver.requests[0]["path"] == "/v1/search/webkr.json"
    reqs = llm.chat_requests()
    # turn 1: call, then a second request carrying the tool result
    assert roles(reqs[1]) == ["system", "user", "assistant", "tool"]
    call = reqs[1]["messages"][2]["tool_calls"][0]
    assert call["function"]["name"] == "web_search"
    assert reqs[1]["messages"][3]["tool_call_id"] == call["id"]
    assert "서울 맛집" in reqs[1]["messages"][3]["content"]
    # turn 2 replays the whole tool turn in order
    assert roles(reqs[2]) == ["system", "user", "assistant", "tool", "assistant", "user"]
    for req in reqs:
        for m in req["messages"]:
            assert set(m) <= ALLOWED_MESSAGE_KEYS, m  # no synthetic/extra fields on the wire


def test_piped_output_is_plain_and_blank_lines_send_nothing(cli, llm):
    r = cli("--new", input="\n   \n하나\n\n둘\n")
    assert r.code == 0
    assert "\x1b" not in r.out + r.err
    assert [user_texts(q)[-1] for q in llm.chat_requests()] == ["하나", "둘"]


@pytest.mark.bundled_search  # with the default stdio search server
def test_exit_words_end_cleanly(cli, llm):
    for word in ("종료", "exit", "quit"):
        llm.clear()
        r = cli("--new", input=f"하나\n{word}\n보내면 안 됨\n")
        assert r.code == 0, r.err
        assert len(llm.chat_requests()) == 1
        assert "대화를 종료합니다" in r.err


def test_piped_stdin_without_a_thread_option_is_messages(cli, llm):
    """Issue 27: no session id is asked for from a pipe (the picker is for terminals): a new
    thread, blank lines send nothing, and a line that looks like an id is a message too."""
    r = cli(input="\n안녕\nmy-thread\n")
    assert r.code == 0, r.err
    assert "세션 ID를 입력하세요" not in r.err + r.out
    assert thread_id_of(r.err) != "my-thread"
    assert r.out.splitlines() == ["답변 1: 안녕", "답변 2: my-thread"]  # only the answers
    assert user_texts(llm.chat_requests()[-1]) == ["안녕", "my-thread"]


def test_the_system_prompt_asks_for_answers_in_the_users_language(cli, llm):
    """Issue 27: an English message got a Korean answer (the system prompt is Korean only)."""
    from client.core.config import ANSWER_LANGUAGE

    r = cli("--new", input="What is the capital of France?\n")
    assert r.code == 0, r.err
    [req] = llm.chat_requests()
    system = req["messages"][0]
    assert system["role"] == "system" and ANSWER_LANGUAGE in system["content"]
    assert "사용자가 쓴 언어로 답하세요" in system["content"]
    assert user_texts(req) == ["What is the capital of France?"]


def test_missing_key_exits_2_with_one_line(cli, llm):
    r = cli("--new", input="안녕\n", env={"CLOVA_STUDIO_API_KEY": None})
    assert r.code == 2
    assert "CLOVA_STUDIO_API_KEY" in r.err
    assert "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert llm.requests == []


def test_alternate_key_variable_is_accepted(cli, llm):
    r = cli("--new", input="안녕\n", env={"CLOVA_STUDIO_API_KEY": None, "CLOVASTUDIO_API_KEY": "alt-key-999"})
    assert r.code == 0, r.err
    assert llm.headers[-1]["authorization"] == "Bearer alt-key-999"


def test_threads_export_delete(cli, llm):
    cli("--thread", "keep-me", input="첫째 메시지\n서울 검색\n")
    cli("--thread", "drop-me", input="지울 대화\n")
    r = cli.sub("threads")
    assert r.code == 0
    lines = {ln.split("\t")[0]: ln.split("\t") for ln in r.out.strip().splitlines()}
    assert lines["keep-me"][1] == "2" and lines["keep-me"][3] == "첫째 메시지"
    md = cli.sub("export", "keep-me").out
    assert "첫째 메시지" in md and "서울 검색" in md and "web_search" in md
    doc = json.loads(cli.sub("export", "keep-me", "--format", "json").out)
    assert [m["content"] for m in doc["messages"] if m["role"] == "user"] == ["첫째 메시지", "서울 검색"]
    assert [m["role"] for m in doc["messages"]] == ["system", "user", "assistant", "user", "assistant", "tool", "assistant"]
    r = cli.sub("delete", "drop-me")
    assert r.code == 0
    tables = ["threads", "messages", "usage", "checkpoints", "writes"]
    for table in tables:
        assert count_rows(cli.db, table, "drop-me") == 0, table
        if table != "writes":
            assert count_rows(cli.db, table, "keep-me") > 0, table
    assert cli.sub("delete", "drop-me").code == 1  # already gone: clear error
    assert cli.sub("export", "nope").code == 1


def test_key_never_stored_or_printed(cli, llm):
    r = cli("--thread", "secret-check", input="서울 검색\n")
    assert contains(cli.db, "서울 검색")  # the probe sees stored text...
    assert not contains(cli.db, TEST_KEY)  # ...and no key anywhere (file and WAL, or any column)
    assert TEST_KEY not in r.out + r.err
    assert cli.sub("export", "secret-check", "--format", "json").out.count(TEST_KEY) == 0


@pytest.mark.sqlite_only
def test_not_a_database_is_left_untouched(cli, llm, tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_bytes(b"this is not sqlite\n" * 10)
    before, listing = bad.read_bytes(), {p.name for p in tmp_path.iterdir()}
    r = cli("--new", "--db", str(bad), input="안녕\n", db=False)
    assert r.code == 1
    assert "SQLite" in r.err and "Traceback" not in r.err
    assert bad.read_bytes() == before
    assert {p.name for p in tmp_path.iterdir()} == listing  # no -lock, -wal, -shm or -journal beside it
    assert llm.requests == []


def test_init_db_is_idempotent(cli, tmp_path):
    import init_db

    db = str(tmp_path / "init.db")
    for _ in range(2):
        p = cli.run(init_db.main, "--db", db)
        assert p.code == 0, p.err
    names = {table(db, n) for n in ("checkpoints", "writes", "threads", "messages", "usage", "memory", "memory_notes")}
    assert names | {"schema_migrations"} <= tables(db)
    assert query(db, "SELECT max(version) FROM schema_migrations")[0][0] == 4  # the last migration (memory rules version, notices)
    assert (Path(db).stat().st_mode & 0o777) == 0o600
