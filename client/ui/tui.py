"""The interactive terminal: prompt_toolkit input, per-user history, the rich renderer.

Used only when stdin and stdout are both terminals (and TERM is not `dumb`); piped input or
output keeps the plain LineReader and Renderer, byte for byte.

Keys at the prompt: Enter sends; Esc Enter (or Alt-Enter) inserts a newline; a paste keeps its
newlines in one message; Up/Down walk the history; Ctrl-C clears a typed line and exits at an
empty prompt; Ctrl-D exits. During a turn the terminal is back in cooked mode with echo off, so
Ctrl-C reaches the REPL's SIGINT handler (which cancels that turn only) and stray typing does not
scribble over the answer.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from client.ui.slash.table import TABLE
from client.core.paths import safe_name
from client.ui.env_settings import dirs
from client.ui.render import Renderer


def interactive() -> bool:
    try:
        ttys = sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False
    return ttys and os.environ.get("TERM", "") != "dumb"


def make_renderer() -> Renderer:
    if interactive():
        from client.ui.render_rich import RichRenderer

        return RichRenderer()
    return Renderer()


def history_path(user: str) -> Path:
    """One input-history file per `--user`, outside the working directory."""
    return dirs().data / f"history-{safe_name(user)}"


def _open_history(user: str):  # -> prompt_toolkit History
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    path = history_path(user)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.close(os.open(path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600))  # private from the start
        return FileHistory(str(path))
    except OSError:  # read-only home, ...: history for this session only
        return InMemoryHistory()


def _bindings():  # -> KeyBindings
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()

    @kb.add("c-c")
    def _ctrl_c(event) -> None:  # type: ignore[no-untyped-def]
        buf = event.current_buffer
        if buf.text:
            buf.reset()  # like a shell: drop the line, stay at the prompt
        else:
            event.app.exit(exception=EOFError(), style="class:exiting")

    @kb.add("escape", "enter")
    def _newline(event) -> None:  # type: ignore[no-untyped-def]
        event.current_buffer.insert_text("\n")

    return kb


def _completer():  # -> Completer: slash commands after a leading '/'
    from prompt_toolkit.completion import Completer, Completion

    class Slash(Completer):
        def get_completions(self, document, complete_event):  # type: ignore[no-untyped-def]
            text = document.text_before_cursor
            if not text.startswith("/") or " " in text:
                return
            for entry in TABLE:
                if entry.name.startswith(text[1:]):
                    yield Completion("/" + entry.name, start_position=-len(text), display_meta=entry.shown_hint)

    return Slash()


class TtyReader:
    """prompt_toolkit input with the same `read` as LineReader: a line, or None to leave."""

    def __init__(self, user: str) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.styles import Style

        style = Style.from_dict({"prompt": "ansicyan bold", "continuation": "ansibrightblack"})
        self.main = PromptSession(history=_open_history(user), key_bindings=_bindings(), completer=_completer(),
                                  complete_while_typing=True, style=style, enable_open_in_editor=False,
                                  prompt_continuation=lambda width, *_: [("class:continuation", "… ".rjust(width))])
        self.other = PromptSession(key_bindings=_bindings(), style=style)  # thread id, y/N: not in history
        # the bottom toolbar at the main prompt while it says something (the MCP servers still
        # starting, client/ui/mcp_view.py starting_line); redrawn every second for its timer
        self.status: Callable[[], str | None] | None = None

    async def read(self, prompt: str | None = None, *, main: bool = False) -> str | None:
        session = self.main if main else self.other
        message = [("", "\n"), ("class:prompt", "❯ ")] if main else [("class:prompt", prompt or "")]
        extra = self._toolbar() if main else {}
        try:
            # handle_sigint=False: the REPL's own SIGINT handler stays installed; at the
            # prompt Ctrl-C is a key (raw mode), handled by the binding above.
            return await session.prompt_async(message, handle_sigint=False, **extra)
        except (EOFError, KeyboardInterrupt):
            return None

    def _toolbar(self) -> dict:
        """prompt_async options for the status toolbar: shown while `status` has a text, then gone
        (from the next redraw on: prompt_toolkit hides a toolbar that is None)."""
        status, ptk = self.status, self.main
        if status is None or not status():
            return {"bottom_toolbar": None, "refresh_interval": 0}

        def text() -> str:
            line = status()
            if line is None:
                ptk.bottom_toolbar = None  # hidden from the next redraw on
                return ""
            return " " + line

        return {"bottom_toolbar": text, "refresh_interval": 1.0}  # redrawn every second: the timer ticks


@contextmanager
def quiet_input() -> Iterator[None]:
    """While a turn runs: no echo of stray keys (Ctrl-C still signals); typeahead dropped after."""
    saved = None
    try:
        import termios  # POSIX only

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except Exception:  # noqa: BLE001 - no termios, no terminal: nothing to quiet
        pass
    if saved is None:
        yield
        return
    quiet = list(saved)
    quiet[3] = (quiet[3] & ~termios.ECHO) | termios.ISIG
    try:
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
        yield
    finally:
        try:
            termios.tcflush(fd, termios.TCIFLUSH)
            termios.tcsetattr(fd, termios.TCSANOW, saved)
        except termios.error:
            pass


__all__ = ["TtyReader", "history_path", "interactive", "make_renderer", "quiet_input"]
