"""`mcp-chat -p`: one message, one answer, exit. `--output-format json` for scripts.

The turn runs through the REPL's own turn loop (client/ui/repl.py); a Capture records
what happened so the JSON object can be written once the turn is over. Whatever else ends
the run (a bad option, a rejected key, a database that cannot be opened, Ctrl-C) writes the
same object with `error`, `error_kind` and `exit_code` instead (client/ui/failures.py `JSON_OUT`):
exactly one object on stdout for every outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from client.engine.events import Text, ToolCall, ToolResult, TurnDone
from client.ui.safe_text import json_text

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130


@dataclass
class Capture:
    stream: bool = True  # text mode streams the answer to stdout as it comes
    answer: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    done: TurnDone | None = None
    error: str | None = None
    kind: str | None = None  # the error's kind (client/ui/failures.py)
    interrupted: bool = False

    def record(self, ev: object) -> None:
        if isinstance(ev, Text):
            self.answer += ev.delta
        elif isinstance(ev, ToolCall):
            self.tool_calls.append({"name": ev.name, "args": ev.args})
        elif isinstance(ev, ToolResult):
            call = next((c for c in self.tool_calls if c["name"] == ev.name and "result" not in c), None)
            if call is None:
                call = {"name": ev.name, "args": {}}
                self.tool_calls.append(call)
            call["result"] = ev.content
            call["error"] = ev.error
        elif isinstance(ev, TurnDone):
            self.done = ev

    def fail(self, kind: str, message: str) -> None:
        self.kind, self.error = kind, message

    @property
    def code(self) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        return EXIT_FAILED if self.error or self.done is None else EXIT_OK


def context_action(done: TurnDone | None) -> str:
    """What the context policy did before the request: none, trimmed or summarized."""
    if done is None:
        return "none"
    if done.summarized:
        return "summarized"
    return "trimmed" if done.trimmed else "none"


def to_json(cap: Capture, thread_id: str | None, model: str | None, strategy: str | None, code: int | None = None) -> str:
    st = cap.done.stats if cap.done else None
    doc: dict[str, Any] = {
        "answer": cap.answer,
        "thread_id": thread_id,
        "model": model,
        "tool_calls": cap.tool_calls,
        "usage": {
            "input_tokens": st.input_total if st and st.input_total else None,
            "output_tokens": st.output_total if st and st.output_total else None,
            "estimated_input_tokens": st.estimated if st else None,
            "model_calls": st.calls if st else 0,
        },
        "context": {
            "action": context_action(cap.done),
            "strategy": strategy,
            "trimmed_turns": cap.done.trimmed if cap.done else 0,
            "summarized": bool(cap.done and cap.done.summarized),
            "turns_in_context": cap.done.turns_in_context if cap.done else 0,
            "budget": cap.done.budget if cap.done else None,
        },
        "notices": cap.notices,
        "error": cap.error,
        "error_kind": cap.kind or ("internal" if cap.error or cap.done is None else None),
        "exit_code": cap.code if code is None else code,
    }
    return json_text(doc, indent=None)  # known secrets masked, nothing invisible or active in its bytes

