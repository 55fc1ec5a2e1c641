"""The slash-command table: parsing, the help text generated from it, its translations (pure)."""

from __future__ import annotations

import unicodedata

import pytest

from client.ui import i18n
from client.ui.i18n_slash import EN as HELP_EN, KO as HELP_KO
from client.ui.slash.table import ALIASES, BY_NAME, TABLE, Command, help_text, pad, parse

REQUIRED = ["help", "new", "threads", "resume", "delete", "export", "context", "compact", "summary", "tokens",
            "tools", "clear", "cls", "exit", "title", "memory", "forget", "end", "servers", "model", "permissions",
            "prompts", "prompt", "resources", "roots", "fork", "rewind", "mcp"]


@pytest.fixture
def lang():
    """Set the UI language for one test; Korean again afterwards."""
    yield i18n.set_lang
    i18n.set_lang("ko")


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


def test_every_command_is_in_the_table():
    for name in REQUIRED:
        assert name in BY_NAME, name
        assert parse("/" + name).known
    assert len(TABLE) == len(REQUIRED)


def test_no_duplicate_names_or_aliases():
    words = [w for e in TABLE for w in (e.name, *e.aliases)]
    assert len(words) == len(set(words))
    assert all(w == w.lower() and " " not in w for w in words)


def test_aliases_point_at_commands():
    assert ALIASES == {"quit": "exit", "q": "exit", "h": "help", "?": "help"}
    for alias, target in ALIASES.items():
        assert target in BY_NAME, alias


def test_every_entry_has_help_in_both_languages():
    for e in TABLE:
        assert e.help_key == f"help_{e.name}"
        assert HELP_KO.get(e.help_key) and HELP_EN.get(e.help_key), e.name
        assert i18n.KO[e.help_key] == HELP_KO[e.help_key] and i18n.EN[e.help_key] == HELP_EN[e.help_key]
        assert callable(e.handler)
    assert set(HELP_KO) == set(HELP_EN)
    assert {k for k in HELP_KO if k.startswith("help_")} == {e.help_key for e in TABLE}  # no stale keys
    assert {k[len("hint_"):] for k in HELP_KO if k.startswith("hint_")} <= set(BY_NAME)  # hints in words


def test_help_lists_every_entry_in_korean_by_default(lang):
    text = help_text()
    for e in TABLE:
        assert f"/{e.name}" in text and HELP_KO[e.help_key] in text
        assert HELP_EN[e.help_key] not in text
    assert "새 세션 시작" in text and "토큰" in text


def test_help_in_english(lang):
    lang("en")
    text = help_text()
    for e in TABLE:
        assert f"/{e.name} {e.shown_hint}".rstrip() in text and HELP_EN[e.help_key] in text
    assert "세션 삭제" not in text and "/compact [focus]" in text and "/prompt server:name key=value.." in text


def _cells(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


@pytest.mark.parametrize("language", ["ko", "en"])
def test_help_columns_line_up_in_terminal_cells(lang, language):
    """The descriptions start in one column even when an argument hint is Korean (/compact [초점])."""
    lang(language)
    rows = [r for r in help_text().splitlines() if r.startswith("  /")]
    assert [r.split()[0][1:] for r in rows] == [e.name for e in TABLE]  # table order
    starts = {_cells(r[: r.index(i18n.t(BY_NAME[r.split()[0][1:]].help_key))]) for r in rows}
    assert starts == {34}


def test_pad_counts_wide_characters():
    assert pad("ab", 5) == "ab   "
    assert pad("초점", 6) == "초점  "
    assert pad("toolong", 3) == "toolong"
