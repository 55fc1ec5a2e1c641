"""A thread's full transcript as Markdown or JSON."""

from __future__ import annotations

import json
from typing import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.context import is_synthetic, text_of
from client.core.secrets import Redactor, env_secrets
from client.ui.i18n import t
from client.engine.store import ThreadInfo
from client.engine.store.codec import role_of


def to_json(info: ThreadInfo | None, rows: Sequence[tuple[int, BaseMessage]], secrets: Sequence[str] | None = None) -> str:
    """The thread as JSON; `secrets` (default: the environment's) masked."""
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
        "messages": items,
    }
    return _redactor(secrets)(json.dumps(doc, ensure_ascii=False, indent=2))


def perm_words(label: str) -> str:
    """`allow:once` -> `허용 (이번만 허용)` in the UI language."""
    kind, _, why = label.partition(":")
    return t("export_perm_" + kind, why=t("perm_why_" + why))


def to_markdown(info: ThreadInfo | None, rows: Sequence[tuple[int, BaseMessage]], secrets: Sequence[str] | None = None) -> str:
    """The thread as Markdown; `secrets` (default: the environment's) masked."""
    lines = [f"# {info.title if info and info.title else (info.thread_id if info else '')}", ""]
    if info:
        lines += [f"- thread: `{info.thread_id}`", f"- turns: {info.turns}", ""]
    last_turn = 0
    for turn, m in rows:
        if isinstance(m, SystemMessage):
            lines += [f"> system: {text_of(m)}", ""]
            continue
        if is_synthetic(m):
            if isinstance(m, AIMessage):
                lines += [t("export_summary", text=text_of(m).replace("\n", " ")), ""]
            continue
        if isinstance(m, HumanMessage) and turn != last_turn:
            last_turn = turn
            lines += [t("export_turn", n=turn), ""]
        if isinstance(m, HumanMessage):
            lines += [f"**user**: {text_of(m)}", ""]
        elif isinstance(m, ToolMessage):
            tag = "tool error" if m.status == "error" else "tool result"
            perm = m.additional_kwargs.get("permission")
            if perm:
                lines += [f"**permission** `{m.name or ''}`: {perm_words(perm)}", ""]
            for sm in m.additional_kwargs.get("sampling") or []:
                words = perm_words(sm.get("decision", "deny:user"))
                lines += [f"**sampling** `{sm.get('server', '')}` ({words}): {sm.get('request', '')}"
                          + (f" → {sm['answer']}" if sm.get("answer") else ""), ""]
            lines += [f"**{tag}** `{m.name or ''}`:", "", "```", text_of(m), "```", ""]
        elif isinstance(m, AIMessage):
            for c in m.tool_calls:
                lines += [f"**tool call** `{c['name']}` `{json.dumps(c.get('args', {}), ensure_ascii=False)}`", ""]
            if text_of(m).strip():
                lines += [f"**assistant**: {text_of(m)}", ""]
    return _redactor(secrets)("\n".join(lines).rstrip() + "\n")


def _redactor(secrets: Sequence[str] | None) -> Redactor:
    # a key the user pasted into a message must not leave through a file meant for sharing
    return Redactor(env_secrets() if secrets is None else secrets)
