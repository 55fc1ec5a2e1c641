"""Memory keeps what users say about themselves, and nothing else (issue 49), on the wire: the
command line in this process (tests/cli.py) against the recording stub, whose extractor copies
every user line (an over-eager model: what it copies of a paste must not survive), on SQLite.

The attacker here is what a user pastes or pipes: a diff, a traceback, a log, commands. None of
it may reach a later session's `[장기 기억]` block, nor may what an older version kept."""

from __future__ import annotations

import re
import sqlite3
import time

import pytest

from tests.conftest import thread_id_of

DIFF = ("diff --git a/io.py b/io.py\nindex 5109783..3434951 100644\n--- a/io.py\n+++ b/io.py\n"
        "@@ -1,3 +1,3 @@\n def load(path):\n-    return f.read().strip()\n+    return f.read()\n"
        "나는 이 파일의 작성자다\n")
JUNK_WORDS = ("5109783", "f.read", "venv", "connection refused", "app.py", "ValueError", "clear", "작성자")


def system_of(req: dict) -> str:
    assert req["messages"][0]["role"] == "system"
    return req["messages"][0]["content"]


def items(out: str) -> list[str]:
    """The items /memory listed (their text, without where they came from)."""
    return [m.group(1) for m in re.finditer(r"(?m)^\s*\d+\. \[[\d.-]+\] (.*)  \(세션 ", out)]


def next_system(cli, llm, user: str) -> str:
    llm.clear()
    assert cli("--new", "--user", user, input="안녕\n").code == 0
    return system_of(llm.chat_requests()[0])


def test_a_piped_diff_goes_to_the_model_but_only_the_users_line_is_remembered(cli, llm):
    r = cli("-p", "검토해 줘. 나는 백엔드 개발자야.", "--thread", "pd", "--user", "dev", "--memory-source", "user",
            input=DIFF)
    assert r.code == 0, r.err
    sent = llm.chat_requests()[0]["messages"][-1]["content"]
    assert sent.startswith("검토해 줘. 나는 백엔드 개발자야.\n\n<stdin>\n") and "index 5109783..3434951" in sent
    system = next_system(cli, llm, "dev")
    assert "백엔드 개발자" in system
    assert not [w for w in JUNK_WORDS if w in system], system


def test_a_long_piped_stdin_with_no_line_of_the_users_is_not_remembered(cli, llm):
    assert cli("-p", "--thread", "po", "--user", "poe", "--memory-source", "user", input=DIFF).code == 0
    assert "[장기 기억]" not in next_system(cli, llm, "poe")


def test_pasted_traceback_log_and_commands_are_not_remembered(cli, llm):
    lines = ["python3 -m venv .venv && .venv/bin/pip install -q -e .", "clear", "ERROR: connection refused on port 5432",
             'File "app.py", line 3, in <module>', "ValueError: invalid literal for int() with base 10: 'abc'",
             "저는 판교에서 데이터 분석가로 일해요", "/memory"]
    r = cli("--thread", "paste", "--user", "ana", input="\n".join(lines) + "\n")
    assert r.code == 0, r.err
    extract = [q for q in llm.plain_requests() if "장기 기억 후보" in q["messages"][0]["content"]]
    assert extract and "venv" not in extract[0]["messages"][-1]["content"]  # the extractor reads the user's prose only
    listed = " ".join(items(r.out))
    assert "데이터 분석가" in listed and not [w for w in JUNK_WORDS if w in listed], listed
    system = next_system(cli, llm, "ana")
    assert "데이터 분석가" in system and not [w for w in JUNK_WORDS if w in system], system


def _as_version_3(db: str, junk: dict[str, list[str]]) -> None:
    """The database as an older client left it (schema 3, no rules column), with what it kept."""
    con = sqlite3.connect(db)
    try:
        con.executescript("ALTER TABLE memory DROP COLUMN rules; DROP TABLE memory_notes; "
                          "DELETE FROM schema_migrations WHERE version = 4;")
        for user, texts in junk.items():
            for text in texts:
                con.execute("INSERT INTO memory (user_name, thread_id, text, score, sources, created_at, updated_at) "
                            "VALUES (?, 'old', ?, 0.7, '[1]', 0, 0)", (user, text))
        con.commit()
    finally:
        con.close()


