"""The prompt on screen at once, before the chat has loaded (issue 41).

A cold start spends seconds importing langchain and friends before prompt_toolkit can draw its
prompt. When the first thing the chat will do is read a message at the main prompt (a terminal,
no -p, the thread known without asking), `show` draws the prompt's glyph right after the command
line is parsed. The terminal is still in its ordinary (cooked) mode, so what the user types
meanwhile is echoed and kept by the terminal; `erase` clears the line just before the chat prints
its first line, and prompt_toolkit, once it takes over, reads the typed-ahead text into its real
prompt (an Enter typed early sends it at once).
"""

from __future__ import annotations

import os
import sys

from client.core.config import Settings

GLYPH = "\x1b[0;1;36m❯\x1b[0m "  # as the real prompt draws it (client/ui/tui.py: ansicyan bold)
_shown = False


def wanted(settings: Settings) -> bool:
    """The chat will go straight to its main prompt at a terminal: no question comes first."""
    try:
        ttys = sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False
    if not ttys or os.environ.get("TERM", "") == "dumb":
        return False
    if settings.prompt is not None or settings.require_tools or settings.debug or settings.provider == "local":
        return False  # one-shot; servers waited for; debug lines; the local model's setup prints first
    if settings.new or settings.thread or settings.continue_last or settings.resume:
        return True
    # no flag: the thread picker asks first unless there is no database yet (so no thread to pick)
    return settings.resume is None and "://" not in settings.db and not os.path.exists(settings.db)


def show(settings: Settings) -> None:
    global _shown
    if _shown or not wanted(settings):
        return
    try:
        sys.stdout.write(GLYPH)
        sys.stdout.flush()
        _shown = True
    except OSError:
        pass


def erase() -> None:
    """Clear the early prompt's line (and what was typed on it) before the chat's own output."""
    global _shown
    if not _shown:
        return
    _shown = False
    try:
        sys.stdout.write("\r\x1b[2K")
        sys.stdout.flush()
    except OSError:
        pass
