"""Context, memory and model commands: /context /compact /summary /tokens /memory /forget /model /cls."""

from __future__ import annotations

from client.core.config import STRATEGIES
from client.core.faults import one_line
from client.core.secrets import redact, settings_secrets
from client.ui.i18n import t
from client.ui.slash.base import SlashContext


async def context(c: SlashContext, arg: str) -> None:
    if arg and not c.session.set_strategy(arg):
        c.r.error(t("opt_bad_choice", opt="/context", value=arg, choices=", ".join(STRATEGIES)))
        return
    rep = await c.session.context_report()
    c.r.line(f"context={rep.strategy} max_turns={rep.keep_turns} summary_after={rep.summary_after} "
             f"max_input_tokens={rep.max_input_tokens}")
    budget = rep.max_input_tokens
    c.r.line(t("context_now", turns=rep.turns, tokens=rep.tokens,
               pct=round(100 * rep.tokens / budget, 1) if budget else 0,
               summary=t("context_has_summary") if rep.has_summary else ""))


async def compact(c: SlashContext, focus: str) -> None:
    await c.compact(focus)


async def summary(c: SlashContext, arg: str) -> None:
    text = await c.session.current_summary()
    if text:
        c.r.block(text, t("summary_title"))
    else:
        c.r.line(t("summary_none"))


async def tokens(c: SlashContext, arg: str) -> None:
    """Per turn and in total, input and output tokens as the API reported them (every
    model call of a turn summed; summary and memory requests are not counted)."""
    usage = await c.session.threads.usage()
    if not usage:
        c.r.line(t("tokens_none"))
        return
    rows: list[list[object]] = []
    for u in usage:
        i, o = u.input_tokens, u.output_tokens
        rows.append([u.turn, _n(i), _n(o), (i or 0) + (o or 0) if i is not None or o is not None else "-"])
    tin = sum(u.input_tokens or 0 for u in usage)
    tout = sum(u.output_tokens or 0 for u in usage)
    rows.append([t("tokens_total"), tin, tout, tin + tout])
    c.r.table([t("col_turn"), t("col_input"), t("col_output"), t("col_sum")], rows,
              title=t("tokens_title", id=c.session.thread_id), header=True)


MEMORY_TITLE = 30  # characters of a session's title beside a memory item


async def memory(c: SlashContext, arg: str) -> None:
    """/memory: each item with its score and where it came from (the session, its title, the turns),
    so /forget N is a confident choice."""
    if c.session.memory is None:
        c.r.line(t("memory_off"))
        return
    await c.session.memory_settled()
    items = await c.session.memory.list()
    if not items:
        c.r.line(t("memory_empty"))
    titles: dict[str, str] = {}
    for i, b in enumerate(items, 1):
        score = f"{b.score:.2f}" if b.score is not None else "-"
        if b.thread_id not in titles:
            info = await c.session.threads.info(b.thread_id) if b.thread_id else None
            titles[b.thread_id] = " ".join((info.title if info else "").split())[:MEMORY_TITLE]
        title = titles[b.thread_id]
        where = t("memory_source", id=b.thread_id[:12], title=f' "{title}"' if title else "",
                  turns=",".join(map(str, b.sources)) or "-")
        c.r.line(f"{i:>3}. [{score}] {b.text}  ({where})")


async def forget(c: SlashContext, arg: str) -> None:
    if c.session.memory is None:
        c.r.line(t("memory_off"))
        return
    n = int(arg) if arg.isdigit() else 0
    gone = await c.session.memory.forget(n)
    if gone is None:
        c.r.error(t("no_memory_item", n=arg))
    else:
        c.r.line(t("forgot", n=n, text=gone.text))


async def model(c: SlashContext, arg: str) -> None:
    """/model: the provider's models (current marked); /model NAME: switch until the chat ends, whichever
    session it is on (the process has one Models: /new and /resume keep it)."""
    from client.engine.models import list_models

    try:
        names = await list_models(c.s, c.session.models.runtime)
    except Exception as e:  # noqa: BLE001 - one line; switching by name still works
        names = None
        if not arg:
            c.r.error(t("models_failed", err=redact(one_line(e), settings_secrets(c.s))))
            return
    if not arg:
        if names is None:
            c.r.line(t("models_none"))
        for name in names or []:
            c.r.line(("* " if name == c.s.model else "  ") + name)
        return
    if names and arg not in names:
        c.r.error(t("model_unknown", model=arg))
        return
    c.session.models.switch(arg)  # every later request of the session: chat, summaries, memory, sampling
    c.r.info(t("model_switched", model=arg, budget=c.s.max_input_tokens))


async def cls(c: SlashContext, arg: str) -> None:
    """The screen only (as Ctrl-L at the prompt); /clear starts a fresh context."""
    c.r.clear()


def _n(v: int | None) -> object:
    return "-" if v is None else v