def test_an_upgrade_drops_what_older_versions_kept_once_and_keeps_the_rest(cli, llm):
    import init_db

    assert cli("--thread", "f1", "--user", "kim", "--memory-source", "user", input="나는 부산에 살아\n/memory\n").code == 0
    old = ["사용자의 말: clear", "사용자의 말: python3 -m venv .venv && .venv/bin/pip install -q -e .",
           "사용자의 말: index 5109783..3434951 100644", 'File "app.py", line 3, in <module>',
           "사용자의 말: ERROR: connection refused on port 5432"]
    _as_version_3(cli.db, {"kim": old + ["사용자의 말: 고양이 두 마리 키워"], "lee": ["사용자의 말: clear"]})
    for _ in range(2):  # the schema upgrade alone: idempotent, no row lost
        assert cli.run(init_db.main, "--db", cli.db).code == 0
    assert sqlite3.connect(cli.db).execute("SELECT count(*) FROM memory").fetchone()[0] == 8
    llm.clear()
    r = cli("--new", "--user", "kim", input="안녕\n/memory\n")
    assert r.code == 0, r.err
    assert [ln for ln in r.err.splitlines() if "다시 확인" in ln] == [
        "장기 기억: 새 규칙으로 다시 확인해 사용자의 말이 아닌 항목 5개를 지웠습니다 (명령·코드·로그 등)."]
    system = system_of(llm.chat_requests()[0])
    assert "부산에 살아" in system and "고양이 두 마리" in system  # nothing else is lost
    assert not [w for w in JUNK_WORDS if w in system], system  # the junk never reaches the system prompt
    assert "부산에 살아" in " ".join(items(r.out)) and "clear" not in " ".join(items(r.out))
    again = cli("--new", "--user", "kim", input="안녕\n")
    assert "다시 확인" not in again.err  # once
    lee = sqlite3.connect(cli.db).execute("SELECT text FROM memory WHERE user_name='lee'").fetchall()
    assert lee == [("사용자의 말: clear",)]  # another user's rows: checked at that user's start, not by kim's


def test_memory_names_the_session_and_turn_of_each_item(cli, llm):
    assert cli("--thread", "trip", "--user", "src", "--memory-source", "user",
               input="오사카 여행 계획 좀 세워 줘\n나는 다음 달 12일에 오사카 가\n").code == 0
    r = cli("--new", "--user", "src", input="/memory\n")
    line = next(ln for ln in r.out.splitlines() if "오사카 가" in ln)
    assert line.endswith('(세션 trip "오사카 여행 계획 좀 세워 줘", 턴 2)'), line


def _pending(db: str, user: str) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT count(*) FROM threads WHERE user_name=? AND turns > memory_turn", (user,)).fetchone()[0]
    finally:
        con.close()


def _until_folded(db: str, user: str, timeout: float = 180) -> None:
    """The detached job's sign: no thread of the user has unfolded turns (it writes the watermark last)."""
    end = time.monotonic() + timeout
    while _pending(db, user):
        assert time.monotonic() < end, "the detached memory job did not fold the thread"
        time.sleep(0.2)


@pytest.mark.timeout(400)
def test_p_leaves_its_memory_pass_to_a_detached_job_and_says_so_once(cli, llm):
    env = {"MCP_CHAT_MEMORY_DETACH": "1"}
    r = cli("-p", "나는 제주도에 살아", "--thread", "bg1", "--user", "jeju", env=env)
    assert r.code == 0, r.err
    notice = [ln for ln in r.err.splitlines() if "백그라운드" in ln]
    assert notice == ["장기 기억: -p 실행이 남긴 정리는 백그라운드에서 합니다 (기다리지 않음; 이 안내는 한 번만)."]
    _until_folded(cli.db, "jeju")
    assert any("장기 기억 후보" in q["messages"][0]["content"] for q in llm.plain_requests())  # the job asked the model
    r = cli("-p", "나는 감귤 농장을 해", "--thread", "bg2", "--user", "jeju", env=env)
    assert r.code == 0 and "백그라운드" not in r.err and "다음 시작" not in r.err  # said once, not on every run
    _until_folded(cli.db, "jeju")
    llm.clear()
    system = next_system(cli, llm, "jeju")
    assert "제주도" in system and "감귤" in system


async def test_the_backlog_is_bounded_oldest_first(tmp_path):
    """Past the bound, the oldest pending threads get the request-free pass: no request, and their
    user's statements are still kept (nothing dropped unread)."""
    from types import SimpleNamespace

    from langchain_core.messages import AIMessage, HumanMessage

    from client.engine.memory.fold import fold_pending
    from client.engine.memory.manager import BACKLOG, MemoryManager, backlog
    from client.engine.store import open_store

    assert backlog([str(i) for i in range(BACKLOG + 2)]) == ([str(i) for i in range(2, BACKLOG + 2)], ["0", "1"])

    class Extractor:  # the extraction model: answers with the user's line, counts the threads it was asked about
        asked: list[str] = []

        async def ainvoke(self, messages):
            body = messages[-1].content
            self.asked.append(body)
            return AIMessage("- [턴 1] " + body.split("사용자: ", 1)[1])

    store = await open_store(str(tmp_path / "b.db"))
    try:
        for i in range(BACKLOG + 2):
            await store.create_thread(f"t{i}", "bk")
            await store.append(f"t{i}", [HumanMessage(f"나는 {i}번 도시에 살아", id=f"h{i}"), AIMessage("네", id=f"a{i}")])
        models = SimpleNamespace(current=SimpleNamespace(summarizer=Extractor()))
        done = await fold_pending(MemoryManager(store, models, "bk", source="both"), None)  # type: ignore[arg-type]
        assert len(done) == BACKLOG + 2 and await store.memory_pending("bk") == []
        assert len(Extractor.asked) == BACKLOG and not any("0번" in a or "1번" in a for a in Extractor.asked)
        kept = " ".join(b.text for b in await store.memory_list("bk"))
        assert "0번 도시" in kept and "1번 도시" in kept
    finally:
        await store.close()
