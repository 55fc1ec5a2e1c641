"""The first screen lists this user's threads only (issue 50): another user's newer thread on a
shared database (a fork of one of ours, an import) is neither shown nor numbered, so "1" is the
user's own latest; an older client's thread without an owner is listed as before."""

from __future__ import annotations

import time

from client.core.config import Settings
from client.engine.store import ThreadInfo
from client.ui.picker import ThreadChooser
from client.ui.render import Renderer


class Listed:
    def __init__(self, threads: list[ThreadInfo]) -> None:
        self.threads = threads

    async def list(self) -> list[ThreadInfo]:
        return self.threads

    async def match(self, ref: str) -> list[str]:
        return [t.thread_id for t in self.threads if t.thread_id.startswith(ref)]


async def test_the_picker_shows_and_numbers_only_this_users_threads(capsys):
    now = time.time()
    threads = Listed([ThreadInfo("alices-fork", "alice", "planted title", 2, now, now),
                      ThreadInfo("mine", "bob", "my title", 1, now - 60, now - 60),
                      ThreadInfo("legacy", "", "old title", 1, now - 120, now - 120)])
    answers = iter(["1"])

    async def read_line(prompt: str = "") -> str:
        return next(answers)

    chooser = ThreadChooser(Settings(user="bob", interactive=True), threads, Renderer(), read_line)  # type: ignore[arg-type]
    assert await chooser.choose() == "mine"
    shown = capsys.readouterr()
    assert "planted title" not in shown.out + shown.err and "alices-fork" not in shown.out + shown.err
    assert "my title" in shown.out + shown.err and "old title" in shown.out + shown.err
