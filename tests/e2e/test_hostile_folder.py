"""Nothing in the working folder changes what mcp-chat executes; no lock file is left behind.

The client runs as users run it (the installed `mcp-chat` script) in a folder full of modules
Python would pick up from the current directory, each of which would write a marker file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import ChatRunner, Result

pytestmark = [pytest.mark.sqlite_only, pytest.mark.bundled_search,  # the default stdio search server
              pytest.mark.cold]  # and a true cold start, in the hostile folder
HOSTILE = ("server", "client", "mcp", "httpx", "anyio", "pydantic", "dotenv", "runpy", "json",
           "sitecustomize", "usercustomize", "typing_extensions", "starlette")


def plant(folder: Path, marker: Path) -> None:
    code = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for name in HOSTILE:
        (folder / f"{name}.py").write_text(code, encoding="utf-8")


def installed_client() -> list[str]:
    script = Path(sys.executable).with_name("mcp-chat")
    return [str(script)] if script.exists() else [sys.executable, "-P", "-m", "client"]


def run_installed(chat: ChatRunner, *args: str, input: str) -> Result:
    import subprocess

    argv = [*installed_client(), *args, "--db", chat.db]
    p = subprocess.run(argv, input=input.encode(), capture_output=True, cwd=chat.tmp, env=chat.env, timeout=90)
    return Result(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def test_search_works_and_nothing_in_the_folder_runs(chat, llm, naver, tmp_path):
    marker = tmp_path.parent / f"{tmp_path.name}-hostile-ran"
    plant(tmp_path, marker)
    r = run_installed(chat, "--new", "--no-memory", input="/servers\n서울 맛집 검색\n")
    assert r.code == 0, r.err
    assert not marker.exists(), marker.read_text()
    assert "search: 연결됨" in r.out + r.err
    reqs = llm.chat_requests()
    tool_msgs = [m for req in reqs for m in req["messages"] if m["role"] == "tool"]
    assert tool_msgs and '"items"' in tool_msgs[0]["content"]  # the real search server answered
    assert naver.requests, "the bundled server never reached the Naver stub"


def test_package_shaped_shadow_is_ignored_too(chat, llm, naver, tmp_path):
    marker = tmp_path.parent / f"{tmp_path.name}-hostile-pkg"
    (tmp_path / "server").mkdir()
    code = f"open({str(marker)!r}, 'a').write('pkg ' + __name__)\n"
    (tmp_path / "server" / "__init__.py").write_text(code, encoding="utf-8")
    (tmp_path / "server" / "__main__.py").write_text(code, encoding="utf-8")
    r = run_installed(chat, "--new", "--no-memory", input="서울 검색\n")
    assert r.code == 0, r.err
    assert not marker.exists()
    assert any(m["role"] == "tool" and '"items"' in m["content"] for req in llm.chat_requests() for m in req["messages"])


def test_no_lock_file_left_after_a_clean_exit(chat, llm, naver, tmp_path):
    db = Path(chat.db)
    r = chat("--thread", "t1", "--no-memory", input="안녕\n")
    assert r.code == 0, r.err
    assert db.exists()
    assert not Path(str(db) + "-lock").exists()
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name)) == [db.name]
    for sub in (("threads",), ("export", "t1"), ("delete", "t1")):
        r = chat.sub(*sub)
        assert r.code == 0, r.err
        assert not Path(str(db) + "-lock").exists(), sub
