"""Which thread a chat starts on: --thread, --new, -c, -r [ID], or the picker at a terminal.

At a terminal with none of them the first screen explains itself: one line on what a session
is, this user's recent sessions (number, title, age, turns, id) and the contract's question; a number,
an id or a unique id prefix resumes one, Enter starts a new one. With no stored session a new
one starts at once. Piped input is never read as an id: a new session, every line a message.
The question takes the commands its lines mention: /threads lists every session (numbered, to
pick from), /help says what may be typed, /exit (or 종료, exit, quit) leaves.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Awaitable, Callable

from client.core.config import EXIT_WORDS, THREAD_ID_RE, Settings
from client.engine.store import StoreError, ThreadInfo
from client.ui.i18n import t
from client.ui.render import cells, clean, cut

if TYPE_CHECKING:
    from client.engine.threads import Threads
    from client.ui.render import Renderer

PICK_ROWS = 10  # the most recent sessions shown
TITLE_CELLS = 40


class ThreadChooser:
    def __init__(self, settings: Settings, threads: Threads, renderer: Renderer,
                 read_line: Callable[..., Awaitable[str | None]]) -> None:
        self.s, self.threads, self.r, self.read_line = settings, threads, renderer, read_line

    async def choose(self) -> str | None:
        """The thread id to open; None: a new thread. EOFError: the user left at the picker."""
        s = self.s
        if s.thread is not None:
            return s.thread
        if s.resume:  # -r ID: an existing thread, by id or unique prefix
            return await self.existing(s.resume)
        if s.continue_last:
            tid = await self.latest()
            if tid is None:
                self.r.info(t("continue_none"))
            return tid
        if s.resume == "":  # -r: the picker (options made sure there is a terminal)
            return await self.pick(asked=True)
        if s.new or s.prompt is not None or not s.interactive:
            return None  # piped: a new thread, stdin is messages
        return await self.pick(asked=False)

    async def latest(self) -> str | None:
        """This user's most recently active thread that has turns (-c)."""
        for th in await self.threads.list():  # newest first, only threads with turns
            if th.user_name == self.s.user:  # not one without an owner: -c never guesses
                return th.thread_id
        return None

    async def existing(self, ref: str) -> str:
        found = await self.threads.match(ref)
        if len(found) == 1:
            return found[0]
        if found:
            raise StoreError("thread_ambiguous", id=ref, ids=", ".join(found[:5]))
        raise StoreError("no_thread", id=ref)

    async def pick(self, asked: bool) -> str | None:
        found = [th for th in await self.threads.list() if mine(th, self.s.user)]
        if not found:
            if asked:
                self.r.info(t("pick_none"))
            return None
        shown = found[:PICK_ROWS]
        self.show(shown, len(found) - len(shown))
        while True:
            line = await self.read_line(t("ask_thread") + " ")
            if line is None:  # Ctrl-C / Ctrl-D: leave
                raise EOFError
            text = line.strip()
            if not text:
                return None
            command = text[1:].split(None, 1)[0].lower() if text.startswith("/") and len(text) > 1 else ""
            if text.lower() in EXIT_WORDS or command in ("exit", "quit", "q"):
                raise EOFError
            if command == "threads":  # every session, numbered: a number now picks from all of them
                shown = await self.threads.list()
                self.show(shown, 0, intro=False)
                continue
            if command in ("help", "h", "?") or text.startswith("/"):
                self.r.info(t("pick_help") if command in ("help", "h", "?") else t("pick_commands", cmd=text.split()[0]))
                continue
            tid, error = await self.resolve(text, shown)
            if tid is not None:
                return tid
            self.r.error(error)

    def show(self, shown: list[ThreadInfo], more: int, intro: bool = True) -> None:
        if intro:
            self.r.info(t("pick_intro"))
        now = time.time()
        rows = [[i, cut(clean(th.title), TITLE_CELLS) or "-", age(now - th.updated_at), th.turns, clean(th.thread_id[:12])]
                for i, th in enumerate(shown, 1)]
        headers = [t("col_no"), t("col_title"), t("col_when"), t("col_turns"), t("col_id")]
        if self.r.interactive:
            self.r.table(headers, rows, header=True)
        else:  # stdin at a terminal, stdout elsewhere: the list is not output, it goes with the prompt
            for i, title, when, turns, tid in rows:
                self.r.info(f"{i:>3}  {pad(str(title), TITLE_CELLS)}  {pad(str(when), 12)}  {turns:>4}  {tid}")
        if more:
            self.r.info(t("pick_more", n=more))

    async def resolve(self, text: str, shown: list[ThreadInfo]) -> tuple[str | None, str]:
        """(thread id, "") for a number of the list, an existing id or unique prefix, or a new
        valid id (the thread is created under it, as --thread does); else (None, error line)."""
        if text.isdigit() and 1 <= int(text) <= len(shown):
            return shown[int(text) - 1].thread_id, ""
        if not THREAD_ID_RE.match(text):
            return None, t("bad_thread_id")
        found = await self.threads.match(text)
        if len(found) > 1:
            return None, t("thread_ambiguous", id=text, ids=", ".join(found[:5]))
        if found:
            return found[0], ""
        if text.isdigit():
            return None, t("pick_bad_number", n=text)
        return text, ""


def mine(th: ThreadInfo, user: str) -> bool:
    """The first screen lists this user's threads (and an older client's, which have no owner):
    another user's would be refused when picked (client/engine/threads.py `check_open`)."""
    return th.user_name in (user, "")


def pad(text: str, width: int) -> str:
    return text + " " * max(0, width - cells(text))


def age(seconds: float) -> str:
    """How long ago, in words: 방금, 5분 전, 3시간 전, 2일 전."""
    minutes = int(max(0.0, seconds) // 60)
    if minutes < 1:
        return t("age_now")
    if minutes < 60:
        return t("age_min", n=minutes)
    if minutes < 24 * 60:
        return t("age_hour", n=minutes // 60)
    return t("age_day", n=minutes // (24 * 60))
