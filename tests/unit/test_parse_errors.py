"""A mistake on the command line is one line in the user's language that names the argument and
says what to do: argparse's messages said again as a whole, not `잘못된 옵션: unrecognized
arguments: --bogus`. A typo in an option is named as typed, with the option meant; its value is
never taken for a command name (`--provder local -p hi` said `argument op: invalid choice: 'hi'`)."""

from __future__ import annotations

import os
import re

import pytest

from tests.cli import run_cli

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def line(*argv: str, lang: str = "ko") -> str:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent-home", "MCP_CHAT_LANG": lang,
           "MCP_CHAT_DAEMON": "0"}
    r = run_cli(list(argv), env=env)
    assert r.code == 2, r.err
    return r.error_line()


@pytest.mark.parametrize("argv,ko,en", [
    (["--provder", "local", "-p", "hi"],
     "알 수 없는 옵션입니다: --provder. --provider 을(를) 쓰려던 것이면 고쳐서 다시 실행하세요 (옵션 목록: mcp-chat --help).",
     "Unknown option: --provder. If you meant --provider, fix it and run again (options: mcp-chat --help)."),
    (["--bogus"], "알 수 없는 옵션입니다: --bogus. 옵션 목록은 mcp-chat --help 로 보세요.",
     "Unknown option: --bogus. See mcp-chat --help for the options."),
    (["threads", "--dbb", "x.db"], "알 수 없는 옵션입니다: --dbb. --db 을(를) 쓰려던 것이면 고쳐서 다시 실행하세요 (옵션 목록: mcp-chat --help).",
     "Unknown option: --dbb. If you meant --db, fix it and run again (options: mcp-chat --help)."),
    (["--provider", "bogus"], "--provider 에 bogus 은(는) 쓸 수 없습니다: clova, openai, local 중 하나를 쓰세요.",
     "--provider does not take bogus: use one of clova, openai, local."),
    (["--max-turns", "x"], "--max-turns 의 값 x 은(는) 정수가 아닙니다: 정수로 주세요.", "--max-turns: x is not a whole number. Give one."),
    (["--timeout"], "--timeout 다음에 값이 없습니다: 값을 붙여 다시 실행하세요 (형식: mcp-chat --help).",
     "--timeout needs a value after it: add one and run again (format: mcp-chat --help)."),
    (["--new", "-c"], "-c/--continue 와(과) --new 는 함께 쓸 수 없습니다: 하나만 주세요.",
     "-c/--continue and --new cannot go together: give one of them."),
    (["completion", "fish"], "mcp-chat completion 에 fish 은(는) 쓸 수 없습니다: bash, zsh 중 하나를 쓰세요.",
     "mcp-chat completion does not take fish: use one of bash, zsh."),
    (["export"], "mcp-chat export 에 필요한 인자가 없습니다: ID (사용법: mcp-chat export --help).",
     "mcp-chat export needs ID (usage: mcp-chat export --help)."),
    (["what", "is", "this"], "남는 인자입니다: is this. 여러 단어로 된 질문은 따옴표로 묶으세요: mcp-chat \"질문\"",
     "Left-over arguments: is this. Put a question of several words in quotes: mcp-chat \"question\""),
    (["--yes=1"], "--yes 는 값을 받지 않습니다: =1 를 빼고 다시 실행하세요.", "--yes takes no value: drop =1 and run again."),
], ids=["typo", "unknown", "typo-in-command", "choice", "number", "no-value", "together", "positional", "missing",
        "left-over", "flag-value"])
def test_a_parse_error_is_one_line_in_the_users_language(argv, ko, en):
    assert line(*argv) == ko
    english = line(*argv, lang="en")
    assert english == en and not HANGUL.search(english)


def test_an_option_before_a_command_name_still_works():
    """Options of a command may stand before its name (`mcp-chat --revoke trust`), so only an option
    no command knows ends the search for the command name."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent-home", "MCP_CHAT_DAEMON": "0"}
    r = run_cli(["--format", "json", "export", "x", "--db", "/nonexistent/db"], env=env)
    assert "알 수 없는 옵션" not in r.err and r.code == 1, r.err
