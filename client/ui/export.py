"""A thread's full transcript as Markdown or JSON.

Both are masked (every known secret, client/core/secrets.py; `secrets` adds more) and safe to
`cat`: JSON escapes every control, bidi and zero-width character (the same value), Markdown
writes control characters as `\\x1b`. Markdown is valid CommonMark whatever a message holds:
each message has its own heading and block (client/ui/md_blocks.py closes what it leaves open),
tool arguments and results sit in fences longer than any inside them.
"""

from __future__ import annotations

import json
import re
from typing import Callable, Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context import is_synthetic, text_of
from client.core.secrets import MASK, Redactor, known
from client.engine.store import ThreadInfo
from client.engine.store.codec import role_of
from client.ui.i18n import t
from client.ui.md_blocks import code_span, contained, fenced, inline
from client.ui.safe_text import clean, escape_invisible, json_text


def to_json(info: ThreadInfo | None, rows: Sequence[tuple[int, BaseMessage]], secrets: Sequence[str] = ()) -> str:
    """The thread as JSON; every known secret and `secrets` masked."""
    items = []
    for turn, m in rows:
        d: dict = {"turn": turn, "role": role_of(m), "content": text_of(m)}
        if isinstance(m, AIMessage) and m.tool_calls:
            d["tool_calls"] = [{"id": c.get("id"), "name": c["name"], "args": c.get("args", {})} for c in m.tool_calls]
        if isinstance(m, ToolMessage):
            d["tool_call_id"] = m.tool_call_id
            d["name"] = m.name
            d["error"] = m.status == "error"
            if m.additional_kwargs.get("permission"):
                d["permission"] = m.additional_kwargs["permission"]  # allow:once, deny:user, ...
            if m.additional_kwargs.get("sampling"):
                d["sampling"] = m.additional_kwargs["sampling"]  # [{server, decision, request, answer}]
        if is_synthetic(m):
            d["synthetic"] = True
        items.append(d)
    doc = {
        "thread_id": info.thread_id if info else None,
        "title": info.title if info else "",
        "turns": info.turns if info else 0,
        **({"parent": {"thread_id": info.parent_id, "turn": info.parent_turn, "kind": info.kind}}
           if info and info.parent_id else {}),  # its first `turn` turns are that thread's (fork, rewind)
        "messages": items,
    }
    return json_text(doc, extra=secrets)


_HOLE = "\ue000"  # where a secret was, until the prose is laid out
_ALONE = re.compile(rf"^([ \t]*){_HOLE}([ \t]*)$", re.M)


def perm_words(label: str) -> str:
    """`allow:once` -> `허용 (이번만 허용)` in the UI language."""
    kind, _, why = label.partition(":")
    return t("export_perm_" + kind, why=t("perm_why_" + why))


def to_markdown(info: ThreadInfo | None, rows: Sequence[tuple[int, BaseMessage]], secrets: Sequence[str] = (),
                terminal: bool = False) -> str:
    """The thread as Markdown; every known secret and `secrets` masked. For a `terminal` every
    text is cleaned (client/ui/safe_text.py) instead of having its controls written out."""
    r = Redactor([*known(), *secrets])

    def prose(text: str) -> str:  # a line that is only the mask would be a thematic break: escaped there
        return _ALONE.sub(r"\1\\*\\*\\*\2", raw(text, _HOLE)).replace(_HOLE, MASK)

    def raw(text: str, hole: str = MASK) -> str:
        return r(clean(text) if terminal else text, hole)

    lines = [f"# {inline(prose(info.title if info and info.title else (info.thread_id if info else '')))}", ""]
    if info:
        lines += [f"- thread: {code_span(info.thread_id)}", f"- turns: {info.turns}"]
        if info.parent_id:  # a fork (or rewound turns): its first turns are that thread's
            lines.append(f"- {info.kind or 'fork'}: {code_span(info.parent_id)} @ {info.parent_turn}")
        lines.append("")
    last_turn = 0
    for turn, m in rows:
        if isinstance(m, SystemMessage):
            lines += ["**system**", "", *fenced(raw(text_of(m)), "text"), ""]
            continue
        if is_synthetic(m):
            if isinstance(m, AIMessage):
                lines += [t("export_summary", text=inline(prose(text_of(m)))), ""]
            continue
        if isinstance(m, HumanMessage) and turn != last_turn:
            last_turn = turn
            lines += [t("export_turn", n=turn), ""]
        lines += _message(m, prose, raw)
    return r("\n".join(lines).rstrip() + "\n")  # a backstop: each piece is masked already


def _message(m: BaseMessage, prose: Callable[[str], str], raw: Callable[[str], str]) -> list[str]:
    if isinstance(m, HumanMessage):
        return ["### user", "", contained(prose(text_of(m))), ""]
    if isinstance(m, ToolMessage):
        name = code_span(m.name or "")
        out: list[str] = []
        perm = m.additional_kwargs.get("permission")
        if perm:
            out += [f"**permission** {name}: {perm_words(perm)}", ""]
        for sm in m.additional_kwargs.get("sampling") or []:
            words = perm_words(sm.get("decision", "deny:user"))
            out += [f"**sampling** {code_span(str(sm.get('server', '')))} ({words}): {inline(prose(str(sm.get('request', ''))))}"
                    + (f" → {inline(prose(str(sm['answer'])))}" if sm.get("answer") else ""), ""]
        tag = "tool error" if m.status == "error" else "tool result"
        return out + [f"### {tag} {name}", "", *fenced(raw(text_of(m))), ""]
    out = []
    if isinstance(m, AIMessage):
        for c in m.tool_calls:
            args = escape_invisible(json.dumps(c.get("args", {}), ensure_ascii=False, indent=1))
            out += [f"### tool call {code_span(c['name'])}", "", *fenced(raw(args), "json"), ""]
    if text_of(m).strip():
        out += ["### assistant", "", contained(prose(text_of(m))), ""]
    return out
