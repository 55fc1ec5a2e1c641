"""Terminal side of server requests: the elicitation form and the sampling / URL questions.

UI layer: asks through the REPL's reader (prompt_toolkit at a terminal; async, the event loop
keeps running) and prints through the renderer. The engine (client/engine/mcp/features.py) reaches
them through the terminal's frontend (client/ui/frontend.py); without a terminal nobody is asked
and the engine declines by itself.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

from client.core.config import YES_WORDS
from client.ui.i18n import t
from client.engine.frontend import Field
from client.engine.mcp.features import BadValue, coerce, missing_required
from client.ui.render import Renderer
from client.ui.safe_text import one_line

ReadFn = Callable[[str], Awaitable[str | None]]
DECLINE = ("/decline", "/거절")
CANCEL = ("/cancel", "/취소")


class TerminalForms:
    def __init__(self, read: ReadFn, r: Renderer) -> None:
        self.read = read
        self.r = r
        self._lock = asyncio.Lock()  # one question on screen at a time (servers may ask in parallel)

    async def _ask(self, prompt: str) -> str | None:
        live = getattr(self.r, "_live", None) is not None
        if live:
            self.r.end_turn()  # stop the spinner while the user types
        try:
            return await self.read(prompt)
        finally:
            if live:
                self.r.begin_turn()

    async def ask_form(self, server: str, message: str, fields: list[Field]) -> tuple[str, dict[str, Any] | None]:
        async with self._lock:
            self.r.line(t("elicit_title", server=server, message=message))
            self.r.hint(t("elicit_keys"))
            values: dict[str, Any] = {}
            for f in fields:
                self.r.line(field_line(f))
                while True:
                    answer = await self._ask(f"  {one_line(f.title)}: ")  # a server's words in our prompt
                    if answer is None or answer.strip().lower() in CANCEL:
                        self.r.line(t("elicit_cancelled"))
                        return "cancel", None
                    if answer.strip().lower() in DECLINE:
                        self.r.line(t("elicit_declined_user"))
                        return "decline", None
                    try:
                        values[f.name] = coerce(f, answer)
                        break
                    except BadValue:
                        self.r.error(t("elicit_bad_value", type=type_label(f)))
            missing = missing_required(fields, values)
            if missing:
                self.r.error(t("elicit_missing", names=", ".join(missing)))
                return "decline", None
            answer = await self._ask(t("elicit_send") + " ")
            if answer is None or answer.strip().lower() not in YES_WORDS:
                self.r.line(t("elicit_declined_user"))
                return "decline", None
            return "accept", values

    async def confirm(self, kind: str, server: str, summary: str) -> bool:
        async with self._lock:
            self.r.line(t(f"confirm_{kind}", server=server, summary=summary))
            answer = await self._ask(t("confirm_ask") + " ")
            return answer is not None and answer.strip().lower() in YES_WORDS


def type_label(f: Field) -> str:
    if f.enum:
        return ("[" if f.type == "array" else "") + " | ".join(f"{i}.{v}" for i, v in enumerate(f.enum, 1)) + \
            ("]" if f.type == "array" else "")
    return f.type


def field_line(f: Field) -> str:
    """`* name (integer, default 30): description` - one line per field."""
    bits = [type_label(f)]
    if f.default is not None:
        bits.append(t("elicit_default", value=f.default))
    mark = "*" if f.required else "-"
    desc = f": {f.description}" if f.description else ""
    return f"  {mark} {f.title} ({', '.join(bits)}){desc}"
