"""Stored and remote text at a real terminal (tmux): nothing in it acts on the terminal.

A model answer (steered by a web page) holds OSC 0 (retitles the pane) and OSC 52 (writes the
clipboard); a title typed into a pipe holds OSC 0 and "clear screen"; a tool call's arguments
hold bidi and zero-width characters. tmux applies what reaches it: `pipe-pane` records every
byte the program wrote, `#{pane_title}` shows a retitle, and with `set-clipboard on` an OSC 52
becomes a tmux paste buffer. (The same exports in a pipe: tests/faults/test_hygiene.py.)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests.conftest import ROOT
from tests.e2e.test_mcp_everything import write_config
from tests.tty.conftest import Pane
from tests.waits import HANG

ANSWER = "답 \x1b]0;PWNED\x07시작 \x1b]52;c;SGVsbG8=\x07복사 \u202eevil\u202c \u200b끝"
TITLE = "\x1b]0;PWNED\x07제목 \x1b[2J\x1b[H지움"
NOTES = str(ROOT / "tests" / "stubs" / "notes_server.py")


def _title(pane: Pane) -> str:
    return pane.tmux("display", "-p", "-t", "chat", "#{pane_title}").strip()


def _recorded(pane: Pane, raw: Path) -> None:
    """Every byte the program writes from now on lands in `raw`; OSC 52 would become a buffer."""
    pane.tmux("set", "-g", "set-clipboard", "on")
    pane.tmux("pipe-pane", "-t", "chat", "-o", f"cat >> {raw}")


def _wait_bytes(raw: Path, needle: bytes, timeout: float = HANG) -> bytes:
    end = time.monotonic() + timeout
    while True:
        data = raw.read_bytes() if raw.exists() else b""
        if needle in data or time.monotonic() > end:
            return data
        time.sleep(0.1)


def _held(tmp: Path, argv: list[str], env: dict[str, str], shown: str) -> Pane:
    """A pane whose command waits for Enter, so the recording starts before its first byte."""
    return Pane(tmp, env, ["/bin/sh", "-c", 'read go; exec "$@"', "sh", *argv], shown=shown)


def test_export_and_threads_at_a_terminal_act_on_nothing(tty, llm, tmp_path):
    runner = tty.runner
    llm.push({"text": ANSWER})
    r = runner("--thread", "evil-1", "--no-memory", input=f"안녕\n/title {TITLE}\n")
    assert r.code == 0, r.err
    for args, shown in ((["export", "evil"], "제목"), (["threads"], "evil-1")):
        argv, env = runner.command(*args)
        pane = _held(tmp_path, argv, env, "mcp-chat " + " ".join(args))
        try:
            raw = tmp_path / f"raw-{args[0]}.bin"
            before = _title(pane)
            _recorded(pane, raw)
            pane.keys("Enter")
            assert pane.exit_status(60) == 0, pane.screen()
            data = _wait_bytes(raw, shown.encode())
            assert shown.encode() in data, data
            assert b"\x1b]" not in data and b"\x1b[2J" not in data  # no OSC, no clear screen
            assert "\u202e".encode() not in data and "\u200b".encode() not in data
            assert _title(pane) == before and "PWNED" not in _title(pane)
            assert pane.tmux("list-buffers").strip() == ""  # no clipboard write reached the terminal
            assert shown in pane.visible()  # still on the screen: nothing cleared it
        finally:
            pane.close()
    assert "시작 복사 evil 끝" in (tmp_path / "raw-export.bin").read_bytes().decode()


def test_bidi_and_zero_width_in_tool_arguments_are_shown_not_obeyed(tty, llm, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    config = write_config(tmp_path, {"notes": {"command": sys.executable, "args": [NOTES, str(folder)]}})
    pane = tty("--thread", "ask", "--no-memory", "--mcp-config", config, env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    raw = tmp_path / "raw-ask.bin"
    pane.wait_prompt(1, 60)
    before = _title(pane)
    _recorded(pane, raw)
    llm.push({"tool_calls": [("write_note", {"name": "a\u202etxt.exe", "text": "abc\u200bdef\x1b]0;PWNED\x07"})]})
    pane.line("메모 써 줘")
    screen = pane.wait_for("[n] 거부", 60)
    block = screen[screen.rindex("도구를 실행할까요?"):]
    assert '"name": "a\\u202etxt.exe"' in block and '"text": "abc\\u200bdef\\u001b]0;PWNED\\u0007"' in block
    pane.type("n")
    pane.wait_prompt(2, 60)
    data = _wait_bytes(raw, "거부".encode())
    assert "\u202e".encode() not in data and "\u200b".encode() not in data and b"\x1b]0;" not in data
    assert _title(pane) == before
    assert not list(folder.iterdir())  # denied: nothing written
    pane.keys("C-d")
    assert pane.exit_status() == 0
