"""Tool faults and bad input. The command line in this process (tests/cli.py)."""

from __future__ import annotations

import os
import shutil
import socket

from tests.conftest import user_texts
from tests.faults.files import unprivileged_ids


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_mcp_server_chat_goes_on_without_tools(cli, llm):
    url = f"http://127.0.0.1:{_closed_port()}/mcp"
    r = cli("--new", "--server-url", url, input="안녕\n")
    assert r.code == 0, r.err
    assert "연결하지 못했습니다" in r.err and "도구 없이" in r.err
    errors = [ln for ln in r.err.splitlines() if "연결하지 못했습니다" in ln or "Traceback" in ln]
    assert len(errors) == 1  # one line; the rest of stderr is the usual status lines of a pipe
    assert r.out == "답변 1: 안녕\n"
    assert "tools" not in llm.requests[-1]


def test_require_tools_exits_1_when_unreachable(cli, llm):
    r = cli("--new", "--require-tools", "--server-url", f"http://127.0.0.1:{_closed_port()}/mcp", input="안녕\n")
    assert r.code == 1
    assert llm.chat_requests() == []


def test_tool_error_reaches_the_model_as_an_error_result(cli, llm, naver):
    naver.set_mode("status", status=429)
    r = cli("--new", input="서울 검색\n")
    assert r.code == 0, r.err
    assert "[도구 오류]" in r.err
    tool_msg = llm.chat_requests()[1]["messages"][-1]
    assert tool_msg["role"] == "tool"
    assert "한도" in tool_msg["content"] and "HTTP 429" in tool_msg["content"]  # the server's own sentence
    assert "Traceback" not in tool_msg["content"]


def test_non_utf8_input_is_replaced_not_fatal(cli, llm):
    raw = "안녕 ".encode() + b"\xff\xfe bad" + "\n다음\n".encode()
    p = cli("--new", input=raw)  # bytes, as a pipe gives them
    assert p.code == 0, p.err
    texts = [user_texts(q)[-1] for q in llm.chat_requests()]
    assert texts[0].startswith("안녕 ") and "\ufffd" in texts[0]
    assert texts[1] == "다음"


def test_escape_sequences_in_model_output_are_neutralized(cli, llm):
    llm.push({"text": "정상\x1b[31m빨강\x1b[0m\x07 끝\x1b]0;title\x07"})
    r = cli("--new", input="안녕\n")
    assert "\x1b" not in r.out and "\x07" not in r.out
    assert "정상빨강 끝" in r.out


def test_bad_thread_id_is_refused(cli, llm):
    r = cli("--thread", "../../etc/passwd", input="안녕\n")
    assert r.code == 2 and "세션 ID" in r.err
    assert "현재 세션 ID" not in r.err + r.out and llm.chat_requests() == []
    r = cli("--resume", "bad id!", input="안녕\n")
    assert r.code == 2 and r.error_line() == "세션 ID가 올바르지 않습니다: 영문, 숫자, '-', '_', '.' 로 된 1~128자여야 합니다."
    assert llm.chat_requests() == []


def test_unknown_slash_command_hints(cli, llm):
    r = cli("--new", input="/frobnicate\n")
    assert "/help" in r.err and "/frobnicate" in r.err
    assert llm.chat_requests() == []


def test_corrupted_sqlite_file_untouched(cli, llm, tmp_path):
    bad = tmp_path / "broken.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x13" * 4000)
    before, listing = bad.read_bytes(), {p.name for p in tmp_path.iterdir()}
    r = cli("--new", "--db", str(bad), input="안녕\n", db=False)
    assert r.code == 1, r.err
    assert "SQLite" in r.err and "Traceback" not in r.err
    assert bad.read_bytes() == before
    assert {p.name for p in tmp_path.iterdir()} == listing  # no -lock, -wal, -shm or -journal beside it


def test_read_only_location(cli, llm, tmp_path):
    ids, home = unprivileged_ids(tmp_path)  # root ignores permissions: the run gets nobody's ids
    ro = home / "ro"
    ro.mkdir()
    if ids:
        os.chown(ro, ids[0], -1)
    ro.chmod(0o500)
    cli.search_config = None  # the shared search server's config sits where nobody cannot read
    try:
        p = cli("--new", "--db", str(ro / "x.db"), input="안녕\n", db=False, cwd=home, env={"HOME": str(home)},
                 as_user=ids)
        err = p.err
        assert p.code == 1, err
        assert "쓰기 권한" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1, err
        assert list(ro.iterdir()) == []  # nothing created: no database, no sidecar files
        assert llm.chat_requests() == []
    finally:
        ro.chmod(0o700)
        if ids:
            shutil.rmtree(home, ignore_errors=True)
