"""Several clients on one database (two machines = two processes here), on
each backend: one thread is held by one client at a time — a second client is
refused with one clear line, never interleaved; other threads go on."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.backends import is_pg
from tests.conftest import user_texts
from tests.procs import alive, holding
from tests.waits import HANG

pytestmark = pytest.mark.storage  # thread locks across clients: both backends

BUSY = "다른 클라이언트에서 이미 열려 있습니다"


def _spawn(chat, *args: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "client", *args, "--db", chat.db]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=chat.tmp, env=chat.env)


def _wait(pred, timeout: float = HANG) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def test_same_thread_in_a_second_client_is_refused_not_interleaved(chat, llm):
    holder = _spawn(chat, "--thread", "shared", "--context", "none")
    assert holder.stdin is not None
    holder.stdin.write("[slow:3] 첫 질문\n".encode())
    holder.stdin.flush()
    _wait(lambda: len(llm.chat_requests()) >= 1)  # the holder is mid-turn
    r = chat("--thread", "shared", "--context", "none", input="끼어들기\n")
    assert r.code == 1
    assert BUSY in r.err and "shared" in r.err and "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1
    d = chat.sub("delete", "shared")
    assert d.code == 1 and BUSY in d.err  # nor deleted under its holder
    other = chat("--thread", "elsewhere", input="다른 세션\n")  # other threads are not blocked
    assert other.code == 0, other.err
    holder.stdin.write("둘째 질문\n".encode())
    out, err = holder.communicate(timeout=120)
    assert holder.returncode == 0, err.decode()
    assert not any("끼어들기" in u for q in llm.chat_requests() for u in user_texts(q))
    r = chat("--thread", "shared", "--context", "none", input="셋째 질문\n")  # free again after exit
    assert r.code == 0, r.err
    doc = json.loads(chat.sub("export", "shared", "--format", "json").out)
    users = [m["content"] for m in doc["messages"] if m["role"] == "user"]
    assert users == ["[slow:3] 첫 질문", "둘째 질문", "셋째 질문"]


def _claimed(db: str, thread: str) -> bool:
    """Whether some client holds the thread's claim (the store's own check: a try-lock that is released)."""
    import asyncio

    from client.engine.store import open_store

    async def probe() -> bool:
        store = await open_store(db)
        try:
            return not await store.lock_thread(thread)
        finally:
            await store.close()

    return asyncio.run(probe())


def test_a_second_client_sends_nothing_and_a_killed_holder_keeps_nothing(chat, llm):
    """Issue 40: a second process on a live thread (chat, -r --fork, fork) gets one line and exit 1
    and sends no request at all; the holder killed by SIGKILL mid-turn leaves the thread free."""
    holder = _spawn(chat, "--thread", "kept", "--context", "none", "--no-memory")
    assert holder.stdin is not None
    holder.stdin.write("[slow:60] 잡고 있는 질문\n".encode())
    holder.stdin.flush()
    _wait(lambda: len(llm.chat_requests()) >= 1)  # the holder is mid-turn
    sent = len(llm.requests)
    for args in (("--thread", "kept"), ("-r", "kept", "--fork")):
        r = chat(*args, "--no-memory", input="끼어들기\n")
        assert r.code == 1 and BUSY in r.error_line() and "kept" in r.err, (args, r.err)
    f = chat.sub("fork", "kept")
    assert f.code == 1 and BUSY in f.error_line() and f.out == ""
    assert len(llm.requests) == sent  # nothing reached the model
    assert holder.stdout is not None
    runs = holding(holder.stdout)  # the launcher, and the run the pre-imported daemon forked for it
    holder.kill()  # SIGKILL: no clean-up code runs (the run's supervisor SIGKILLs it, asynchronously)
    holder.wait(timeout=30)
    _wait(lambda: not any(alive(pid) for pid in runs), timeout=30)  # the sign: every process of it is gone
    if is_pg(chat.db):  # and the server saw the connection close (the kernel closed it at once)
        _wait(lambda: not _claimed(chat.db, "kept"), timeout=30)
    else:  # the kernel released the lock byte as the run died
        assert not _claimed(chat.db, "kept")
    r = chat("--thread", "kept", "--context", "none", "--no-memory", input="이어서 질문\n")
    assert r.code == 0, r.err
    assert user_texts(llm.chat_requests()[-1]) == ["이어서 질문"]  # the killed turn left nothing
    assert "kept\t1\t" in chat.sub("threads").out


def test_resume_of_a_busy_thread_mid_session_keeps_the_current_one(chat, llm):
    holder = _spawn(chat, "--thread", "held")
    assert holder.stdin is not None
    holder.stdin.write("[slow:3] 잡고 있는 질문\n".encode())
    holder.stdin.flush()
    _wait(lambda: len(llm.chat_requests()) >= 1)
    r = chat("--thread", "mine", input="/resume held\n/delete held\ny\n여기 질문\n")
    assert r.code == 0, r.err
    assert (r.out + r.err).count(BUSY) == 2  # /resume and /delete both refused
    holder.stdin.close()
    holder.wait(timeout=60)
    assert holder.returncode == 0
    doc = json.loads(chat.sub("export", "mine", "--format", "json").out)
    assert [m["content"] for m in doc["messages"] if m["role"] == "user"] == ["여기 질문"]
    assert "held\t1\t" in chat.sub("threads").out  # the holder's turn is intact


def test_many_clients_many_threads_at_once(chat, llm):
    """Four processes, four threads, one database, all at the same time."""
    procs = {tid: _spawn(chat, "--thread", tid, "--context", "none") for tid in ("t1", "t2", "t3", "t4")}
    lines = "".join(f"{{}} 메시지 {i}\n" for i in range(5))
    outs = {tid: p.communicate(lines.replace("{}", tid).encode(), timeout=180) for tid, p in procs.items()}
    for tid, p in procs.items():
        assert p.returncode == 0, outs[tid][1].decode()
    listing = chat.sub("threads").out
    for tid in procs:
        assert f"{tid}\t5\t" in listing
        doc = json.loads(chat.sub("export", tid, "--format", "json").out)
        users = [m["content"] for m in doc["messages"] if m["role"] == "user"]
        assert users == [f"{tid} 메시지 {i}" for i in range(5)]  # in order, nothing from another thread
