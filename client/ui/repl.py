"""The loop: read a line, run a turn or a slash command, render events.

Piped stdin reads lines with LineReader (client/ui/line_reader.py) and prints with the plain
Renderer; at a terminal (client/ui/tui.py) input comes from prompt_toolkit and output from the
rich renderer, and the engine's questions are asked (client/ui/frontend.py). A turn's events are
drawn by client/ui/turn_view.py. Slash commands live in client/ui/slash/ (one table; handlers
get a SlashContext).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from typing import Awaitable, Callable
from contextlib import nullcontext

from client.core.config import EXIT_WORDS, Settings
from client.core.faults import AuthError, one_line
from client.core.secrets import settings_secrets
from client.ui import failures
from client.ui.frontend import TerminalFrontend
from client.ui.i18n import t
from client.engine.mcp.hub import ToolHub
from client.ui.oneshot import Capture, to_json
from client.ui.line_reader import LineReader
from client.ui.render import Renderer, Status, debug_traceback, redact
from client.ui.turn_view import show_event, show_memory
from client.engine.events import TurnDone
from client.engine.session import ChatSession
from client.ui.picker import ThreadChooser
from client.ui.provider_label import local_note, provider_lines, status_names
from client.ui.slash import table as slash
from client.ui.slash.base import SlashContext
from client.ui.slash.mcp import with_mentions
from client.ui.slash.threads import print_threads
from client.engine.store import StoreError, TamperedCheckpoint
from client.ui.tui import TtyReader, quiet_input


class Repl:
    def __init__(self, session: ChatSession, hub: ToolHub, renderer: Renderer,
                 frontend: TerminalFrontend | None = None, reader: LineReader | TtyReader | None = None,
                 tools_changed: Callable[[], Awaitable[None]] | None = None) -> None:
        self.session = session
        self.hub = hub
        self.r = renderer
        self.frontend = frontend  # the engine's way to the screen (it asks through the same reader)
        self.reader = reader  # startup.make_reader: prompt_toolkit at a terminal, lines in a pipe, none with -p
        self._current: asyncio.Task | None = None  # what Ctrl-C cancels
        self.capture: Capture | None = None  # -p: what the one turn produced
        # before every turn: the tools ready by now join, failed starts are reported (client/ui/startup.py)
        self.tools_changed = tools_changed
        self._fatal: BaseException | None = None  # a start-up check that failed while the user typed (watch)
        self.memory_kept = False  # a memory pass of this run kept something (client/ui/turn_view.py show_memory)
        self.slash = SlashContext(session, renderer, hub, read_line=self.read_line, switch=self.switch,
                                  compact=self.turn_compact, turn=self.turn)

    @property
    def s(self) -> Settings:
        """The session's settings: after /model, those of the new model."""
        return self.session.settings

    async def read_line(self, prompt: str | None = None, *, main: bool = False) -> str | None:
        """A line, or None at EOF or on Ctrl-C at the prompt."""
        assert self.reader is not None
        if self._fatal is not None:
            raise self._fatal
        self._current = asyncio.ensure_future(self.reader.read(prompt, main=main))
        try:
            return await self._current
        except asyncio.CancelledError:
            if self._fatal is not None and not _self_cancelling():
                raise self._fatal from None
            if self._current.cancelled() and not _self_cancelling():
                self.r.line("")
                return None
            raise
        finally:
            self._current = None

    def watch(self, check: asyncio.Task) -> None:
        """A start-up check running while the user reads and types (the key): when it fails, the
        line being read is dropped and its error ends the chat, as if it had failed before the prompt."""

        def done(task: asyncio.Task) -> None:
            if not task.cancelled() and task.exception() is not None:
                self._fatal = task.exception()
                self._interrupt()

        check.add_done_callback(done)

    async def choose_thread(self) -> None:
        """--thread, --new, -c, -r [ID], or the picker at a terminal (client/ui/picker.py); with --fork,
        a copy of the thread chosen."""
        tid = await ThreadChooser(self.s, self.session.threads, self.r, self.read_line).choose()
        if self.s.fork_session and tid is not None:
            copy = await self.session.fork(source=tid)
            tid = copy.thread_id
            self.r.info(t("forked", src=copy.source, n=copy.turns, id=tid))
            if copy.source_owner not in ("", self.s.user):
                self.r.info(t("forked_other_owner", owner=copy.source_owner, user=self.s.user))
        await self.switch(tid)

    async def end_thread(self) -> None:
        """The thread's memory pass starts in the background; passes finished by now are reported."""
        try:
            status = await self.session.end()
        except Exception as e:  # noqa: BLE001
            self.r.error(t("memory_failed", err=_short(e)))
            return
        self.report_memory(status.finished if status else [])

    def report_memory(self, finished: list) -> None:
        self.memory_kept = show_memory(self.r, finished, settings_secrets(self.s), self.memory_kept)

    async def recheck_memory(self) -> None:
        """At start, once after an upgrade: stored items the current rules would not keep go; one line."""
        try:
            dropped = await self.session.recheck_memory()
        except Exception as e:  # noqa: BLE001 - memory is best effort; the chat is not
            self.r.error(t("memory_failed", err=_short(e)))
            return
        if dropped:
            self.r.info(t("memory_rechecked", n=dropped))

    async def close_memory(self) -> None:
        """Exit: memory work stops at once. -p: what needs a model request goes to a detached job
        (client/ui/memory_command.py), said once per user; else one line when some is left for
        the next start (-p: once per user too)."""
        deferred = await self.session.close()
        status = self.session.memory_status()  # passes that ended, also within the exit's grace
        self.report_memory(status.finished if status else [])
        once = self.s.prompt is not None
        if once and self.session.memory_left and self.s.memory_detach:
            from client.ui import memory_command

            if memory_command.spawn(self.s, self.session.memory_left):
                if await self.session.memory_note(memory_command.NOTE):
                    self.r.info(t("memory_background"))
                return
        if deferred and (not once or await self.session.memory_note("p-memory-deferred")):
            self.r.info(t("memory_deferred", n=deferred))

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
        self.r.info(t("current_thread", id=self.session.thread_id))
        if existed:
            info = await self.session.threads.info()
            if info and info.turns:
                self.r.info(t("resumed", turns=info.turns))
                if self.r.interactive and info.title:
                    self.r.hint(t("title_show", title=info.title))

    async def run(self) -> int:
        once = self.s.prompt is not None  # -p: no input is read after the prompt
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, self._interrupt)
        except (NotImplementedError, RuntimeError):  # not the main thread / platform
            pass
        try:
            return await (self.run_once(self.s.prompt or "") if once else self._run())
        finally:
            try:
                loop.remove_signal_handler(signal.SIGINT)
            except (NotImplementedError, RuntimeError):
                pass

    async def run_once(self, prompt: str) -> int:
        """-p: answer one message on the chosen thread, then leave at once: a memory pass that
        needs a model request is left to the next session (the session was built so,
        client/engine/build.py; its user's statements reach new threads meanwhile)."""
        json_out = self.s.output_format == "json"
        self.capture = cap = Capture(stream=not json_out)
        await self.recheck_memory()
        await self.choose_thread()
        await self.turn(prompt, own=self.s.prompt_own)
        if json_out:
            failures.JSON_OUT.write(to_json(cap, self.session.thread_id, self.s.model, self.session.context.strategy), self.r.out)
        await self.end_thread()
        await self.close_memory()
        return cap.code

    def _interrupt(self) -> None:
        if self._current is not None and not self._current.done():
            self._current.cancel()

    async def _run(self) -> int:
        await self.recheck_memory()
        await self.choose_thread()
        await self.session.resume_memory()  # what an earlier exit left: folded while the user types
        self.r.info(t("greeting"))
        note = local_note(self.s)
        if note:  # once, here and in /help: not on every status line
            self.r.info(note)
        self.r.hint(t("tty_hints"))
        if self.s.yes:
            self.r.hint(t("perm_list_yes"))
        while True:
            line = await self.read_line("\nUser: ", main=True)
            if line is None:
                break
            text = line.strip()
            if not text:
                continue
            if text.lower() in EXIT_WORDS:
                break
            cmd = slash.parse(text)
            if cmd is not None:
                if await slash.run(self.slash, cmd) == "exit":
                    break
                continue
            await self.turn(await with_mentions(self.hub, self.s, self.r, text), prepare=self.tools_changed)
        await self.end_thread()
        await self.close_memory()
        self.r.info(t("bye"))
        return 0

    async def turn(self, text: str, *, force_summary: bool = False, focus: str | None = None,
                   own: str | None = None, prepare: Callable[[], Awaitable[None]] | None = None) -> None:
        """One turn; `prepare` first, under the turn's spinner and Ctrl-C (the tools ready by now)."""
        started = time.monotonic()

        async def consume() -> None:
            if prepare is not None:
                await prepare()
            async for ev in self.session.turn(text, force_summary=force_summary, focus=focus, own=own):
                if self.capture is not None:
                    self.capture.record(ev)
                if isinstance(ev, TurnDone):
                    await self.show_status(ev, time.monotonic() - started)
                else:
                    self.render(ev)

        self.r.begin_turn()
        self._current = asyncio.ensure_future(consume())
        try:
            with quiet_input() if self.r.interactive else nullcontext():
                await self._current
        except asyncio.CancelledError:
            if not self._current.cancelled() or _self_cancelling():
                raise
            if self.capture is not None:
                self.capture.interrupted = True
                self.capture.fail("interrupted", t("interrupted"))
            self.r.error(t("interrupted"))  # Ctrl-C: this turn only
        except (AuthError, TamperedCheckpoint):  # fatal: one line, exit code
            raise
        except Exception as e:  # noqa: BLE001 - one line, the session goes on
            if self.s.debug:
                self.r.end_turn()
                print(debug_traceback(settings_secrets(self.s)), file=sys.stderr)
            failed = failures.of_turn(e, self.s, self.session.models.runtime.base_url)
            msg = redact(failed.message, settings_secrets(self.s))
            if self.capture is not None:
                self.capture.fail(failed.kind, msg)
            self.r.error(msg)
        finally:
            self._current = None
            self.r.end_turn()

    async def show_status(self, ev: TurnDone, seconds: float) -> None:
        info = await self.session.threads.info() if self.r.interactive else None
        st = ev.stats
        model, via = status_names(self.s)
        self.r.status(Status(model, self.session.thread_id, info.turns if info else 0, ev.turns_in_context,
                             st.estimated, st.reported, ev.budget, ev.trimmed, ev.summarized, seconds,
                             provider=provider_lines(self.s)[0], via=via))

    def render(self, ev: object) -> None:
        show_event(self.r, ev, self.capture)

    async def turn_compact(self, focus: str) -> None:
        self.r.begin_turn(t("spin_summary"))
        try:
            async for ev in self.session.compact(focus or None):
                self.render(ev)
        except Exception as e:  # noqa: BLE001
            self.r.error(redact(failures.of_turn(e, self.s, self.session.models.runtime.base_url).message,
                                settings_secrets(self.s)))
        finally:
            self.r.end_turn()


def _self_cancelling() -> bool:
    """True when the running task itself is being cancelled (shutdown), not just a child."""
    task = asyncio.current_task()
    return bool(task and task.cancelling())


def _short(e: BaseException) -> str:
    return one_line(e, 300)


__all__ = ["LineReader", "Repl", "print_threads"]
