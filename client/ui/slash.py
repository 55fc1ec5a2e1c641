"""Slash-command handlers, mixed into the REPL (client/ui/repl.py). Parsing lives in commands.py."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from client.ui import commands
from client.core.config import THREAD_ID_RE
from client.core.context import count_turns, estimate_messages_tokens, split
from client.core.context.policy import STRATEGIES, ContextSettings
from client.ui.export import to_json, to_markdown
from client.ui.i18n import t
from client.ui.mcp_view import describe_servers, describe_tools
from client.ui.render import Renderer, redact
from client.engine.store import StoreError
from client.core.faults import one_line
from client.core.secrets import settings_secrets

if TYPE_CHECKING:
    from client.core.config import Settings
    from client.engine.mcp import ToolHub
    from client.engine.session import ChatSession

YES = ("y", "yes", "예", "네", "ㅇ")


class SlashCommands:
    s: Settings
    session: ChatSession
    hub: ToolHub
    r: Renderer

    async def read_line(self, prompt: str | None = None, *, main: bool = False) -> str | None: ...
    async def switch(self, tid: str | None) -> None: ...
    async def turn_compact(self, focus: str) -> None: ...

    async def command(self, cmd: commands.Command) -> str | None:
        """Run one slash command; "exit" ends the session."""
        handler = getattr(self, f"cmd_{cmd.name}", None) if cmd.known else None
        if handler is None:
            self.r.error(t("unknown_command", cmd="/" + cmd.name))
            return None
        return await handler(cmd.arg)

    async def cmd_exit(self, arg: str) -> str:
        return "exit"

    async def cmd_help(self, arg: str) -> None:
        self.r.line(commands.help_text(self.s.lang))
        self.r.hint(t("tty_hints"))

    async def cmd_new(self, arg: str) -> None:
        await self.switch(None)

    cmd_end = cmd_new  # the memory update happens in switch()

    async def resolve_thread(self, arg: str) -> str | None:
        """An existing thread by its id or by a unique prefix of it; None after one error line."""
        if not THREAD_ID_RE.match(arg):
            self.r.error(t("bad_thread_id"))
            return None
        store = self.session.store
        if await store.get_thread(arg) is not None:
            return arg
        found = [th.thread_id for th in await store.list_threads() if th.thread_id.startswith(arg)]
        if len(found) == 1:
            return found[0]
        self.r.error(t("thread_ambiguous", id=arg, ids=", ".join(found[:5])) if found else t("no_thread", id=arg))
        return None

    async def cmd_resume(self, arg: str) -> None:
        tid = await self.resolve_thread(arg)
        if tid is not None:
            await self.switch(tid)

    async def cmd_threads(self, arg: str) -> None:
        threads = await self.session.store.list_threads()
        if not threads:
            self.r.line(t("threads_empty"))
            return
        rows = [[th.thread_id, th.turns, _when(th.updated_at), th.title] for th in threads]
        current = next((i for i, th in enumerate(threads) if th.thread_id == self.session.thread_id), None)
        self.r.table([t("col_id"), t("col_turns"), t("col_when"), t("col_title")], rows, current=current)

    async def cmd_delete(self, arg: str) -> None:
        tid = await self.resolve_thread(arg) if arg else None
        if tid is None:
            if not arg:
                self.r.error(t("no_thread", id=arg))
            return
        question = t("confirm_delete", id=tid)
        if self.r.interactive:
            answer = await self.read_line(question)
        else:
            self.r.info(question)
            answer = await self.read_line()
        if (answer or "").strip().lower() not in YES:
            self.r.hint(t("delete_kept"))
            return
        try:
            await self.session.store.delete_thread(tid)
        except StoreError as e:  # thread_busy: open in another client
            self.r.error(t(e.key, **e.fmt))
            return
        self.r.line(t("deleted", id=tid))
        if tid == self.session.thread_id:
            await self.switch(None)

    async def cmd_export(self, path: str) -> None:
        store = self.session.store
        info = await store.get_thread(self.session.thread_id)
        rows = await store.transcript(self.session.thread_id)
        text = to_json(info, rows) if path.endswith(".json") else to_markdown(info, rows)
        if path:
            try:
                Path(path).expanduser().write_text(text, encoding="utf-8")
            except OSError as e:
                self.r.error(t("export_failed", path=path, err=e.strerror or type(e).__name__))
                return
            self.r.line(f"→ {path}")
        elif self.r.interactive:
            self.r.block(text)
        else:
            self.r.line(text)

    async def cmd_context(self, arg: str) -> None:
        c = self.session.context
        if arg:
            if arg not in STRATEGIES:
                self.r.error(t("bad_option", detail=arg))
                return
            c = ContextSettings(arg, self.s.context.max_turns, c.summary_after)  # type: ignore[arg-type]
            self.session.context = c
        self.r.line(f"context={c.strategy} max_turns={c.keep_turns} summary_after={c.summary_after} "
                    f"max_input_tokens={self.s.max_input_tokens}")
        msgs = await self.session._state_messages()
        tokens = self.session.mw.tools_tokens + estimate_messages_tokens(msgs) if msgs else 0
        budget = self.s.max_input_tokens
        self.r.line(t("context_now", turns=count_turns(split(msgs).join()) if msgs else 0, tokens=tokens,
                      pct=round(100 * tokens / budget, 1) if budget else 0,
                      summary=t("context_has_summary") if msgs and split(msgs).pair else ""))

    async def cmd_compact(self, focus: str) -> None:
        await self.turn_compact(focus)

    async def cmd_summary(self, arg: str) -> None:
        summary = await self.session.current_summary()
        if summary:
            self.r.block(summary, t("summary_title"))
        else:
            self.r.line(t("summary_none"))

    async def cmd_tokens(self, arg: str) -> None:
        """Per turn and in total, input and output tokens as the API reported them (every
        model call of a turn summed; summary and memory requests are not counted)."""
        usage = await self.session.store.usage(self.session.thread_id)
        if not usage:
            self.r.line(t("tokens_none"))
            return
        rows: list[list[object]] = []
        for u in usage:
            i, o = u.input_tokens, u.output_tokens
            rows.append([u.turn, _n(i), _n(o), (i or 0) + (o or 0) if i is not None or o is not None else "-"])
        tin = sum(u.input_tokens or 0 for u in usage)
        tout = sum(u.output_tokens or 0 for u in usage)
        rows.append([t("tokens_total"), tin, tout, tin + tout])
        self.r.table([t("col_turn"), t("col_input"), t("col_output"), t("col_sum")], rows,
                     title=t("tokens_title", id=self.session.thread_id), header=True)

    async def cmd_tools(self, arg: str) -> None:
        for line in describe_tools(self.hub):
            self.r.line(line)

    async def cmd_servers(self, arg: str) -> None:
        for line in describe_servers(self.hub):
            self.r.line(line)

    async def cmd_permissions(self, arg: str) -> None:
        perms = self.hub.permissions
        if arg.lower() == "reset":
            n, m = perms.reset()
            self.r.line(t("perm_reset", session=n, saved=m))
            return
        if arg:
            self.r.error(t("perm_bad_arg"))
            return
        info = perms.listing(self.hub.permission_servers())
        if info.yes:
            self.r.line(t("perm_list_yes"))
        none = t("perm_none")
        self.r.line(t("perm_list_session", items=", ".join(f"{k.server}/{k.tool}" for k in info.session) or none))
        self.r.line(t("perm_list_saved", path=info.saved_path,
                      items=", ".join(f"{k.server}/{k.tool}" for k in info.saved) or none))
        for server, tools in info.always_allow.items():
            self.r.line(t("perm_list_always_allow", server=server, items=", ".join(tools)))
        for server, tools in info.read_only.items():
            self.r.line(t("perm_list_read_only", server=server, items=", ".join(tools)))
        self.r.line(t("perm_list_ask"))

    async def cmd_title(self, arg: str) -> None:
        store = self.session.store
        if arg:
            await store.set_title(self.session.thread_id, arg[:100])
        info = await store.get_thread(self.session.thread_id)
        self.r.line(t("title_show", title=(info.title if info else "") or t("title_none")))

    async def cmd_memory(self, arg: str) -> None:
        mem = self.session.memory
        if mem is None:
            self.r.line(t("memory_off"))
            return
        items = await mem.list()
        if not items:
            self.r.line(t("memory_empty"))
        for i, b in enumerate(items, 1):
            score = f"{b.score:.2f}" if b.score is not None else "-"
            src = ",".join(map(str, b.sources))
            self.r.line(f"{i:>3}. [{score}] {b.text}  (thread {b.thread_id[:12]}, turns {src})")

    async def cmd_forget(self, arg: str) -> None:
        mem = self.session.memory
        if mem is None:
            self.r.line(t("memory_off"))
            return
        n = int(arg) if arg.isdigit() else 0
        gone = await mem.forget(n)
        if gone is None:
            self.r.error(t("no_memory_item", n=arg))
        else:
            self.r.line(t("forgot", n=n, text=gone.text))

    async def cmd_model(self, arg: str) -> None:
        """/model: the provider's models (current marked); /model NAME: switch for this session."""
        from client.engine.models import list_models, switch_model

        try:
            names = await list_models(self.s)
        except Exception as e:  # noqa: BLE001 - one line; switching by name still works
            names = None
            if not arg:
                self.r.error(t("models_failed", err=redact(one_line(e),
                                                          settings_secrets(self.s))))
                return
        if not arg:
            if names is None:
                self.r.line(t("models_none"))
            for name in names or []:
                self.r.line(("* " if name == self.s.model else "  ") + name)
            return
        if names and arg not in names:
            self.r.error(t("model_unknown", model=arg))
            return
        from client.engine.mcp.gate import PermissionGate

        journal = self.hub.features.drain_journal if self.hub.features else None
        switch_model(self.session, self.hub.tools, arg, PermissionGate(self.hub.authorize, self.hub.tool_of, journal))
        self.r.info(t("model_switched", model=arg, budget=self.s.max_input_tokens))

    async def cmd_clear(self, arg: str) -> None:
        self.r.clear()


def _n(v: int | None) -> object:
    return "-" if v is None else v


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


async def print_threads(session_or_store: object, r: Renderer) -> None:
    """`mcp-chat threads`: one tab-separated line per thread (id, turns, last activity, title)."""
    store = getattr(session_or_store, "store", session_or_store)
    threads = await store.list_threads()  # type: ignore[attr-defined]
    if not threads:
        r.line(t("threads_empty"))
    for th in threads:
        r.line(f"{th.thread_id}\t{th.turns}\t{_when(th.updated_at)}\t{th.title}")


__all__ = ["SlashCommands", "print_threads"]
