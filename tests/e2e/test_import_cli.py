"""`mcp-chat import FILE`: the process a user runs (exit codes, output streams, what is stored).
The file is untrusted: a malformed one is one line, exit code 1, and nothing is stored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

TINY = Path(__file__).resolve().parents[1] / "data" / "locomo_tiny.json"


@pytest.mark.sqlite_only
def test_import_locomo_then_chat_on_it(cli, llm, tmp_path):
    r = cli.sub("import", str(TINY), "--sessions", "2")
    assert r.code == 0, r.err
    [tid] = r.out.split()  # stdout: the new thread's id only
    assert "tiny-1: Ada & Ben" in r.err and tid in r.err
    listed = cli.sub("threads")
    assert tid in listed.out and "tiny-1: Ada & Ben" in listed.out
    r = cli("--thread", tid, "--no-memory", "--context", "none", input="Where did Ada move to?\n")
    assert r.code == 0, r.err
    msgs = llm.chat_requests()[-1]["messages"]
    assert msgs[1]["content"].startswith("[Session 1 · 10:00 am on 3 March, 2024]")
    assert 'the user is "Ada" and the assistant is "Ben"' in msgs[0]["content"]


@pytest.mark.sqlite_only
def test_export_then_import_gives_the_same_transcript(cli, llm):
    r = cli("--thread", "src", "--no-memory", input="내 고양이 이름은 모찌야\n고마워\n")
    assert r.code == 0, r.err
    exported = cli.sub("export", "src", "--format", "json")
    path = Path(cli.tmp) / "src.json"
    path.write_text(exported.out)
    r = cli.sub("import", str(path))
    assert r.code == 0, r.err
    [tid] = r.out.split()
    again = json.loads(cli.sub("export", tid, "--format", "json").out)
    first = json.loads(exported.out)
    strip = lambda doc: [(m["role"], m["content"]) for m in doc["messages"] if m["role"] != "system"]  # noqa: E731
    assert strip(again) == strip(first) and again["turns"] == first["turns"] == 2


@pytest.mark.sqlite_only
@pytest.mark.parametrize("content", ['{"messages": [{"role": "user", "content": 5}]}', "not json at all", "",
                                     '[{"conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": '
                                     '[{"speaker": "Eve\\u001b[2J", "text": "hi"}]}}]'])
def test_a_malformed_file_is_one_line_and_stores_nothing(cli, content):
    bad = Path(cli.tmp) / "bad.json"
    bad.write_text(content)
    r = cli.sub("import", str(bad))
    assert r.code == 1 and r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "가져오지 못했습니다" in lines[0] and "Traceback" not in r.err
    assert "\x1b" not in r.err
    assert not Path(cli.db).exists()  # not even a new database file


@pytest.mark.sqlite_only
def test_a_missing_file_is_one_line(cli):
    r = cli.sub("import", str(Path(cli.tmp) / "nope.json"), "--lang", "en")
    assert r.code == 1 and len(r.err.strip().splitlines()) == 1 and "Could not import" in r.err
