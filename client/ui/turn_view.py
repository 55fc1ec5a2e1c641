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
            capture.error = t(ev.key, **ev.fmt)


def show_memory(r: Renderer, finished: Iterable[tuple[str, MemoryUpdate]], secrets: list[str]) -> None:
    """One line per memory pass that finished (client/engine/memory/background.py)."""
    for _, up in finished:
        if up.error:
            r.error(t("memory_failed", err=redact(up.error, secrets)))
            continue
        if up.unscored:
            r.error(t("memory_unscored"))
        if not up.added and not up.updated:  # say it plainly: nothing of this session is remembered
            r.info(t("memory_nothing_kept", candidates=up.candidates))
        else:
            r.info(t("memory_saved", candidates=up.candidates, added=up.added, updated=up.updated))
