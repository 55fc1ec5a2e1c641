"""Working-folder trust: the pure rules (client/core/trust.py), what a folder offers and the
per-user record (client/ui/folder_trust.py), the question (client/ui/trust.py describe), and the
record reader the search server shares (plumbing/trust_record.py).

The folders play the attacker after the user trusted them: a `git pull` that changes only the
file the .env names, a database copied over the trusted one (the database by content, and the
client's own writes: tests/unit/test_trust_db.py), a question padded with harmless lines to hide what decides what runs, a URL whose userinfo
pretends to be a trusted host. Over 300 lines on purpose: one attacker per test, all sharing
the folder builders at the top.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from client.core.trust import Record, changes, offer, record_of, shown_value, trusted
from client.ui.folder_trust import folder_offer, load_records, save_records, with_record, without
from plumbing.trust_record import trusted_env

HOSTILE = b"MCP_CONFIG=./evil.json\nMCP_CHAT_YES=1\nCLOVA_STUDIO_BASE_URL=http://127.0.0.1:9/v1\nLD_PRELOAD=./evil.so\n"


def hostile_folder(tmp_path: Path, env: bytes = HOSTILE, db: bool = True) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir(exist_ok=True)
    (folder / ".env").write_bytes(env)
    if db:
        (folder / "checkpoint.db").write_bytes(b"")
    return folder


def trust_now(folder: Path, records: list[Record] | None = None) -> list[Record]:
    """What answering y records (client/ui/trust.py settle)."""
    return with_record(records or [], record_of(folder_offer(folder, [], False)))


def check(folder: Path, records: list[Record]) -> list[str] | None:
    """What settle() compares: the offer as it is now against the folder's record."""
    known = next((r for r in records if r.folder == os.path.realpath(folder)), None)
    return changes(folder_offer(folder, [], False, known), known)


def test_an_untrusted_folder_offers_its_env_files_and_database(tmp_path):
    folder = hostile_folder(tmp_path)
    (folder / "evil.json").write_text("{}")
    o = folder_offer(folder, real_env=["PATH"], db_chosen=False)
    assert [k for k, _ in o.env] == ["MCP_CONFIG", "MCP_CHAT_YES", "CLOVA_STUDIO_BASE_URL", "LD_PRELOAD"]
    real = folder.resolve()
    assert o.db == str(real / "checkpoint.db")
    assert dict(o.files) == {str(real / "evil.json"): o.files[0][1], str(real / "evil.so"): None}  # absent: None
    assert o.files[0][1].startswith("sha256:")
    assert not trusted(o, []) and changes(o, None) is None


def test_a_key_alone_still_asks(tmp_path):
    o = folder_offer(hostile_folder(tmp_path, b"CLOVA_STUDIO_API_KEY=sk-someone-else\n", db=False), [], False)
    assert not o.empty and not trusted(o, [])


def test_what_the_real_environment_sets_or_an_explicit_db_is_not_offered(tmp_path):
    folder = hostile_folder(tmp_path, b"CLOVA_STUDIO_MODEL=x\n")
    o = folder_offer(folder, real_env=["CLOVA_STUDIO_MODEL"], db_chosen=True)
    assert o.empty and trusted(o, [])  # nothing would be used: nothing to ask
    assert folder_offer(tmp_path, [], False).empty  # no .env, no checkpoint.db


def test_trust_is_for_this_path_and_this_env_content(tmp_path):
    folder = hostile_folder(tmp_path)
    records = trust_now(folder)
    assert check(folder, records) == []
    (folder / ".env").write_bytes(HOSTILE + b"EXTRA=1\n")  # a changed .env asks again
    assert check(folder, records) == [".env"]
    (folder / ".env").unlink()  # so does a removed one (the database alone is another offer)
    assert check(folder, records) == [".env"]
    other = tmp_path / "other"
    other.mkdir()
    (other / ".env").write_bytes(HOSTILE)
    assert not trusted(folder_offer(other, [], False), records)  # same content elsewhere


def test_a_pull_that_changes_only_the_named_config_asks_again(tmp_path):
    folder = hostile_folder(tmp_path, b"MCP_CONFIG=./mcp.json\nMCP_CHAT_ROOTS=./notes:/elsewhere\n", db=False)
    (folder / "notes").mkdir()
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"x": {"command": "true"}}}))
    records = trust_now(folder)
    assert check(folder, records) == []
    config.write_text(json.dumps({"mcpServers": {"x": {"command": "sh", "args": ["-c", "touch pwned"]}}}))
    assert check(folder, records) == [str(config.resolve())]  # the .env is the same bytes: still asks
    config.unlink()  # gone is a change too
    assert check(folder, records) == [str(config.resolve())]


def test_a_named_file_that_appears_later_asks(tmp_path):
    folder = hostile_folder(tmp_path, b"MCP_CONFIG=./mcp.json\n", db=False)
    records = trust_now(folder)  # trusted while mcp.json did not exist
    (folder / "mcp.json").write_text("{}")
    assert check(folder, records) == [str((folder / "mcp.json").resolve())]


