"""What a turn produces, as typed events, and the one way engine code inside a turn adds to them.

`ChatSession.turn` yields these; the ui renders them (client/ui/repl.py). Code that runs inside
the agent's graph (middleware, the permission gate) cannot yield: it calls `notify`, which
writes to the graph's custom stream, and the session turns that into a `Notice` of the turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, RemoveMessage, ToolMessage

from client.core.context import text_of
from client.engine.toolcalls import refused_ids


@dataclass
class RequestStats:
    """What the last model request of a turn looked like."""

    estimated: int = 0
    reported: int | None = None
    output: int | None = None
    dropped_turns: int = 0
    calls: int = 0
    input_total: int = 0
    output_total: int = 0
    model_seconds: float = 0.0  # inside model calls (HTTP + SDK), to tell client work apart


@dataclass
class Text:
    delta: str


@dataclass
class ToolCall:
    name: str
    args: dict


@dataclass
class ToolResult:
    name: str
    content: str
    error: bool
    permission: str = ""  # allow:<why> / deny:<why> (client/engine/mcp/permissions.py), "" when not gated


@dataclass
class Notice:
    key: str
    fmt: dict = field(default_factory=dict)
    warning: bool = False
    error: bool = False  # shown as an error line (e.g. a permission that could not be saved)


@dataclass
class TurnDone:
    stats: RequestStats
    turns_in_context: int
    trimmed: int
    summarized: bool
    budget: int


@dataclass
class Refused:
    key: str
    fmt: dict


Event = Text | ToolCall | ToolResult | Notice | TurnDone | Refused


def notify(key: str, fmt: dict[str, Any] | None = None, *, error: bool = False) -> None:
    """A notice of the running turn, from code inside the graph (shown by the ui at once);
    outside a graph run there is nobody to tell and nothing happens."""
    from langgraph.config import get_stream_writer

    try:
        get_stream_writer()({"notice": key, "fmt": fmt or {}, "error": error})
    except Exception:  # noqa: BLE001 - outside a graph run
        pass


def stream_events(mode: str, data: Any) -> list[Event]:
    """The events of one item of the agent's stream (modes messages, updates, custom)."""
    out: list[Event] = []
    if mode == "messages":
        chunk, meta = data
        if isinstance(chunk, AIMessageChunk) and meta.get("langgraph_node") == "model":
            t = text_of(chunk)
            if t:
                out.append(Text(t))
    elif mode == "custom" and isinstance(data, dict) and data.get("notice"):
        out.append(Notice(data["notice"], data.get("fmt", {}), warning=True, error=bool(data.get("error"))))
    elif mode == "updates" and isinstance(data, dict):
        for node, update in data.items():
            msgs = (update or {}).get("messages", []) if isinstance(update, dict) else []
            if msgs and isinstance(msgs[0], RemoveMessage):  # a repaired history, then the new answer
                msgs = msgs[-1:]
            for m in msgs:
                if node == "model" and isinstance(m, AIMessage):
                    hidden = refused_ids(m)  # shown once, as their refusal (client/engine/toolcalls.py)
                    out.extend(ToolCall(tc["name"], tc.get("args", {})) for tc in m.tool_calls if tc.get("id") not in hidden)
                elif node == "tools" and isinstance(m, ToolMessage):
                    out.append(ToolResult(m.name or "", text_of(m), m.status == "error",
                                          str(m.additional_kwargs.get("permission", ""))))
    return out
