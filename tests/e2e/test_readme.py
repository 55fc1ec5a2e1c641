"""The README's quick start leaves a shell where every command the README shows after it works as
written: its usage and scripts blocks run here, in order, offline, against the stand-in model and
the Naver stub (before: the quick start ran .venv/bin/mcp-chat without activating the venv, so
`mcp-chat threads` was "command not found" and `python init_db.py` a ModuleNotFoundError). A
command that goes stale fails here. Processes (bash) by nature: one run per README line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docblocks import ROOT, Shell, blocks, commands

pytestmark = [pytest.mark.slow, pytest.mark.sqlite_only]  # a bash per README line

QUESTIONS = "서울 여행 일정 짜 줘\n맛집도 알려 줘\n고마워\n"  # what a person types into the chat commands


def test_the_quick_start_activates_the_environment_and_shows_progress():
    quick = commands(blocks("README.md", "bash")[0])
    assert quick == ["python3 -m venv .venv && source .venv/bin/activate && pip install -e . && mcp-chat"]
    steps = quick[0].split(" && ")
    assert steps.index("source .venv/bin/activate") < steps.index("mcp-chat")  # mcp-chat is found after it
    assert " -q" not in quick[0]  # pip's progress shows: the first install is no silent minute
    english = (ROOT / "README.md").read_text(encoding="utf-8").split("## English", 1)[1]
    assert f"`{quick[0]}`" in english  # the English section says the same
    assert commands(blocks("README.md", "bash")[1]) == ["bash scripts/test.sh", "bash scripts/test.sh fast"]


def test_the_readme_commands_run_as_written(chat, tmp_path):
    """The usage and the scripts blocks, line after line, in the shell the quick start leaves."""
    folder = tmp_path / "mcp-chat"  # the clone: its .venv (the tests' environment) and init_db.py
    folder.mkdir()
    (folder / ".venv").symlink_to(Path(sys.prefix))
    (folder / "init_db.py").symlink_to(ROOT / "init_db.py")
    (folder / "questions.txt").write_text(QUESTIONS, encoding="utf-8")
    env = {**chat.env, "HOME": str(tmp_path / "home"), "PATH": "/usr/local/bin:/usr/bin:/bin"}
    if chat.search_config:
        env["MCP_CONFIG"] = chat.search_config  # the shared search server: no child per line
    _a_changed_git_file(folder, env)
    shell = Shell(folder, env, prelude="source .venv/bin/activate")  # the quick start's own step
    usage, scripts = blocks("README.md", "bash")[2:4]
    ran = []
    for line in commands(usage) + commands(scripts):
        done = shell.run(line, stdin=QUESTIONS)
        out, err = done.stdout.decode(), done.stderr.decode()
        assert done.returncode == 0 and "Traceback" not in err, f"$ {line}\n{out}\n{err}"
        ran.append((line, out))
    got = dict(ran)
    assert "my-trip" in got["mcp-chat threads"]
    assert json.loads((folder / "my-trip.json").read_text(encoding="utf-8"))["thread_id"] == "my-trip"
    assert got["mcp-chat --version"].startswith("mcp-chat ")
    assert (folder / "checkpoint.db").exists()  # python init_db.py --db checkpoint.db
    assert json.loads(next(out for line, out in ran if "| jq .answer" in line))  # an answer, a JSON string
    assert len(ran) == len(commands(usage)) + len(commands(scripts)) >= 18


def _a_changed_git_file(folder: Path, env: dict[str, str]) -> None:
    """`git diff | mcp-chat -p` needs a diff: the folder is a repository with one changed file."""
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.test", *args], cwd=folder, env=env,
                       check=True, capture_output=True)

    git("init", "-q")
    (folder / "notes.md").write_text("첫 줄\n", encoding="utf-8")
    git("add", "notes.md")
    git("commit", "-q", "-m", "notes")
    (folder / "notes.md").write_text("첫 줄\n둘째 줄\n", encoding="utf-8")
