"""The in-process command line (tests/cli.py) is the process minus the process: the same runs give
the same exit code, stdout and stderr both ways, and a run leaves this process as it found it."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading

import pytest

from client.core import secrets
from client.ui import i18n
from tests.cli import run_cli
from tests.conftest import BACKOFF_SCALE, TEST_KEY, ChatRunner, CliRunner
from tests.stubs.llm_stub import LLMStub

TIMES = re.compile(r"\d+\.\d+\s*s\b|\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?|[0-9a-f]{8}-[0-9a-f-]{27}")


def same(text: str) -> str:
    """Without what differs from run to run (timings, dates, generated ids)."""
    return TIMES.sub("#", text)


@pytest.fixture
def both(tmp_path, naver, search_config, daemon_env):
    """A process runner and an in-process one, each with its own model stub."""
    with LLMStub() as a, LLMStub() as b:
        yield (ChatRunner(tmp_path / "p", a, naver, search_config=search_config, daemon_env=daemon_env), a), \
              (CliRunner(tmp_path / "i", b, naver, search_config=search_config), b)


RUNS = [  # (args, input): answers, commands, refusals, parse errors, help
    (("-p", "안녕", "--thread", "t1"), ""),
    (("--thread", "t2"), "하나\n/threads\n/nope\n종료\n"),
    (("--new", "--output-format", "json"), ""),
    (("--lang", "en", "export", "nope"), ""),
    (("--no-such-option",), ""),
    (("threads", "--help"), ""),
]


@pytest.mark.parametrize("args,stdin", RUNS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_a_run_in_process_is_the_process_run(both, args, stdin):
    (proc, proc_llm), (inproc, inproc_llm) = both
    for runner, _ in both:
        runner.tmp.mkdir()
    p = proc(*args, input=stdin)
    i = inproc(*args, input=stdin)
    assert (i.code, same(i.out), same(i.err)) == (p.code, same(p.out), same(p.err))
    assert [same(json.dumps(q)) for q in inproc_llm.requests] == [same(json.dumps(q)) for q in proc_llm.requests]


def test_a_run_leaves_the_process_as_it_found_it(tmp_path, monkeypatch):
    monkeypatch.setenv("SOME_TEST_VAR", "kept")
    cwd, streams, handlers = os.getcwd(), (sys.stdin, sys.stdout, sys.stderr), logging.getLogger().handlers[:]
    threads, lang, known = set(threading.enumerate()), i18n._lang, set(secrets._remembered)
    conf = tmp_path / ".config" / "mcp-chat"
    conf.mkdir(parents=True)
    (conf / ".env").write_text("MCP_CHAT_LANG=en\nFROM_USER_ENV=1\n")  # loaded into the run's environment
    r = run_cli(["-p", "x", "--db", str(tmp_path / "c.db")], env={"HOME": str(tmp_path), "PATH": os.environ["PATH"],
                "CLOVA_STUDIO_API_KEY": TEST_KEY, "CLOVA_STUDIO_BASE_URL": "http://127.0.0.1:9/v1",
                "MCP_CHAT_TEST_BACKOFF_SCALE": BACKOFF_SCALE}, cwd=tmp_path)
    assert r.code == 1 and "Traceback" not in r.err  # nothing listens on port 9: one line, in English
    assert os.environ.get("SOME_TEST_VAR") == "kept" and "FROM_USER_ENV" not in os.environ
    assert (os.getcwd(), (sys.stdin, sys.stdout, sys.stderr)) == (cwd, streams)
    assert logging.getLogger().handlers == handlers and i18n._lang == lang and secrets._remembered == known
    assert {t for t in threading.enumerate() if not t.daemon} <= threads


def test_a_run_sees_only_its_environment(tmp_path, monkeypatch):
    """Nothing of the test process's environment reaches the run (a process gets exactly `env`)."""
    monkeypatch.setenv("CLOVA_STUDIO_API_KEY", TEST_KEY)
    r = run_cli(["-p", "x", "--db", str(tmp_path / "c.db")], env={"HOME": str(tmp_path), "PATH": os.environ["PATH"]},
                cwd=tmp_path)
    assert r.code == 2 and "CLOVA_STUDIO_API_KEY" in r.error_line()  # no key: refused before anything starts


def test_exit_codes_and_uncaught_exceptions():
    def boom(argv):
        raise RuntimeError("from main")

    r = run_cli([], main=boom)
    assert r.code == 1 and "Traceback" in r.err and "RuntimeError: from main" in r.err
    assert run_cli([], main=lambda argv: sys.exit(3)).code == 3
    assert run_cli([], main=lambda argv: sys.exit()).code == 0
    echoed = run_cli(["a"], stdin="줄 하나\n", main=lambda argv: print(sys.stdin.read() + argv[0]) or 0)
    assert (echoed.code, echoed.out) == (0, "줄 하나\na\n")


def test_a_thread_left_running_fails_the_run(monkeypatch):
    monkeypatch.setattr("tests.cli.THREAD_GRACE", 0.2)
    stop = threading.Event()

    def leave(argv):
        threading.Thread(target=stop.wait, name="left").start()
        return 0

    try:
        with pytest.raises(AssertionError, match="left a thread running"):
            run_cli([], main=leave)
    finally:
        stop.set()
