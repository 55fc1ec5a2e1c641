"""Terminal users' habits end to end: -p, --output-format json, a clean stdout in a pipe,
-c, /model, per-user (XDG) data and config, read-only commands, --version, help, completion.

The real command line in this process (tests/cli.py) against the recording model stub; a fake
HOME per test. A process where only a process shows it: stdout's purity in a pipe (what reaches
file descriptor 1 from anywhere), the server's own --version, the import check of --help.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, ChatRunner, CliRunner, roles, thread_id_of, user_texts

HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture
def runner(tmp_path, llm, naver, search_config) -> CliRunner:
    return CliRunner(tmp_path, llm, naver, search_config=search_config)


@pytest.fixture
def process(tmp_path, llm, naver, search_config, daemon_env) -> ChatRunner:
    return ChatRunner(tmp_path, llm, naver, search_config=search_config, daemon_env=daemon_env)


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


# -- -p ------------------------------------------------------------------------
def test_print_prompt_argument_answers_once_stdout_only_the_answer(runner, llm):
    r = runner("-p", "오늘 날씨 어때")
    assert r.code == 0, r.err
    assert r.out == "답변 1: 오늘 날씨 어때\n"  # nothing else on stdout
    assert "현재 세션 ID:" in r.err
    reqs = llm.chat_requests()
    assert len(reqs) == 1 and user_texts(reqs[0]) == ["오늘 날씨 어때"]


def test_print_reads_all_of_stdin_as_one_message(runner, llm):
    text = "첫 줄\n둘째 줄\n\n셋째 줄\n"
    r = runner("-p", input=text)
    assert r.code == 0, r.err
    reqs = llm.chat_requests()
    assert len(reqs) == 1
    assert user_texts(reqs[0]) == ["첫 줄\n둘째 줄\n\n셋째 줄"]  # one message, not one turn per line
    assert r.out.startswith("답변 1: 첫 줄\n둘째 줄")


def test_print_without_prompt_is_a_config_error(runner, llm):
    r = runner("-p", input="  \n")
    assert r.code == 2
    assert len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err
    assert llm.requests == []  # refused before anything started


def test_print_keeps_the_thread_like_any_other(runner, llm):
    first = runner("-p", "사과는 빨갛다", "--thread", "fruit")
    assert first.code == 0, first.err
    second = runner("-p", "무슨 과일?", "--thread", "fruit")
    assert second.code == 0, second.err
    assert user_texts(llm.chat_requests()[-1]) == ["사과는 빨갛다", "무슨 과일?"]
    listed = runner.sub("threads")
    assert listed.out.startswith("fruit\t2\t")


def test_print_json_output_is_parseable_with_tools_usage_and_context(runner, llm, naver):
    r = runner("-p", "서울 맛집 검색해줘", "--output-format", "json", "--thread", "j")
    assert r.code == 0, r.err
    doc = json.loads(r.out)  # stdout is exactly one JSON document
    assert doc["thread_id"] == "j"
    assert doc["answer"].startswith("도구 결과 요약:")
    assert [c["name"] for c in doc["tool_calls"]] == ["web_search"]
    assert doc["tool_calls"][0]["args"]["query"].startswith("서울 맛집")
    assert doc["tool_calls"][0]["error"] is False and doc["tool_calls"][0]["result"]
    assert doc["usage"]["model_calls"] == 2
    assert doc["usage"]["input_tokens"] and doc["usage"]["output_tokens"]
    assert doc["context"]["action"] == "none"
    assert doc["error"] is None


@pytest.mark.timeout(400)
def test_print_json_reports_trimming(runner, llm):
    for i in range(3):
        r = runner("-p", f"질문 {i}", "--thread", "t", "--context", "trim", "--max-turns", "1",
                   "--output-format", "json")
        assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["context"]["action"] == "trimmed"
    assert doc["context"]["strategy"] == "trim"
    assert doc["context"]["trimmed_turns"] >= 1
    assert user_texts(llm.chat_requests()[-1]) == ["질문 1", "질문 2"]


def test_print_json_failed_turn_exits_1_with_error_field(runner, llm):
    r = runner("-p", "[fail:400] 안 됨", "--output-format", "json", "--new")
    assert r.code == 1
    doc = json.loads(r.out)
    assert doc["error"] and doc["answer"] == ""


def test_output_format_without_print_is_rejected(runner):
    r = runner("--new", "--output-format", "json", input="")
    assert r.code == 2
    assert r.error_line() == "-p 와 함께만 쓰는 옵션입니다: --output-format"


# -- stdout in a pipe ------------------------------------------------------------
def test_piped_stdout_carries_only_answers(process, llm, naver):
    # a process: file descriptor 1 itself, whatever writes to it (a library, a child, the interpreter)
    r = process("--new", input="안녕\n서울 맛집 검색해줘\n종료\n")
    assert r.code == 0, r.err
    assert r.out.splitlines() == ["답변 1: 안녕", f"도구 결과 요약: {_tool_head(llm)}"]
    for status in ("현재 세션 ID:", "안녕하세요", "[상태]", "[도구 선택]", "대화를 종료합니다"):
        assert status in r.err, status


def _tool_head(llm) -> str:
    last = llm.chat_requests()[-1]["messages"][-1]
    return last["content"][:60]


def test_piped_command_output_stays_on_stdout(runner, llm):
    r = runner("--thread", "cmd", input="안녕\n/threads\n")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "답변 1: 안녕"
    assert lines[1].startswith("cmd\t1\t")


def test_piped_question_without_p_is_a_message_never_an_id(runner, llm):
    """Issue 27: `echo "오늘 날씨 어때" | mcp-chat` took the question for a session id (exit 2).
    Piped, with no --thread/-c, a new thread starts and every line is a message."""
    r = runner(input="오늘 날씨 어때\n두 번째 줄\n")
    assert r.code == 0, r.err
    assert "세션 ID를 입력하세요" not in r.err + r.out and "올바르지 않습니다" not in r.err
    assert r.out.splitlines() == ["답변 1: 오늘 날씨 어때", "답변 2: 두 번째 줄"]
    assert user_texts(llm.chat_requests()[-1]) == ["오늘 날씨 어때", "두 번째 줄"]
    tid = thread_id_of(r.err)
    assert runner.sub("threads").out.startswith(f"{tid}\t2\t")


# -- habits of other tools (llm, Claude Code, aichat) ----------------------------------
def test_a_first_word_that_is_not_a_command_is_the_question(runner, llm):
    r = runner("오늘 날씨 어때")  # `mcp-chat "question"` = `mcp-chat -p "question"`
    assert r.code == 0, r.err
    assert r.out == "답변 1: 오늘 날씨 어때\n"
    assert [user_texts(q) for q in llm.chat_requests()] == [["오늘 날씨 어때"]]
    r = runner("--new", "--no-memory", "둘째 질문", "--output-format", "json")  # options on either side
    assert r.code == 0, r.err
    assert json.loads(r.out)["answer"] == "답변 2: 둘째 질문"
    r = runner("-p", input="파이프로 온 줄\n")  # a bare -p still reads stdin
    assert r.code == 0 and r.out == "답변 3: 파이프로 온 줄\n", r.err
    bad = runner("-p", "하나", "둘")
    assert bad.code == 2 and bad.error_line() == "질문이 두 개입니다 (-p '하나', '둘'): 하나만 주세요."
    assert len(llm.chat_requests()) == 3
    after = runner("--db", runner.db, "--", "threads", db=False)  # after --, a command name is a question too
    assert after.out == "답변 4: threads\n", after.err


def test_options_may_stand_before_the_command_name(runner, llm):
    assert runner("-p", "안녕", "--thread", "early").code == 0
    listed = runner("--db", runner.db, "threads", db=False)
    assert listed.code == 0 and listed.out.startswith("early\t1\t"), listed
    en = runner("--lang", "en", "--db", runner.db, "export", "early", "--format", "json", db=False)
    assert en.code == 0 and json.loads(en.out)["thread_id"] == "early", en
    gone = runner("--db", runner.db, "--lang", "en", "delete", "nope", db=False)
    assert gone.code == 1 and gone.error_line() == "No such session: nope"
    wrong = runner("--new", "--db", runner.db, "threads", db=False)  # a chat option the command does not take
    assert wrong.code == 2 and "--new" in wrong.error_line()


def test_model_short_option_and_system_prompt_options(runner, llm, tmp_path):
    from client.core.config import ANSWER_LANGUAGE

    def system() -> str:
        return llm.chat_requests()[-1]["messages"][0]["content"]

    assert runner("-p", "하나", "-m", "HCX-007", "--new", "--no-memory").code == 0
    assert llm.chat_requests()[-1]["model"] == "HCX-007"
    assert runner("-p", "둘", "--thread", "own", "--no-memory", "--system-prompt", "You are terse.").code == 0
    assert system() == "You are terse."  # replaced, nothing of the built-in left
    assert runner("-p", "셋", "--new", "--no-memory", "--append-system-prompt", "Always cite sources.").code == 0
    assert system().startswith("당신은 친절한 AI 어시스턴트입니다.") and ANSWER_LANGUAGE in system()
    assert system().endswith("\n\nAlways cite sources.")
    conf = tmp_path / ".config" / "mcp-chat"  # the per-user config file sets it too
    conf.mkdir(parents=True)
    (conf / ".env").write_text("MCP_CHAT_SYSTEM_PROMPT=Answer like a pirate.\n")
    assert runner("-p", "넷", "--new", "--no-memory").code == 0
    assert system() == "Answer like a pirate."
    assert runner("-p", "다섯", "--new", "--no-memory", "--system-prompt", "Option wins.").code == 0
    assert system() == "Option wins."
    assert runner("-p", "여섯", "--thread", "own", "--no-memory").code == 0
    assert system() == "You are terse."  # a thread keeps the prompt it was made with
    bad = runner("-p", "x", "--new", "--system-prompt", " ")
    assert bad.code == 2 and bad.error_line().startswith("--system-prompt=' ': 쓸 수 없는 값입니다 (허용: 비어 있지 않은 텍스트)")


def test_resume_option(runner, llm):
    assert runner("-p", "첫 세션", "--thread", "resume-me-1").code == 0
    assert runner("-p", "둘째 세션", "--thread", "other-2").code == 0
    r = runner("-r", "resume-me", "-p", "이어서")  # a unique prefix
    assert r.code == 0, r.err
    assert thread_id_of(r.err) == "resume-me-1"
    assert user_texts(llm.chat_requests()[-1]) == ["첫 세션", "이어서"]
    r = runner("--resume", "nope", "-p", "x")
    assert r.code == 1 and r.error_line() == "세션을 찾을 수 없습니다: nope"
    r = runner("-r", input="질문\n")  # the picker needs a terminal: one line, exit 2
    assert r.code == 2 and r.error_line().startswith("-r 만으로는 터미널에서")
    r = runner("-r", "resume-me-1", "--new", input="")
    assert r.code == 2 and "--new" in r.error_line()
    assert len(llm.chat_requests()) == 3  # nothing sent by the refused runs


# -- -c --------------------------------------------------------------------------
@pytest.mark.timeout(400)
def test_continue_resumes_this_users_latest_thread(runner, llm):
    a = thread_id_of(runner("-p", "첫 세션", "--new", "--no-memory").err)
    b = thread_id_of(runner("-p", "둘째 세션", "--new", "--no-memory").err)
    runner("-p", "남의 세션", "--new", "--user", "someone-else", "--no-memory")
    assert a != b
    r = runner("--continue", "-p", "이어서")
    assert r.code == 0, r.err
    assert thread_id_of(r.err) == b
    assert user_texts(llm.chat_requests()[-1]) == ["둘째 세션", "이어서"]


def test_empty_threads_are_dropped_when_left_and_never_listed_or_continued(runner, llm):
    """Issue 27: `-c` resumed a thread left with 0 turns, and `threads` listed it."""
    import sqlite3
    import time

    def rows() -> list[tuple]:
        with sqlite3.connect(runner.db) as db:
            return db.execute("SELECT thread_id, turns FROM threads ORDER BY thread_id").fetchall()

    a = thread_id_of(runner("-p", "남는 세션", "--new", "--user", "me", "--no-memory").err)
    # /compact on a fresh thread stores it (a system message, no turn); /new and exit leave it
    r = runner("--new", "--user", "me", "--no-memory", input="/compact\n/new\n/compact\n")
    assert r.code == 0, r.err
    assert rows() == [(a, 1)]
    # an empty thread an older or crashed client left, the most recent of all
    with sqlite3.connect(runner.db) as db:
        db.execute("INSERT INTO threads (thread_id, user_name, title, turns, created_at, updated_at) "
                   "VALUES ('empty-one', 'me', '', 0, ?, ?)", (time.time() + 60, time.time() + 60))
    assert [ln.split("\t")[0] for ln in runner.sub("threads").out.splitlines()] == [a]
    listed = runner("--thread", "x", "--user", "me", "--no-memory", input="/threads\n")
    assert "empty-one" not in listed.out and a in listed.out
    r = runner("-c", "-p", "이어서", "--user", "me", "--no-memory")
    assert thread_id_of(r.err) == a
    assert user_texts(llm.chat_requests()[-1]) == ["남는 세션", "이어서"]


def test_continue_with_no_thread_starts_a_new_one(runner, llm):
    r = runner("-c", "-p", "처음")
    assert r.code == 0, r.err
    assert thread_id_of(r.err)
    assert user_texts(llm.chat_requests()[0]) == ["처음"]


def test_thread_options_are_exclusive(runner):
    r = runner("--new", "-c", input="")
    assert r.code == 2
    line = r.error_line()
    assert line == "-c/--continue 와(과) --new 는 함께 쓸 수 없습니다: 하나만 주세요."


# -- /model ----------------------------------------------------------------------
@pytest.mark.timeout(400)
def test_model_lists_and_switches_for_the_session(runner, llm):
    llm.models = ["HCX-005", "HCX-007", "HCX-DASH-002"]
    r = runner("--new", input="/model\n하나\n/model HCX-DASH-002\n둘\n/model no-such-model\n")
    assert r.code == 0, r.err
    listing = [line for line in r.out.splitlines() if "HCX" in line]
    assert listing == ["* HCX-005", "  HCX-007", "  HCX-DASH-002"]
    assert [q["model"] for q in llm.chat_requests()] == ["HCX-005", "HCX-DASH-002"]
    assert "HCX-DASH-002" in r.err and "no-such-model" in r.err
    assert user_texts(llm.chat_requests()[-1]) == ["하나", "둘"]  # same thread


def test_model_without_a_models_route_still_switches(runner, llm):
    llm.models = None
    r = runner("--new", input="/model\n/model other-model\n하나\n")
    assert r.code == 0, r.err
    assert "모델 목록을 제공하지 않습니다" in r.out
    assert llm.chat_requests()[-1]["model"] == "other-model"


# -- per-user data and config (a fake HOME) ---------------------------------------
@pytest.mark.timeout(400)
def test_default_database_is_per_user(runner, llm, tmp_path):
    r = runner("-p", "안녕", "--thread", "x", db=False)
    assert r.code == 0, r.err
    db = tmp_path / ".local" / "share" / "mcp-chat" / "checkpoint.db"
    assert db.is_file()
    assert not (tmp_path / "checkpoint.db").exists()
    # from another folder the thread is still there
    other = tmp_path / "elsewhere"
    other.mkdir()
    runner.tmp = other
    listed = runner("threads", db=False)
    assert listed.out.startswith("x\t1\t"), listed


@pytest.mark.timeout(400)
def test_xdg_data_home_and_local_checkpoint_db(runner, llm, tmp_path):
    data = tmp_path / "data"
    r = runner("-p", "안녕", "--thread", "x", db=False, env={"XDG_DATA_HOME": str(data)})
    assert r.code == 0, r.err
    assert (data / "mcp-chat" / "checkpoint.db").is_file()
    # the cookbook's layout: ./checkpoint.db, when it exists in a trusted folder, wins over the per-user one
    shutil.copy(data / "mcp-chat" / "checkpoint.db", tmp_path / "checkpoint.db")
    assert runner("trust", db=False).code == 0
    runner("-p", "로컬", "--thread", "local-only", db=False, env={"XDG_DATA_HOME": str(data)})
    assert runner("threads", "--db", str(tmp_path / "checkpoint.db"), db=False).out.count("\t") == 6
    assert "local-only" not in runner("threads", "--db", str(data / "mcp-chat" / "checkpoint.db"), db=False).out
    # --db and CHECKPOINT_DB still win
    env_db = tmp_path / "env.db"
    runner("-p", "환경", "--thread", "env", db=False, env={"CHECKPOINT_DB": str(env_db)})
    assert env_db.is_file()


@pytest.mark.timeout(400)
def test_user_env_file_and_working_folder_env(runner, llm, tmp_path):
    conf = tmp_path / ".config" / "mcp-chat"
    conf.mkdir(parents=True)
    (conf / ".env").write_text("CLOVA_STUDIO_MODEL=HCX-DASH-002\nMCP_CHAT_LANG=en\n")
    r = runner("-p", "하나", "--new")
    assert r.code == 0, r.err
    assert llm.chat_requests()[-1]["model"] == "HCX-DASH-002"
    assert "Current session ID:" in r.err  # MCP_CHAT_LANG from the user's .env
    (tmp_path / ".env").write_text("CLOVA_STUDIO_MODEL=HCX-007\n")  # a trusted working folder's .env first
    assert runner("trust", db=False).code == 0
    runner("-p", "둘", "--new")
    assert llm.chat_requests()[-1]["model"] == "HCX-007"
    runner("-p", "셋", "--new", env={"CLOVA_STUDIO_MODEL": "HCX-005"})  # real environment wins
    assert llm.chat_requests()[-1]["model"] == "HCX-005"


@pytest.mark.bundled_search  # the default server selection itself (no shared server injected)
def test_user_mcp_json_is_the_default_servers_file(runner, llm, tmp_path):
    conf = tmp_path / "cfg" / "mcp-chat"
    conf.mkdir(parents=True)
    entry = {"command": sys.executable, "args": ["-m", "server", "--transport", "stdio"],
             "env": {"PYTHONPATH": str(ROOT)}}
    (conf / "mcp.json").write_text(json.dumps({"mcpServers": {"my-search": entry}}))
    r = runner("--new", input="/servers\n", env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    assert r.code == 0, r.err
    assert "my-search:" in r.out


@pytest.mark.parametrize("args", [("threads",), ("export", "nope"), ("delete", "nope")])
def test_read_only_commands_never_create_a_database(runner, tmp_path, args):
    before = files_under(tmp_path)
    r = runner(*args, db=False)
    assert r.code == (0 if args[0] == "threads" else 1), r
    assert files_under(tmp_path) == before
    if args[0] == "threads":
        assert r.out.strip() == "저장된 세션이 없습니다."
    else:
        assert "nope" in r.err and len(r.err.strip().splitlines()) == 1


# -- --version, help, completion ---------------------------------------------------
def test_version_on_both_commands(runner):
    from importlib.metadata import version

    want = version("mcp-chat")
    for args in (("--version",), ("chat", "--version"), ("threads", "--version")):
        r = runner(*args, db=False)
        assert r.code == 0 and r.out.strip() == f"mcp-chat {want}", (args, r)
    p = subprocess.run([sys.executable, "-m", "server", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and p.stdout.strip() == f"mcp-search-server {want}"


def test_help_shows_chat_options_and_follows_the_language(runner):
    ko = runner("--help", db=False)
    assert ko.code == 0
    for opt in ("--thread", "--new", "--continue", "--print", "--output-format", "--db", "--version", "--model"):
        assert opt in ko.out, opt
    assert "mcp-chat COMMAND --help" in ko.out and "사용법:" in ko.out
    for env, args in (({}, ("--help", "--lang", "en")), ({"MCP_CHAT_LANG": "en"}, ("--help",)),
                      ({"MCP_CHAT_LANG": "en"}, ("threads", "--help"))):
        en = runner(*args, db=False, env=env)
        assert en.code == 0
        assert not HANGUL.search(en.out.replace("질문", "")), en.out  # the -p example keeps its sample prompt
        assert "usage:" in en.out


def test_every_chat_option_has_help(runner):
    from client.ui.cli import build_parser

    chat = build_parser()._subparsers._group_actions[0].choices["chat"]  # type: ignore[union-attr]
    missing = [a.option_strings for a in chat._actions if a.option_strings and not a.help]
    assert missing == []


def test_bad_option_in_english(runner):
    r = runner("--no-such-option", "--lang", "en", db=False)
    assert r.code == 2 and r.error_line() == "Unknown option: --no-such-option. See mcp-chat --help for the options."


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_scripts(runner, shell):
    r = runner("completion", shell, db=False)
    assert r.code == 0, r.err
    for word in ("--thread", "--continue", "threads", "export"):
        assert word in r.out
    exe = shutil.which(shell)
    if exe is None:  # scripts/test.sh installs Debian's bash and zsh
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"{shell} is not installed: syntax not checked")
    check = subprocess.run([exe, "-n"], input=r.out, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    if shell == "bash":  # complete a partly typed option and a command, as the shell would
        script = ('source /dev/stdin; for line in "mcp-chat --th" "mcp-chat ex"; do read -ra COMP_WORDS <<< "$line"; '
                  'COMP_CWORD=1; COMP_LINE="$line"; COMP_POINT=${#line}; _shtab_mcp_chat; echo "${COMPREPLY[*]}"; done')
        done = subprocess.run([exe, "-c", script], input=r.out, capture_output=True, text=True)
        assert done.stdout.splitlines() == ["--thread", "export"], done.stderr


def test_completion_installs_into_its_folder_on_a_new_home(runner, tmp_path):
    """`mcp-chat completion bash > ~/.local/share/bash-completion/completions/mcp-chat` failed on a
    new HOME (the shell opens the file, whose folder does not exist, before the command runs);
    --install makes the folder and writes the script where bash-completion (and, with fpath, zsh) reads it."""
    home = tmp_path / "new-home"
    home.mkdir()
    r = runner("completion", "bash", "--install", db=False, env={"HOME": str(home)})
    assert r.code == 0 and r.out == "", r.err
    path = home / ".local" / "share" / "bash-completion" / "completions" / "mcp-chat"
    assert r.error_line() == f"자동 완성을 설치했습니다: {path} (새 셸부터 적용)"
    assert "_shtab_mcp_chat" in path.read_text()
    data = tmp_path / "data"  # XDG_DATA_HOME wins, zsh's folder beside bash's
    r = runner("completion", "zsh", "--install", "--lang", "en", db=False, env={"HOME": str(home), "XDG_DATA_HOME": str(data)})
    assert r.code == 0 and (data / "zsh" / "site-functions" / "_mcp-chat").read_text().startswith("#compdef")
    assert f"fpath=({data / 'zsh' / 'site-functions'} $fpath)" in r.err


def test_strategies_match_the_policy():
    """The --context choices are the strategies the settings type and the policy know, and the
    policy acts on each one differently (an unknown name would fall through to "none")."""
    from typing import get_args

    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    from client.core.config import DEFAULT_MAX_TURNS, STRATEGIES, ContextSettings, Strategy
    from client.core.context.policy import prepare
    from client.ui.cli import build_parser

    chat = build_parser()._subparsers._group_actions[0].choices["chat"]  # type: ignore[union-attr]
    [context] = [a for a in chat._actions if "--context" in a.option_strings]
    assert tuple(context.choices) == STRATEGIES == get_args(Strategy)
    assert set(DEFAULT_MAX_TURNS) == set(STRATEGIES)
    history = [SystemMessage("s")] + [m for i in range(8) for m in (HumanMessage(f"q{i}"), AIMessage(f"a{i}"))]
    outcome = {}
    for name in STRATEGIES:
        done = prepare(history, ContextSettings(name, 2, 5))
        outcome[name] = (len(done.messages), done.trimmed, done.plan is not None)
    assert outcome == {"none": (17, 0, False), "trim": (5, 6, False), "summarize": (17, 0, True)}


def test_help_imports_no_heavy_modules():
    code = ("import sys\nfrom client.ui.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = ('langchain', 'langchain_core', 'langgraph', 'rich', 'httpx', 'openai', 'prompt_toolkit')\n"
            "light = {'rich', 'rich._extension', 'rich.cells'}  # the epilog counts cells (Korean), 7 ms\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy and m not in light\n"
            "             and not m.startswith('rich._unicode_data')))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "[]"
