"""Fork and rewind at the command line (issue 40): `mcp-chat fork`, `/fork`, `/rewind` and
`-r ID --fork` as real processes, read on the wire; their output, exit codes and refusals.
What a fork holds turn by turn is proven in-process (test_fork.py)."""

from __future__ import annotations

import json

from tests.conftest import user_texts

TOOL = '[tool:web_search {"query": "부산 날씨"}] 날씨 검색'


def last_users(llm) -> list[str]:
    return user_texts(llm.chat_requests()[-1])


def test_mcp_chat_fork_prints_the_new_id_and_the_fork_is_its_own_thread(chat, llm):
    r = chat("--thread", "base", "--context", "none", input="첫 질문\n둘째 질문\n셋째 질문\n")
    assert r.code == 0, r.err
    f = chat.sub("fork", "ba", "--at", "2")  # a unique prefix names the thread, as for export and delete
    assert f.code == 0, f.err
    new = f.out.strip()
    assert f.out == new + "\n" and len(new) == 32  # stdout: the id alone, for scripts
    assert "mcp-chat -r " + new in f.err
    named = chat.sub("fork", "base", "--name", "named")
    assert (named.code, named.out) == (0, "named\n")
    listing = {ln.split("\t")[0]: ln.split("\t") for ln in chat.sub("threads").out.splitlines()}
    assert listing[new][1] == "2" and "base" in listing[new][4] and listing["named"][1] == "3"
    assert len(listing["base"]) == 4  # a thread of its own has no origin column
    doc = json.loads(chat.sub("export", new, "--format", "json").out)
    assert [m["content"] for m in doc["messages"] if m["role"] == "user"] == ["첫 질문", "둘째 질문"]
    assert doc["parent"] == {"thread_id": "base", "turn": 2, "kind": "fork"}
    assert "- fork: `base` @ 2" in chat.sub("export", new).out
    r = chat("-r", new, "--context", "none", input="포크의 질문\n")
    assert r.code == 0, r.err
    assert last_users(llm) == ["첫 질문", "둘째 질문", "포크의 질문"]
    base = json.loads(chat.sub("export", "base", "--format", "json").out)
    assert base["turns"] == 3 and "포크의 질문" not in json.dumps(base, ensure_ascii=False)  # unchanged


def test_mcp_chat_fork_refusals_are_one_line(chat, llm, tmp_path):
    assert chat("--thread", "base", input="첫 질문\n").code == 0
    for args, code, words in ((["nope"], 1, "nope"), (["base", "--at", "9"], 1, "1부터 1"),
                              (["base", "--at", "x"], 2, "--at"), (["base", "--name", "base"], 1, "이미 있는"),
                              (["base", "--name", "bad id"], 2, "세션 ID")):
        r = chat.sub("fork", *args)
        assert r.code == code and words in r.error_line() and r.out == "", (args, r.err)
    missing = tmp_path / "none.db"
    r = chat("fork", "base", "--db", str(missing), db=False)
    assert r.code == 1 and not missing.exists()  # never creates a database


def test_fork_and_rewind_in_a_session(chat, llm):
    r = chat("--thread", "base", "--context", "none",
             input=f"첫 질문\n둘째 질문\n/fork 1\n포크 둘째\n{TOOL}\n/rewind\n포크 다시\n")
    assert r.code == 0, r.err
    reqs = llm.chat_requests()
    asked = {user_texts(q)[-1]: user_texts(q) for q in reqs}
    assert asked["포크 둘째"] == ["첫 질문", "포크 둘째"]  # /fork 1: the first turn only
    assert asked["포크 다시"] == ["첫 질문", "포크 둘째", "포크 다시"]  # the rewound tool turn is not sent
    lines = r.out.splitlines()
    fork = next(ln for ln in lines if "base의 처음 1턴" in ln).split("새 세션 ")[1].split("을(를)")[0]
    assert any(ln.startswith("마지막 1턴을 되감았습니다") for ln in lines)
    assert "web_search" in r.err and "되돌려지지 않습니다" in r.err  # the tool's effects stay
    assert f"현재 세션 ID: {fork}" in r.err
    listing = {ln.split("\t")[0]: ln.split("\t") for ln in chat.sub("threads").out.splitlines()}
    assert listing["base"][1] == "2" and listing[fork][1] == "3"
    [kept] = [tid for tid, row in listing.items() if len(row) > 4 and "되감기" in row[4]]
    doc = json.loads(chat.sub("export", kept, "--format", "json").out)
    assert [m["content"] for m in doc["messages"] if m["role"] == "user"] == ["첫 질문", "포크 둘째", TOOL]
    assert doc["parent"] == {"thread_id": fork, "turn": 2, "kind": "rewind"}


