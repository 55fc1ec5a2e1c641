"""Slash-command parsing and the help text (pure)."""

from __future__ import annotations

import unicodedata

import pytest

from client.ui import commands
from client.ui.commands import COMMANDS, Command, help_text, pad, parse

REQUIRED = ["help", "new", "threads", "resume", "delete", "export", "context", "compact", "summary", "tokens",
            "tools", "clear", "exit", "title", "memory", "forget", "end", "servers"]


@pytest.mark.parametrize("line, expected", [
    ("/help", Command("help", "", True)),
    ("  /resume abc-123  ", Command("resume", "abc-123", True)),
    ("/compact 날씨와 일정 위주로", Command("compact", "날씨와 일정 위주로", True)),
    ("/export out/chat.json", Command("export", "out/chat.json", True)),
    ("/context trim", Command("context", "trim", True)),
    ("/title 서울 여행 계획", Command("title", "서울 여행 계획", True)),
    ("/TOKENS", Command("tokens", "", True)),
    ("/q", Command("exit", "", True)),
    ("/quit", Command("exit", "", True)),
    ("/?", Command("help", "", True)),
    ("/h", Command("help", "", True)),
    ("/compact\n두 줄 초점", Command("compact", "두 줄 초점", True)),
    ("/resume\tID", Command("resume", "ID", True)),
    ("/frobnicate x", Command("frobnicate", "x", False)),
])
def test_parse(line, expected):
    assert parse(line) == expected


@pytest.mark.parametrize("line", ["", "   ", "/", "안녕하세요", "what is /help?", "종료", " x /new"])
def test_not_a_command(line):
    assert parse(line) is None


def test_every_command_the_issue_lists_is_known():
    for name in REQUIRED:
        assert name in COMMANDS, name
        assert parse("/" + name).known


def test_help_lists_every_command_in_korean_by_default():
    text = help_text()
    for name, (hint, ko, en) in COMMANDS.items():
        assert f"/{name}" in text and ko in text
        assert en not in text
    assert "새 세션 시작" in text and "토큰" in text


def test_help_in_english():
    text = help_text("en")
    for name, (_, ko, en) in COMMANDS.items():
        assert en in text
    assert "세션 삭제" not in text


def _cells(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def test_help_columns_line_up_in_terminal_cells():
    """The descriptions start in one column even when an argument hint is Korean (/compact [초점])."""
    rows = [r for r in help_text().splitlines() if r.startswith("  /")]
    starts = set()
    for r in rows:
        name, hint, ko, en = r.split()[0][1:], *COMMANDS[r.split()[0][1:]]
        starts.add(_cells(r[: r.index(ko)]))
    assert starts == {34}


def test_pad_counts_wide_characters():
    assert pad("ab", 5) == "ab   "
    assert pad("초점", 6) == "초점  "
    assert pad("toolong", 3) == "toolong"


def test_aliases_point_at_commands():
    for alias, target in commands.ALIASES.items():
        assert target in COMMANDS, alias
