"""The loop: read a line, run a turn or a slash command, render events."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from pathlib import Path

from . import commands
from .config import EXIT_WORDS, THREAD_ID_RE, Settings
from .export import to_json, to_markdown
from .faults import AuthError
from .i18n import t
from .mcp import ToolHub
from .render import Renderer, debug_traceback, redact
from .session import ChatSession, Notice, Refused, Text, ToolCall, ToolResult, TurnDone
from .store import StoreError
from .context.policy import STRATEGIES, ContextSettings


class LineReader:
    """stdin lines on a daemon thread, so a blocked read never holds up exit.

    Undecodable bytes are replaced; None means EOF.
    """

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def emit(raw: bytes | None) -> None:
            line = None if raw is None else raw.decode("utf-8", errors="replace").rstrip("\r\n")
            loop.call_soon_threadsafe(self.queue.put_nowait, line)

        def pump() -> None:
            # os.read on the raw fd: a thread blocked here holds no Python I/O
            # lock, so interpreter shutdown never waits on it.
            fd, pending = sys.stdin.fileno(), b""
            while chunk := _read(fd):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for raw in lines:
                    emit(raw)
            if pending:
                emit(pending)
            emit(None)

        threading.Thread(target=pump, name="stdin", daemon=True).start()

    async def read(self, prompt: str | None = None) -> str | None:
        if prompt and sys.stdin.isatty():
            sys.stdout.write(prompt)
            sys.stdout.flush()
        line = await self.queue.get()
        if line is None:
            self.queue.put_nowait(None)  # stay at EOF
        return line


class Repl:
    def __init__(self, settings: Settings, session: ChatSession, hub: ToolHub, renderer: Renderer) -> None:
        self.s = settings
        self.session = session
        self.hub = hub
        self.r = renderer
        hub.on_progress = renderer.progress  # long-running MCP tools
        self.reader: LineReader | None = None
        self._current: asyncio.Task | None = None  # what Ctrl-C cancels

    async def read_line(self, prompt: str | None = None) -> str | None:
        """A line, or None at EOF or on Ctrl-C at the prompt."""
        assert self.reader is not None
        self._current = asyncio.ensure_future(self.reader.read(prompt))
        try:
            return await self._current
        except asyncio.CancelledError:
            if self._current.cancelled() and not _self_cancelling():
                self.r.line("")
                return None
            raise
        finally:
            self._current = None

    async def choose_thread(self) -> None:
        tid = self.s.thread
        if tid is None and not self.s.new:
            print(t("ask_thread"), end="", flush=True)
            line = await self.read_line()
            print(flush=True)
            tid = (line or "").strip() or None
            while tid is not None and not THREAD_ID_RE.match(tid):
                self.r.error(t("bad_thread_id"))
                print(t("ask_thread"), end="", flush=True)
                line = await self.read_line()
                if line is None:
                    raise EOFError
                tid = line.strip() or None
        await self.switch(tid)

    async def end_thread(self) -> None:
        """Memory update for the thread being left; best effort, one line."""
        try:
            up = await self.session.end()
        except Exception as e:  # noqa: BLE001
            self.r.error(t("memory_failed", err=_short(e)))
            return
        if up is None:
            return
        if up.error:
            self.r.error(t("memory_failed", err=redact(up.error, self.s.secrets())))
            return
        if up.unscored:
            self.r.error(t("memory_unscored"))
        self.r.line(t("memory_saved", candidates=up.candidates, added=up.added, updated=up.updated))

    async def switch(self, tid: str | None) -> None:
        if self.session.thread_id and tid != self.session.thread_id:
            await self.end_thread()
        try:
            existed = await self.session.open(tid)
        except StoreError as e:  # e.g. thread_busy: open in another client
            if not self.session.thread_id:
                raise  # at start-up: one line, exit 1
            self.r.error(t(e.key, **e.fmt))  # mid-session: stay on the current thread
            return
        self.r.line(t("current_thread", id=self.session.thread_id))
        if existed:
            info = await self.session.store.get_thread(self.session.thread_id)
            if info and info.turns:
                self.r.line(t("resumed", turns=info.turns))

    async def run(self) -> int:
        self.reader = LineReader()
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, self._interrupt)
        except (NotImplementedError, RuntimeError):  # not the main thread / platform
            pass
        try:
            return await self._run()
        finally:
            try:
                loop.remove_signal_handler(signal.SIGINT)
            except (NotImplementedError, RuntimeError):
                pass

    def _interrupt(self) -> None:
        if self._current is not None and not self._current.done():
            self._current.cancel()

    async def _run(self) -> int:
        await self.choose_thread()
        self.r.line(t("greeting"))
        while True:
            line = await self.read_line("\nUser: ")
            if line is None:
                break
            text = line.strip()
            if not text:
                continue
            if text.lower() in EXIT_WORDS:
                break
            cmd = commands.parse(text)
            if cmd is not None:
                if await self.command(cmd) == "exit":
                    break
                continue
            await self.turn(text)
        await self.end_thread()
        self.r.line(t("bye"))
        return 0

    async def turn(self, text: str, **kw: object) -> None:
        async def consume() -> None:
            async for ev in self.session.turn(text, **kw):  # type: ignore[arg-type]
                self.render(ev)

        self._current = asyncio.ensure_future(consume())
        try:
            await self._current
        except asyncio.CancelledError:
            if not self._current.cancelled() or _self_cancelling():
                raise
            self.r.error(t("interrupted"))  # Ctrl-C: this turn only
        except AuthError:
            raise
        except Exception as e:  # noqa: BLE001 - one line, the session goes on
            if self.s.debug:
                print(debug_traceback(self.s.secrets()), file=sys.stderr)
            self.r.error(t("turn_error", err=redact(_short(e), self.s.secrets())))
        finally:
            self._current = None

    def render(self, ev: object) -> None:
        if isinstance(ev, Text):
            self.r.stream(ev.delta)
        elif isinstance(ev, ToolCall):
            self.r.tool_call(ev.name, ev.args)
        elif isinstance(ev, ToolResult):
            self.r.tool_result(ev.content, ev.error)
        elif isinstance(ev, Notice):
            self.r.notice(t(ev.key, **ev.fmt), ev.warning)
        elif isinstance(ev, Refused):
            self.r.error(t(ev.key, **ev.fmt))
        elif isinstance(ev, TurnDone):
            st = ev.stats
            api = t("status_api", n=st.reported) if st.reported else ""
            action = (t("status_trim") if ev.trimmed else "") + (t("status_summary") if ev.summarized else "")
            pct = round(100 * st.estimated / ev.budget, 1) if ev.budget else 0
            self.r.line(t("status", est=st.estimated, api=api, pct=pct, turns=ev.turns_in_context, action=action))

    # -- slash commands ------------------------------------------------------
    async def command(self, cmd: commands.Command) -> str | None:
        store = self.session.store
        if not cmd.known:
            self.r.error(t("unknown_command", cmd="/" + cmd.name))
        elif cmd.name == "exit":
            return "exit"
        elif cmd.name == "help":
            self.r.line(commands.help_text(self.s.lang))
        elif cmd.name == "new":
            await self.switch(None)
        elif cmd.name == "resume":
            if not THREAD_ID_RE.match(cmd.arg):
                self.r.error(t("bad_thread_id"))
            elif await store.get_thread(cmd.arg) is None:
                self.r.error(t("no_thread", id=cmd.arg))
            else:
                await self.switch(cmd.arg)
        elif cmd.name == "threads":
            await print_threads(self.session, self.r)
        elif cmd.name == "delete":
            await self.delete(cmd.arg)
        elif cmd.name == "export":
            await self.export(cmd.arg)
        elif cmd.name == "context":
            self.context(cmd.arg)
        elif cmd.name == "compact":
            await self.turn_compact(cmd.arg)
        elif cmd.name == "summary":
            summary = await self.session.current_summary()
            self.r.line(summary or "(요약 없음)")
        elif cmd.name == "tokens":
            await self.tokens()
        elif cmd.name == "tools":
            for line in self.hub.describe_tools():
                self.r.line(line)
        elif cmd.name == "servers":
            for line in self.hub.describe_servers():
                self.r.line(line)
        elif cmd.name == "title":
            if cmd.arg:
                await store.set_title(self.session.thread_id, cmd.arg[:100])
        elif cmd.name in ("memory", "forget"):
            await self.memory(cmd)
        elif cmd.name == "end":
            await self.switch(None)
        elif cmd.name == "clear":
            if self.r.tty:
                self.r.out.write("\x1b[2J\x1b[H")
        return None

    async def memory(self, cmd: commands.Command) -> None:
        mem = self.session.memory
        if mem is None:
            self.r.line(t("memory_off"))
        elif cmd.name == "memory":
            items = await mem.list()
            if not items:
                self.r.line(t("memory_empty"))
            for i, b in enumerate(items, 1):
                score = f"{b.score:.2f}" if b.score is not None else "-"
                src = ",".join(map(str, b.sources))
                self.r.line(f"{i:>3}. [{score}] {b.text}  (thread {b.thread_id[:12]}, turns {src})")
        else:
            n = int(cmd.arg) if cmd.arg.isdigit() else 0
            gone = await mem.forget(n)
            if gone is None:
                self.r.error(t("no_memory_item", n=cmd.arg))
            else:
                self.r.line(t("forgot", n=n, text=gone.text))

    async def delete(self, tid: str) -> None:
        if not tid or await self.session.store.get_thread(tid) is None:
            self.r.error(t("no_thread", id=tid))
            return
        self.r.line(f"'{tid}' 세션을 삭제할까요? (y/N) ")
        answer = await self.read_line()
        if (answer or "").strip().lower() in ("y", "yes", "예", "네"):
            try:
                await self.session.store.delete_thread(tid)
            except StoreError as e:  # thread_busy: open in another client
                self.r.error(t(e.key, **e.fmt))
                return
            self.r.line(t("deleted", id=tid))
            if tid == self.session.thread_id:
                await self.switch(None)

    async def export(self, path: str) -> None:
        store = self.session.store
        info = await store.get_thread(self.session.thread_id)
        rows = await store.transcript(self.session.thread_id)
        text = to_json(info, rows) if path.endswith(".json") else to_markdown(info, rows)
        if path:
            Path(path).write_text(text, encoding="utf-8")
            self.r.line(f"→ {path}")
        else:
            self.r.line(text)

    def context(self, arg: str) -> None:
        c = self.session.context
        if arg:
            if arg not in STRATEGIES:
                self.r.error(t("bad_option", detail=arg))
                return
            c = ContextSettings(arg, self.s.context.max_turns, c.summary_after)  # type: ignore[arg-type]
            self.session.context = c
        self.r.line(f"context={c.strategy} max_turns={c.keep_turns} summary_after={c.summary_after} "
                    f"max_input_tokens={self.s.max_input_tokens}")

    async def turn_compact(self, focus: str) -> None:
        try:
            async for ev in self.session.compact(focus or None):
                self.render(ev)
        except Exception as e:  # noqa: BLE001
            self.r.error(t("turn_error", err=redact(_short(e), self.s.secrets())))

    async def tokens(self) -> None:
        rows = await self.session.store.usage(self.session.thread_id)
        tin = sum(r.input_tokens or 0 for r in rows)
        tout = sum(r.output_tokens or 0 for r in rows)
        for r in rows:
            self.r.line(f"  turn {r.turn}: input {r.input_tokens or 0} / output {r.output_tokens or 0}")
        self.r.line(f"total: input {tin} / output {tout}")


async def print_threads(session_or_store: object, r: Renderer) -> None:
    store = getattr(session_or_store, "store", session_or_store)
    threads = await store.list_threads()  # type: ignore[attr-defined]
    if not threads:
        r.line(t("threads_empty"))
    import datetime as dt

    for th in threads:
        when = dt.datetime.fromtimestamp(th.updated_at).strftime("%Y-%m-%d %H:%M")
        r.line(f"{th.thread_id}\t{th.turns}\t{when}\t{th.title}")


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""


def _self_cancelling() -> bool:
    """True when the running task itself is being cancelled (shutdown), not just a child."""
    task = asyncio.current_task()
    return bool(task and task.cancelling())


def _short(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return (s[0] if s else type(e).__name__)[:300]


__all__ = ["LineReader", "Repl", "print_threads"]