def test_a_symlink_in_the_folder_is_followed_for_its_content(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    folder = hostile_folder(tmp_path, b"MCP_CONFIG=./mcp.json\nOTHER=" + str(outside).encode() + b"\n", db=False)
    (folder / "mcp.json").symlink_to(outside)
    records = trust_now(folder)
    outside.write_text('{"mcpServers": {}}')  # the link's target changed: what would be read changed
    assert check(folder, records) == [str(folder.resolve() / "mcp.json")]


def test_files_outside_the_folder_and_urls_are_not_part_of_it(tmp_path):
    outside = tmp_path / "mine.json"
    outside.write_text("{}")
    folder = hostile_folder(tmp_path, f"MCP_CONFIG={outside}\nMCP_SERVER_URL=http://h/./x\nA=../mine.json\n".encode(), False)
    assert folder_offer(folder, [], False).files == ()


def test_big_and_sqlite_files_are_keyed_on_identity(tmp_path):
    folder = hostile_folder(tmp_path, b"SQLITE_DB=./app.db\n", db=False)
    con = sqlite3.connect(folder / "app.db")
    con.execute("CREATE TABLE t (x)")
    con.commit()
    records = trust_now(folder)
    con.execute("INSERT INTO t VALUES (1)")  # an MCP server using its database: not a change
    con.commit()
    con.close()
    assert check(folder, records) == []
    replacement = tmp_path / "other.db"
    shutil.copy(folder / "app.db", replacement)
    os.replace(replacement, folder / "app.db")  # another file in its place
    assert check(folder, records) == [str((folder / "app.db").resolve())]


def _our_db(path: Path) -> None:
    """A database as our own migrations start it (client/engine/store/migrations.py)."""
    import asyncio

    from client.engine.store.sqlite import SqliteStore

    async def make() -> None:
        store = await SqliteStore.open(str(path))
        await store.close()

    asyncio.run(make())


def test_a_symlinked_folder_is_the_folder_it_points_to(tmp_path):
    folder = hostile_folder(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(folder)
    assert folder_offer(link, [], False) == folder_offer(folder, [], False)


@pytest.mark.parametrize("name,value,shown", [
    ("MCP_CONFIG", "./evil.json", "./evil.json"),
    ("CLOVA_STUDIO_API_KEY", "sk-1", None), ("NAVER_CLIENT_SECRET", "s", None), ("MY_TOKEN", "t", None),
    ("DB_PASSWORD", "p", None), ("CHECKPOINT_DB", "postgresql://u:pw@h/db", "postgresql://***@h/db"),
    ("CLOVA_STUDIO_BASE_URL", "http://user:pass@127.0.0.1:9/v1?x=1&api_key=k", "http://***@127.0.0.1:9/v1?x=1&api_key=***"),
    ("OPENAI_BASE_URL", "https://api.example.com@evil.test:8443/v1", "https://***@evil.test:8443/v1"),  # not the host it pretends
    ("MCP_SERVER_URL", "http://[::1]:8000/mcp", "http://[::1]:8000/mcp"),
    ("HOOK_SECRET_URL", "https://hooks.example/services/T0/B0/XXXX", "https://hooks.example/…"),  # a secret's host only
    ("NOTE", "x" * 200, "x" * 200), ("NOTE", "see http://u:p@h/x", None),
    ("MCP_CONFIG", "/" + "d" * 300 + "/evil.json", "/" + "d" * 98 + "…" + "d" * 89 + "/evil.json"),
])
def test_secret_values_are_never_shown_and_urls_show_their_host(name, value, shown):
    assert shown_value(name, value) == shown


def test_the_question_shows_every_decisive_variable_first_whatever_the_count(tmp_path):
    from client.ui import i18n
    from client.ui.trust import describe

    i18n.set_lang("en")
    from client.core.trust import HARMLESS

    padding = "".join(f"{name}=1\n" for name in sorted(HARMLESS))  # harmless lines first in the file
    decisive = [f"DECIDES_{i}=v{i}" for i in range(30)]
    env = padding + "\n".join(decisive) + "\nMCP_CONFIG=./mcp.json\nMCP_CHAT_YES=1\nOPENAI_BASE_URL=http://u:p@evil:1/v1\n"
    folder = hostile_folder(tmp_path, env.encode(), db=False)
    lines = describe(folder_offer(folder, [], False))
    body = "\n".join(lines)
    for shown in [*decisive, "MCP_CONFIG=./mcp.json", "MCP_CHAT_YES=1", "OPENAI_BASE_URL=http://***@evil:1/v1"]:
        assert f".env  {shown}\n" in body + "\n", shown
    first_harmless = next(i for i, ln in enumerate(lines) if any(f" {name}=" in ln for name in HARMLESS))
    late = "\n".join(lines[first_harmless:])
    assert not any(x in late for x in ("DECIDES_", "MCP_CONFIG=", "MCP_CHAT_YES", "OPENAI_BASE_URL"))  # decisive ones all came first
    assert any("… and" in ln for ln in lines) and "p@evil" not in body


def test_the_question_marks_what_changed_since_it_was_trusted(tmp_path):
    """A pull changed mcp.json and a database was copied over checkpoint.db: the first line names
    both, their lines carry the mark, the unchanged named file does not."""
    from client.ui import i18n
    from client.ui.trust import describe

    folder = hostile_folder(tmp_path, b"MCP_CONFIG=./mcp.json\nEXTRA_CONFIG=./same.json\n", db=False)
    (folder / "mcp.json").write_text("{}")
    (folder / "same.json").write_text("{}")
    db = folder / "checkpoint.db"
    _our_db(db)
    records = trust_now(folder)
    (folder / "mcp.json").write_text('{"mcpServers": {"x": {"command": "sh"}}}')
    _our_db(tmp_path / "planted.db")
    shutil.copyfile(tmp_path / "planted.db", db)
    known = records[0]
    o = folder_offer(folder, [], False, known)
    changed = changes(o, known)
    for lang, mark in (("en", "[changed]"), ("ko", "[바뀜]")):
        i18n.set_lang(lang)
        lines = describe(o, changed)
        assert "mcp.json, checkpoint.db" in lines[0], lines[0]
        line = {name: next(ln for ln in lines[1:] if ln.strip().startswith(str(folder.resolve() / name)))
                for name in ("mcp.json", "same.json", "checkpoint.db")}
        assert line["mcp.json"].endswith(" " + mark) and line["checkpoint.db"].endswith(" " + mark)
        assert mark not in line["same.json"]
        assert not any(mark in ln for ln in describe(o))  # the first question marks nothing


def test_the_record_round_trips_owner_only(tmp_path):
    path = tmp_path / "cfg" / "trusted-folders.json"
    records = with_record([], Record("/a", "d1", (("/a/mcp.json", "sha256:x"),)))
    records = with_record(records, Record("/b", None))
    records = with_record(records, Record("/a", "d2"))  # one entry per folder: the newer trust
    assert save_records(records, path) is None
    assert (path.stat().st_mode & 0o777, path.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    assert load_records(path) == [Record("/b", None), Record("/a", "d2")]
    assert without(records, "/a") == [Record("/b", None)]


def test_a_record_others_could_write_is_ignored(tmp_path):
    path = tmp_path / "trusted-folders.json"
    save_records([Record("/a", "d")], path)
    os.chmod(path, 0o666)
    assert load_records(path) == []
    os.chmod(path, 0o600)
    link = tmp_path / "link.json"
    link.symlink_to(path)
    assert load_records(link) == []  # not followed
    path.write_text(json.dumps({"folders": [{"path": 3}, "x", {"path": "/ok", "env_sha256": None},
                                            {"path": "/bad", "env_sha256": 5}]}))
    os.chmod(path, 0o600)
    assert load_records(path) == [Record("/ok", None)]


def test_a_version_1_record_still_trusts_the_env_and_asks_about_the_rest(tmp_path):
    folder = hostile_folder(tmp_path, b"MCP_CONFIG=./mcp.json\n", db=False)
    import hashlib

    path = tmp_path / "trusted-folders.json"
    path.write_text(json.dumps({"version": 1, "folders": [
        {"path": str(folder.resolve()), "env_sha256": hashlib.sha256((folder / ".env").read_bytes()).hexdigest()}]}))
    os.chmod(path, 0o600)
    assert check(folder, load_records(path)) == []  # mcp.json absent then and now
    (folder / "mcp.json").write_text("{}")
    assert check(folder, load_records(path)) == [str((folder / "mcp.json").resolve())]


def test_the_server_reads_the_same_record(tmp_path):
    """plumbing/trust_record.py: the env bytes the client's record trusted, else nothing."""
    folder = hostile_folder(tmp_path, b"NAVER_API_BASE_URL=http://127.0.0.1:9\n", db=False)
    path = tmp_path / "trusted-folders.json"
    assert trusted_env(path, folder) is None  # no record file
    save_records(trust_now(folder), path)
    assert trusted_env(path, folder) == (folder / ".env").read_bytes()
    (folder / ".env").write_bytes(b"NAVER_API_BASE_URL=http://evil:9\n")
    assert trusted_env(path, folder) is None
    os.chmod(path, 0o664)  # others could have written it
    assert trusted_env(path, folder) is None


def test_offer_is_pure():
    o = offer("/p", "abc", {"A": "1", "B": None}, ["PATH"])
    assert o.env == (("A", "1"),) and o.env_sha256 == "abc" and o.db is None


def test_the_shared_reader_is_stdlib_only_and_the_server_side_imports_no_client():
    import ast
    import sys

    root = Path(__file__).resolve().parents[2]

    def imports(path: Path) -> set[str]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        return names | {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}

    reader = {m.split(".")[0] for m in imports(root / "plumbing" / "trust_record.py")}
    assert reader <= set(sys.stdlib_module_names) | {"__future__", "plumbing"}, reader  # plumbing: its own package (plumbing/private.py)
    assert not any(m.startswith("client") for m in imports(root / "server" / "envfile.py"))
