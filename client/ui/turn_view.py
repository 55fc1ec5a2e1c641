"""How a turn's events and the memory passes' results look: one renderer call each."""

from __future__ import annotations

from typing import Iterable

from client.engine.events import Notice, Refused, Text, ToolCall, ToolResult
from client.engine.memory.manager import MemoryUpdate
from client.engine.toolcalls import REFUSED_LABEL
from client.ui.i18n import t
from client.ui.oneshot import Capture
from client.ui.render import Renderer, clean, redact


def show_event(r: Renderer, ev: object, capture: Capture | None = None) -> None:
    """One event of a turn (client/engine/events.py); with -p also what `capture` keeps of it."""
    if isinstance(ev, Text):
        if capture is None or capture.stream:
            r.stream(ev.delta)
    elif isinstance(ev, ToolCall):
        r.tool_call(ev.name, ev.args)
    elif isinstance(ev, ToolResult):
        denied = ev.permission.startswith("deny:")
        if ev.permission == REFUSED_LABEL:  # the model's arguments were unreadable: one line
            r.tool_result(t("tool_args_refused", name=clean(ev.name)), True, ev.name)
        else:
            r.tool_result(t("perm_denied_result") if denied else ev.content, ev.error, ev.name)
    elif isinstance(ev, Notice):
        text = t(ev.key, **ev.fmt)
        if ev.error:  # e.g. an approval that could not be saved
            r.error(text)
        else:
            r.notice(text, ev.warning)
        if capture is not None:
            capture.notices.append(text)
    elif isinstance(ev, Refused):
        r.error(t(ev.key, **ev.fmt))
        if capture is not None:
            capture.fail("refused", t(ev.key, **ev.fmt))


def show_memory(r: Renderer, finished: Iterable[tuple[str, MemoryUpdate]], secrets: list[str],
                kept_before: bool = False) -> bool:
    """The memory passes that finished since the last report, in one line (passes after several
    answers of one thread are one piece of work to the user); an error on a line of its own.
    `kept_before`: an earlier report of this session kept something, so a later pass that keeps
    nothing new says nothing (not "nothing of this session is kept"). True once something is kept."""
    done = list(finished)
    for err in dict.fromkeys(up.error for _, up in done if up.error):
        r.error(t("memory_failed", err=redact(err, secrets)))
    ok = [up for _, up in done if not up.error]
    if not ok:
        return kept_before
    if any(up.unscored for up in ok):
        r.error(t("memory_unscored"))
    candidates = sum(up.candidates for up in ok)
    added, updated = sum(up.added for up in ok), sum(up.updated for up in ok)
    if not added and not updated:
        if not kept_before:  # say it plainly: nothing of this session is remembered
            r.info(t("memory_nothing_kept", candidates=candidates))
        return kept_before
    r.info(t("memory_saved", candidates=candidates, added=added, updated=updated))
    return True