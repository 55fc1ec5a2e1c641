"""Compact JSON for stored messages (the transcript), and back.

What is written here is masked first (client/core/secrets.py `mask_value`): a known secret in a
message, a tool call's arguments or a title never reaches a row, whoever typed or returned it.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from client.core.memory.parse import OWN
from client.core.secrets import mask, mask_value

TITLE_CHARS = 40  # a title taken from the first message
TITLE_MAX = 100  # a title the user gave (/title)
ROLE = {SystemMessage: "system", HumanMessage: "user", AIMessage: "assistant", ToolMessage: "tool"}


def role_of(m: BaseMessage) -> str:
    for cls, role in ROLE.items():
        if isinstance(m, cls):
            return role
    return m.type


def encode(m: BaseMessage) -> str:
    """Only what a transcript needs; no provider metadata, never a credential."""
    d: dict[str, Any] = {"r": role_of(m), "c": m.content}
    if isinstance(m, AIMessage) and m.tool_calls:
        d["tc"] = [{"n": tc["name"], "a": tc.get("args", {}), "i": tc.get("id")} for tc in m.tool_calls]
    if isinstance(m, ToolMessage):
        d["ti"] = m.tool_call_id
        if m.status == "error":
            d["err"] = 1
        if m.additional_kwargs.get("permission"):  # allow:<why> / deny:<why> (client/engine/mcp/gate.py)
            d["p"] = str(m.additional_kwargs["permission"])
        if m.additional_kwargs.get("sampling"):  # what the server sampled during the call (client/engine/mcp/gate.py)
            d["s"] = list(m.additional_kwargs["sampling"])
    if m.name:
        d["n"] = m.name
    own = m.additional_kwargs.get(OWN)  # a -p message's own line beside its piped stdin (client/core/memory/parse.py)
    if isinstance(m, HumanMessage) and isinstance(own, str):
        d["o"] = own
    flags = {k: True for k in ("synthetic", "repaired", "interrupted") if m.additional_kwargs.get(k)}
    if flags:
        d["f"] = sorted(flags)
    covers = m.additional_kwargs.get("covers")  # a summary answer: the last turn it folds (client/core/forks.py)
    if isinstance(m, AIMessage) and isinstance(covers, int) and not isinstance(covers, bool):
        d["u"] = covers
    return json.dumps(mask_value(d), ensure_ascii=False, separators=(",", ":"))


def stored_title(text: str) -> str:
    """A thread's title as stored: one line, known secrets masked, at most TITLE_MAX characters."""
    return mask(" ".join(text.split()))[:TITLE_MAX]


def decode(data: str, msg_id: str | None = None) -> BaseMessage:
    d = json.loads(data)
    kw: dict[str, Any] = {"content": d.get("c", ""), "id": msg_id}
    if d.get("n"):
        kw["name"] = d["n"]
    if d.get("f"):
        kw["additional_kwargs"] = {k: True for k in d["f"]}
    role = d.get("r")
    if role == "system":
        return SystemMessage(**kw)
    if role == "user":
        if isinstance(d.get("o"), str):
            kw["additional_kwargs"] = {**kw.get("additional_kwargs", {}), OWN: d["o"]}
        return HumanMessage(**kw)
    if role == "tool":
        if d.get("p"):
            kw["additional_kwargs"] = {**kw.get("additional_kwargs", {}), "permission": d["p"]}
        if d.get("s"):
            kw["additional_kwargs"] = {**kw.get("additional_kwargs", {}), "sampling": d["s"]}
        return ToolMessage(tool_call_id=d.get("ti", ""), status="error" if d.get("err") else "success", **kw)
    calls = [{"name": c["n"], "args": c.get("a", {}), "id": c.get("i"), "type": "tool_call"} for c in d.get("tc", [])]
    if isinstance(d.get("u"), int) and not isinstance(d.get("u"), bool):
        kw["additional_kwargs"] = {**kw.get("additional_kwargs", {}), "covers": d["u"]}
    return AIMessage(tool_calls=calls, **kw)


def number_rows(thread_id: str, messages: "Sequence[BaseMessage]", turns: int, title: str, seq: int,
                now: float) -> tuple[list[tuple], int, str]:
    """Transcript rows (thread, seq, msg id, turn, data, time) for appended
    messages, the thread's turn count after them, and its title (the start of
    the first real user message). Shared by every backend."""
    from client.core.context import is_turn_start, text_of

    rows = []
    for m in messages:
        if is_turn_start(m):
            turns += 1
            if not title:
                title = mask(" ".join(text_of(m).split()))[:TITLE_CHARS]  # masked before it is cut
        seq += 1
        rows.append((thread_id, seq, m.id, turns, encode(m), now))
    return rows, turns, title


def transcript_bytes(m: BaseMessage) -> int:
    """UTF-8 size of a message's content and tool arguments/results (the bench's yardstick)."""
    from client.core.context import text_of

    n = len(text_of(m).encode())
    if isinstance(m, AIMessage):
        n += sum(len(json.dumps(tc.get("args", {}), ensure_ascii=False).encode()) for tc in m.tool_calls)
    return n
