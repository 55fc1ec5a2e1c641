"""A trusted folder after a `git pull`: what it brings is used only as the user trusted it (issue 50).

The folder plays the attacker after the user trusted and used it, piped (no terminal to ask):
- another `checkpoint.db` written into the same inode (what ext4 gives the file a `git pull` or
  `git checkout` puts in place), or a `checkpoint.db-wal` a later commit adds beside the untouched
  main file: `-c` does not resume the planted thread, one line names the database;
- the user's own turns through the client, run after run, are no change;
- a FIFO as `.env`: start-up and `mcp-chat trust` go on without it, nothing waits;
- a config outside the folder that the `.env` names and another user owns or may rewrite: never
  used (it could be rewritten after the user trusted the folder), one line, nothing runs.
The question at a terminal is tests/tty/test_trust_tty.py's; the rules tests/unit/test_trust_db.py's.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.e2e.test_untrusted_folder import _plant_db, user_config, user_runner
from tests.faults.files import unprivileged_ids

pytestmark = pytest.mark.sqlite_only  # the folder's own file
CHANGED = "신뢰한 뒤 바뀐 폴더"


@pytest.fixture
def used(tmp_path, llm, naver):
    """A folder the user trusted and chatted in (its ./checkpoint.db holds their thread); the runner."""
    user_config(tmp_path, llm, naver)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".env").write_text("CLOVA_STUDIO_MODEL=HCX-007\n")
    asyncio.run(_plant_db(proj / "checkpoint.db", "someone"))  # the file the repository brought
    runner = user_runner(proj, tmp_path, llm, naver)
    assert runner("trust", db=False).code == 0
    r = runner("--thread", "mine", "--user", "victim", "--no-memory", input="내 질문\n", db=False)
    assert r.code == 0 and "mcp-chat trust" not in r.err, r.err
    return proj, runner


def notices(r) -> list[str]:
    return [ln for ln in r.err.splitlines() if "mcp-chat trust" in ln]


def resumed(llm) -> str:
    return json.dumps(llm.chat_requests()[-1], ensure_ascii=False)


def test_the_users_own_turns_are_no_change(used, llm):
    proj, runner = used
    for text in ("둘째 질문", "셋째 질문"):
        r = runner("-c", "--user", "victim", "--no-memory", input=f"{text}\n", db=False)
        assert r.code == 0 and notices(r) == [], r.err
    assert "내 질문" in resumed(llm) and "둘째 질문" in resumed(llm)
    for command in (("fork", "mine", "--user", "victim"), ("delete", "planted")):  # delete also VACUUMs
        r = runner(*command, db=False)
        assert r.code == 0 and notices(r) == [], r.err
    r = runner("-c", "--user", "victim", "--no-memory", input="넷째 질문\n", db=False)
    assert r.code == 0 and notices(r) == [], r.err


def _planted_copy(tmp_path: Path, db: Path) -> Path:
    copy = tmp_path / "pulled" / "checkpoint.db"
    copy.parent.mkdir()
    shutil.copy(db, copy)
    con = sqlite3.connect(copy)
    con.execute("UPDATE threads SET user_name='victim', updated_at=9e9 WHERE thread_id='planted'")
    con.commit()
    con.close()
    return copy


def test_a_pulled_database_in_the_same_inode_is_not_resumed(used, llm, tmp_path):
    proj, runner = used
    db = proj / "checkpoint.db"
    ino = db.stat().st_ino
    pulled = _planted_copy(tmp_path, db).read_bytes()
    with open(db, "r+b") as f:  # the new content, in the inode the old file had
        f.truncate(0)
        f.write(pulled)
    assert db.stat().st_ino == ino
    r = runner("-c", "--user", "victim", "--no-memory", input="이어서\n", db=False)
    assert r.code == 0 and len(notices(r)) == 1 and CHANGED in notices(r)[0] and "checkpoint.db" in notices(r)[0], r.err
    assert "planted question" not in resumed(llm)
    assert db.read_bytes() == pulled  # not written either


def test_a_wal_added_by_a_later_commit_is_not_resumed(used, llm, tmp_path):
    proj, runner = used
    db = proj / "checkpoint.db"
    source = tmp_path / "pulled" / "checkpoint.db"
    source.parent.mkdir()
    shutil.copy(db, source)  # the user's file, and a -wal made on top of it elsewhere
    con = sqlite3.connect(source)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("UPDATE threads SET user_name='victim', updated_at=9e9 WHERE thread_id='planted'")
    con.commit()
    shutil.copy(f"{source}-wal", f"{db}-wal")
    con.close()
    before = db.read_bytes()
    r = runner("-c", "--user", "victim", "--no-memory", input="이어서\n", db=False)
    assert r.code == 0 and len(notices(r)) == 1 and "checkpoint.db" in notices(r)[0], r.err
    assert "planted question" not in resumed(llm)
    assert db.read_bytes() == before


def test_a_fifo_as_env_holds_nothing(tmp_path, llm, naver):
    user_config(tmp_path, llm, naver)
    proj = tmp_path / "proj"
    proj.mkdir()
    os.mkfifo(proj / ".env")
    runner = user_runner(proj, tmp_path, llm, naver)
    assert runner("trust", db=False).code == 0
    r = runner("-p", "안녕", "--new", "--no-memory", db=False)
    assert r.code == 0 and notices(r) == [], r.err


@pytest.mark.parametrize("who", ["nobody", "anyone"])
def test_a_config_outside_the_folder_another_user_can_rewrite_is_never_used(tmp_path, llm, naver, who):
    """The .env names /shared/mcp.json: owned by another user, or by the user but writable by
    anyone. Trusted or not, the folder is not used: one line, the command does not run."""
    ids, home = unprivileged_ids(tmp_path)
    if who == "nobody" and ids is None:
        pytest.skip("needs a root test process to play a second user")
    user_config(tmp_path, llm, naver)
    shared = tmp_path / "shared"
    shared.mkdir()
    ran = tmp_path / "ran"
    config = shared / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"x": {"command": "sh", "args": ["-c", f"touch {ran}"]}}}))
    if who == "nobody":
        os.chown(config, *ids)
    else:
        config.chmod(0o666)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".env").write_text(f"MCP_CONFIG={config}\n")
    runner = user_runner(proj, tmp_path, llm, naver)
    r = runner("trust", db=False)
    assert r.code == 1 and str(config) in r.error_line(), r.err
    r = runner("-p", "안녕", "--new", "--no-memory", db=False)
    lines = [ln for ln in r.err.splitlines() if str(config) in ln]
    assert r.code == 0 and len(lines) == 1 and ("다른 사용자" in lines[0]), r.err
    assert not ran.exists()
    if ids is not None:
        shutil.rmtree(home, ignore_errors=True)
