"""Thread commands: /new /clear /end /resume /threads /delete /export /title /fork /rewind, and `mcp-chat threads`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from client.core.config import THREAD_ID_RE
from client.core.secrets import settings_secrets
from client.engine.store import Store, StoreError, ThreadInfo
from client.ui.export import to_json, to_markdown
from client.ui.i18n import t
from client.ui.render import Renderer
from client.ui.safe_text import one_line
from client.ui.slash.base import YES, SlashContext


SHORT_ID = 8  # a parent id in the /threads table: a prefix /resume takes


async def new(c: SlashContext, arg: str) -> None:
    await c.switch(None)  # the memory update of the thread left happens in switch()


async def clear(c: SlashContext, arg: str) -> None:
    """As in Claude Code: a fresh context, i.e. a new thread on a cleared screen; the old thread is
    kept (/threads, /resume). The screen alone: /cls or Ctrl-L."""
    c.r.clear()
    await c.switch(None)


async def resolve_thread(c: SlashContext, arg: str) -> str | None:
    """An existing thread by its id or by a unique prefix of it; None after one error line."""
    if not THREAD_ID_RE.match(arg):
        c.r.error(t("bad_thread_id"))
        return None
    found = await c.session.threads.match(arg)
    if len(found) == 1:
        return found[0]
    c.r.error(t("thread_ambiguous", id=arg, ids=", ".join(found[:5])) if found else t("no_thread", id=arg))
    return None


async def resume(c: SlashContext, arg: str) -> None:
    tid = await resolve_thread(c, arg)
    if tid is not None:
        await c.switch(tid)


async def threads(c: SlashContext, arg: str) -> None:
    found = await c.session.threads.list()
    if not found:
        c.r.line(t("threads_empty"))
        return
    rows = [[th.thread_id, th.turns, when(th.updated_at), th.title, origin(th, short=True)] for th in found]
    current = next((i for i, th in enumerate(found) if th.thread_id == c.session.thread_id), None)
    c.r.table([t("col_id"), t("col_turns"), t("col_when"), t("col_title"), t("col_origin")], rows, current=current)


async def delete(c: SlashContext, arg: str) -> None:
    tid = await resolve_thread(c, arg) if arg else None
    if tid is None:
        if not arg:
            c.r.error(t("no_thread", id=arg))
        return
    question = t("confirm_delete", id=tid)
    if c.r.interactive:
        answer = await c.read_line(question)
    else:
        c.r.info(question)
        answer = await c.read_line()
    if (answer or "").strip().lower() not in YES:
        c.r.hint(t("delete_kept"))
        return
    try:
        await c.session.threads.delete(tid)
    except StoreError as e:  # thread_busy: open in another client
        c.r.error(t(e.key, **e.fmt))
        return
    c.r.line(t("deleted", id=tid))
    if tid == c.session.thread_id:
        await c.switch(None)


async def export(c: SlashContext, path: str) -> None:
    data = await c.session.threads.export()
    secrets = settings_secrets(c.s)  # a key given with --api-key too, not only the environment's
    if path.endswith(".json"):
        text = to_json(data.info, data.rows, secrets)
    else:  # masked; a file or pipe keeps the text (controls written out), a terminal gets it cleaned
        text = to_markdown(data.info, data.rows, secrets, terminal=not path and c.r.tty)
    if path:
        await _write_export(c, Path(path).expanduser(), path, text)
    else:
        c.r.document(text)  # cleaned at a terminal, kept in a pipe


async def _write_export(c: SlashContext, target: Path, path: str, text: str) -> None:
    """Never through a symlink, never over a file unasked (client/ui/user_file.py); in a pipe
    an existing file is refused with one line."""
    from client.ui.user_file import kind, write_user_file

    there = kind(target)
    if there in ("link", "other"):
        c.r.error(t("export_not_file", path=path))
        return
    if there == "file":
        if not c.r.interactive:
            c.r.error(t("export_exists", path=path))
            return
        if ((await c.read_line(t("export_overwrite", path=path))) or "").strip().lower() not in YES:
            c.r.hint(t("export_kept", path=path))
            return
    try:
        write_user_file(target, text, replace=there == "file")
    except OSError as e:  # e.g. a symlink planted in between: O_EXCL refuses it
        c.r.error(t("export_failed", path=path, err=e.strerror or type(e).__name__))
        return
    c.r.line(f"→ {path}")


async def title(c: SlashContext, arg: str) -> None:
    if arg:
        await c.session.threads.rename(arg)
    info = await c.session.threads.info()
    c.r.line(t("title_show", title=(info.title if info else "") or t("title_none")))


async def fork(c: SlashContext, arg: str) -> None:
    """/fork [N]: a new thread from this one's first N turns (default all); the session goes on there."""
    at = count_arg(arg, None)
    if at == 0:
        c.r.error(t("fork_usage"))
        return
    info = await c.session.threads.info()
    if info is None or not info.turns:
        c.r.error(t("fork_empty"))
        return
    try:
        copy = await c.session.fork(at)
    except StoreError as e:
        c.r.error(t(e.key, **e.fmt))
        return
    c.r.line(t("forked", src=copy.source, n=copy.turns, id=copy.thread_id))
    await c.switch(copy.thread_id)


async def rewind(c: SlashContext, arg: str) -> None:
    """/rewind [N]: the last N turns (default 1) leave what the model sees next; kept in a thread."""
    n = count_arg(arg, 1)
    if not n:
        c.r.error(t("rewind_usage"))
        return
    try:
        done = await c.session.rewind(n)
    except StoreError as e:
        c.r.error(t(e.key, **e.fmt))
        return
    c.r.line(t("rewound", n=done.taken, kept=done.kept))
    c.r.line(t("rewound_kept", backup=done.backup))
    if done.tools:
        c.r.notice(t("rewind_tools", names=", ".join(done.tools)), warning=True)


def count_arg(arg: str, default: int | None) -> int | None:
    """`N` (1 or more) -> N; empty -> default; anything else -> 0 (a usage error)."""
    text = arg.strip()
    if not text:
        return default
    return int(text) if text.isdigit() and int(text) >= 1 else 0


def origin(th: ThreadInfo, short: bool = False) -> str:
    """Where a thread's first turns came from, in words ("" for a thread of its own); `short`: the
    parent's id cut to a prefix that /resume takes (a table's column)."""
    parent = th.parent_id[:SHORT_ID] if short and len(th.parent_id) > SHORT_ID + 1 else th.parent_id
    if th.kind == "rewind":
        return t("origin_rewind", id=parent, n=th.parent_turn) if parent else t("origin_orphan_rewind")
    if th.kind == "fork" and parent:
        return t("origin_fork", id=parent, n=th.parent_turn)
    return ""


def when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


async def print_threads(store: Store, r: Renderer) -> None:
    """`mcp-chat threads`: one tab-separated line per thread (id, turns, last activity, title)."""
    found = await store.list_threads()
    if not found:
        r.line(t("threads_empty"))
    for th in found:  # one line each, whatever a title holds (r.line masks and cleans); a fork says whence
        came = origin(th)
        r.line(f"{th.thread_id}\t{th.turns}\t{when(th.updated_at)}\t{one_line(th.title)}" + (f"\t{one_line(came)}" if came else ""))
