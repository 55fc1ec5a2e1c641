"""The terminal question before a tool call runs: allow once / for the session / always / deny.

Asked through the terminal's frontend (client/ui/frontend.py; client/engine/mcp/permissions.py
decides when to ask) only when stdin and stdout are terminals. The turn's spinner is paused, typeahead is dropped (keys
pressed while the model was working must not answer), and one key answers, read by an async
prompt_toolkit application: the event loop keeps running. Ctrl-C, Ctrl-D, Esc and Enter deny.
"""

from __future__ import annotations

import sys

from rich.text import Text

from client.ui.i18n import t
from client.engine.frontend import ApprovalRequest
from client.ui.safe_text import escape_invisible, screen
from client.ui.render_rich import RichRenderer

# answer -> keys (the Korean 2-set layout puts ㅛ/ㅁ/ㄴ/ㅜ on y/a/s/n)
KEYS: dict[str, tuple[str, ...]] = {
    "once": ("y", "Y", "ㅛ"),
    "session": ("a", "A", "ㅁ"),
    "always": ("s", "S", "ㄴ"),
    "deny": ("n", "N", "ㅜ", "escape", "c-c", "c-d", "enter"),
}


class TerminalApprover:
    def __init__(self, renderer: RichRenderer) -> None:
        self.r = renderer

    async def __call__(self, req: ApprovalRequest) -> str:
        with self.r.paused():
            self.show(req)
            _drop_typeahead()
            answer = await read_key(t("perm_keys"))
            if answer == "deny":
                self.r.console.print(Text(t("perm_answer_deny"), style="red"))
            else:
                self.r.console.print(Text(t("perm_answer_allow", why=t("perm_why_" + answer)), style="green"))
        return answer

    def show(self, req: ApprovalRequest) -> None:
        out = self.r.console
        out.print(Text.assemble(("? ", "bold yellow"), (t("perm_title"), "bold")))
        out.print(Text.assemble((f"  {t('perm_server')}: ", "dim"), screen(req.server), (f"  ({screen(req.where)})", "dim")))
        tool = Text.assemble((f"  {t('perm_tool')}: ", "dim"), (screen(req.tool), "bold cyan"))
        if req.destructive:
            tool.append(f"  {t('perm_destructive')}", style="yellow")
        out.print(tool)
        if req.changed:  # approved before: say what is different now
            what = ", ".join(t("perm_part_" + p) for p in req.changed)
            out.print(Text("  " + t("perm_changed", what=what), style="bold yellow"))
        out.print(Text(f"  {t('perm_args')}:", style="dim"))
        for line in screen(escape_invisible(req.args)).splitlines():  # JSON: \u202e shown, not obeyed
            out.print(Text("    " + line), overflow="fold")
        if req.hidden:
            out.print(Text("    " + t("perm_more", n=req.hidden), style="dim"))


async def read_key(prompt: str) -> str:
    """One key press -> an answer of KEYS (other keys are ignored)."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    kb = KeyBindings()
    for answer, keys in KEYS.items():
        for key in keys:
            kb.add(key)(lambda event, a=answer: event.app.exit(result=a))
    kb.add("<any>")(lambda event: None)
    control = FormattedTextControl([("bold", prompt + " ")], show_cursor=True)
    app: Application[str] = Application(layout=Layout(Window(control, height=1)), key_bindings=kb,
                                        full_screen=False, erase_when_done=True)
    # handle_sigint=False: the REPL's own SIGINT handler stays installed (Ctrl-C is a key here).
    return await app.run_async(handle_sigint=False)


def _drop_typeahead() -> None:
    try:
        import termios

        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except Exception:  # noqa: BLE001 - no terminal: nothing typed ahead
        pass


__all__ = ["KEYS", "TerminalApprover", "read_key"]
