"""`<db>-lock`: threads stay exclusive across processes, and the last client out removes the file.

POSIX locks belong to a process, so the other client is a real child process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from client.engine.store.filelock import FileLocks

CHILD = """
import sys
from client.engine.store.filelock import FileLocks
locks = FileLocks(sys.argv[1])
print("held" if locks.lock(sys.argv[2]) else "busy", flush=True)
sys.stdin.readline()  # hold until told
locks.close()
print("closed", flush=True)
"""
ROOT = Path(__file__).resolve().parents[2]


class Child:
    def __init__(self, path: Path, thread: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.p = subprocess.Popen([sys.executable, "-c", CHILD, str(path), thread], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env)
        assert self.p.stdout is not None
        self.first = self.p.stdout.readline().strip()

    def close(self) -> None:
        assert self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write("\n")
        self.p.stdin.flush()
        assert self.p.stdout.readline().strip() == "closed"
        self.p.wait(timeout=30)


def test_single_client_removes_its_lock_file(tmp_path):
    path = tmp_path / "chat.db-lock"
    locks = FileLocks(str(path))
    assert locks.lock("a") and path.exists()
    locks.close()
    assert not path.exists()


def test_a_thread_held_elsewhere_is_refused_then_free_after_the_holder_leaves(tmp_path):
    path = tmp_path / "chat.db-lock"
    child = Child(path, "t")
    assert child.first == "held"
    mine = FileLocks(str(path))
    assert not mine.lock("t")  # exclusive while the other client runs
    child.close()  # it was the only holder: it removed the file we still have open
    assert not path.exists()
    assert mine.lock("t")  # started over on a fresh file ...
    assert path.exists() and os.fstat(mine.fd).st_ino == path.stat().st_ino  # ... the one the path names
    other = Child(path, "t")
    assert other.first == "busy"  # so a third client still sees the thread taken
    other.close()
    assert path.exists()  # we hold a thread: the leaving client kept the file
    mine.close()
    assert not path.exists()


def test_the_file_stays_while_another_client_holds_a_thread(tmp_path):
    path = tmp_path / "chat.db-lock"
    child = Child(path, "x")
    mine = FileLocks(str(path))
    assert mine.lock("y")
    mine.close()
    assert path.exists()
    again = FileLocks(str(path))
    assert not again.lock("x")
    child.close()
    again.close()
    assert not path.exists()
