"""Tool faults and bad input."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conftest import user_texts


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_mcp_server_chat_goes_on_without_tools(chat, llm):
    url = f"http://127.0.0.1:{_closed_port()}/mcp"
    r = chat("--new", "--server-url", url, input="안녕\n")
    assert r.code == 0, r.err
    assert "연결하지 못했습니다" in r.err and "도구 없이" in r.err
    errors = [ln for ln in r.err.splitlines() if "연결하지 못했습니다" in ln or "Traceback" in ln]
    assert len(errors) == 1  # one line; the rest of stderr is the usual status lines of a pipe
    assert r.out == "답변 1: 안녕\n"
    assert "tools" not in llm.requests[-1]


def test_require_tools_exits_1_when_unreachable(chat, llm):
    r = chat("--new", "--require-tools", "--server-url", f"http://127.0.0.1:{_closed_port()}/mcp", input="안녕\n")
    assert r.code == 1
    assert llm.chat_requests() == []


def test_tool_error_reaches_the_model_as_an_error_result(chat, llm, naver):
    naver.set_mode("status", status=429)
    r = chat("--new", input="서울 검색\n")
    assert r.code == 0, r.err
    assert "[도구 오류]" in r.err
    tool_msg = llm.chat_requests()[1]["messages"][-1]
    assert tool_msg["role"] == "tool"
    assert "한도" in tool_msg["content"] and "HTTP 429" in tool_msg["content"]  # the server's own sentence
    assert "Traceback" not in tool_msg["content"]


def test_non_utf8_input_is_replaced_not_fatal(chat, llm):
    import subprocess

    raw = "안녕 ".encode() + b"\xff\xfe bad" + "\n다음\n".encode()
    argv, env = chat.command("--new")
    p = subprocess.run(argv, input=raw, capture_output=True, cwd=chat.tmp, env=env, timeout=90)
    assert p.returncode == 0, p.stderr.decode()
    texts = [user_texts(q)[-1] for q in llm.chat_requests()]
    assert texts[0].startswith("안녕 ") and "\ufffd" in texts[0]
    assert texts[1] == "다음"


def test_escape_sequences_in_model_output_are_neutralized(chat, llm):
    llm.push({"text": "정상\x1b[31m빨강\x1b[0m\x07 끝\x1b]0;title\x07"})
    r = chat("--new", input="안녕\n")
    assert "\x1b" not in r.out and "\x07" not in r.out
    assert "정상빨강 끝" in r.out


def test_bad_thread_id_is_refused(chat, llm):
    r = chat("--thread", "../../etc/passwd", input="안녕\n")
    assert r.code == 2 and "세션 ID" in r.err
    assert "현재 세션 ID" not in r.err + r.out and llm.chat_requests() == []
    r = chat("--resume", "bad id!", input="안녕\n")
    assert r.code == 2 and r.error_line() == "세션 ID가 올바르지 않습니다: 영문, 숫자, '-', '_', '.' 로 된 1~128자여야 합니다."
    assert llm.chat_requests() == []


def test_unknown_slash_command_hints(chat, llm):
    r = chat("--new", input="/frobnicate\n")
    assert "/help" in r.err and "/frobnicate" in r.err
    assert llm.chat_requests() == []


def test_corrupted_sqlite_file_untouched(chat, llm, tmp_path):
    bad = tmp_path / "broken.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x13" * 4000)
    before, listing = bad.read_bytes(), {p.name for p in tmp_path.iterdir()}
    r = chat("--new", "--db", str(bad), input="안녕\n", db=False)
    assert r.code == 1, r.err
    assert "SQLite" in r.err and "Traceback" not in r.err
    assert bad.read_bytes() == before
    assert {p.name for p in tmp_path.iterdir()} == listing  # no -lock, -wal, -shm or -journal beside it


def _unprivileged(tmp_path: Path) -> tuple[list[str], Path]:
    """argv prefix and a working directory for running the client without write rights.

    Root ignores directory permissions, so as root the client runs as `nobody`
    (setpriv) in a directory of its own; the venv and the repository are world-readable."""
    if os.geteuid() != 0:
        return [], tmp_path
    setpriv = shutil.which("setpriv")
    assert setpriv, "setpriv (util-linux) is needed to run the client as an unprivileged user"
    nobody = pwd.getpwnam("nobody")
    home = Path(tempfile.mkdtemp(prefix="mcp-chat-nobody-"))
    os.chown(home, nobody.pw_uid, nobody.pw_gid)
    return [setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"], home


def test_read_only_location(chat, llm, tmp_path):
    prefix, home = _unprivileged(tmp_path)
    ro = home / "ro"
    ro.mkdir()
    if prefix:
        os.chown(ro, pwd.getpwnam("nobody").pw_uid, -1)
    ro.chmod(0o500)
    try:
        argv = [*prefix, sys.executable, "-m", "client", "--new", "--db", str(ro / "x.db")]
        p = subprocess.run(argv, input="안녕\n".encode(), capture_output=True, cwd=home,
                           env={**chat.env, "HOME": str(home)}, timeout=90)
        err = p.stderr.decode(errors="replace")
        assert p.returncode == 1, err
        assert "쓰기 권한" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1, err
        assert list(ro.iterdir()) == []  # nothing created: no database, no sidecar files
        assert llm.chat_requests() == []
    finally:
        ro.chmod(0o700)
        if prefix:
            shutil.rmtree(home, ignore_errors=True)