def test_resume_a_copy_with_fork(chat, llm):
    assert chat("--thread", "base", "--context", "none", input="첫 질문\n").code == 0
    r = chat("-r", "base", "--fork", "--context", "none", input="사본의 질문\n")
    assert r.code == 0, r.err
    assert last_users(llm) == ["첫 질문", "사본의 질문"]
    copy = next(ln for ln in r.err.splitlines() if "현재 세션 ID:" in ln).split(":", 1)[1].strip()
    assert copy != "base"
    listing = {ln.split("\t")[0]: ln.split("\t") for ln in chat.sub("threads").out.splitlines()}
    assert listing["base"][1] == "1" and listing[copy][1] == "2"
    r = chat("--thread", "base", "--fork-session", "--context", "none", "-p", "스크립트의 질문")  # the other name, with -p
    assert r.code == 0, r.err
    assert last_users(llm) == ["첫 질문", "스크립트의 질문"]
    script = next(ln for ln in r.err.splitlines() if "현재 세션 ID:" in ln).split(":", 1)[1].strip()
    r = chat("-c", "--fork", "--context", "none", input="최근 것의 질문\n")  # the latest: the -p copy
    assert r.code == 0, r.err
    assert last_users(llm) == ["첫 질문", "스크립트의 질문", "최근 것의 질문"]
    listing = {ln.split("\t")[0]: ln.split("\t") for ln in chat.sub("threads").out.splitlines()}
    assert listing["base"][1] == "1" and listing[script][1] == "2" and len(listing) == 4  # base and three copies
    sent = len(llm.requests)
    for args in (["--fork"], ["--new", "--fork-session"]):  # a copy of which session?
        bad = chat(*args, input="x\n")
        assert bad.code == 2 and "--fork" in bad.error_line() and len(llm.requests) == sent, args


def test_fork_goes_on_with_the_sessions_model_and_context_policy(chat, llm):
    """/fork copies the thread; the session's own settings, switched with /model and /context, stay in
    force in the fork: its next request names the new model and holds only the turns trim keeps."""
    llm.models = ["HCX-005", "HCX-003"]
    r = chat("--thread", "base", "--context", "none", "--max-turns", "1", "--no-memory",
             input="첫 질문\n둘째 질문\n/model HCX-003\n/context trim\n/fork\n포크의 질문\n")
    assert r.code == 0, r.err
    fork = next(ln for ln in r.err.splitlines()[::-1] if "현재 세션 ID:" in ln).split(":", 1)[1].strip()
    assert fork != "base"
    first, second, in_fork = llm.chat_requests()
    assert first["model"] == second["model"] == "HCX-005" and user_texts(second) == ["첫 질문", "둘째 질문"]
    assert in_fork["model"] == "HCX-003"
    assert user_texts(in_fork) == ["둘째 질문", "포크의 질문"]  # trim, one turn kept; not none's all
    doc = json.loads(chat.sub("export", fork, "--format", "json").out)
    assert [m["content"] for m in doc["messages"] if m["role"] == "user"] == ["첫 질문", "둘째 질문", "포크의 질문"]
