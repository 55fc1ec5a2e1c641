"""Saved tool lists (issue 48) without processes: what a list is keyed by, who may read it, what is
ignored (another user's file, one others can write, a symlink, a corrupt one, anything in the working
folder), and that a hub offers a saved list before its server starts (deferred schemas index it)."""

from __future__ import annotations

import json
import os
import pwd
from pathlib import Path

import pytest
from langchain_core.tools import BaseTool
from mcp import types

from client.engine.mcp.hub import ToolHub
from client.engine.mcp import saved_tools as st
from client.engine.mcp.saved_tools import SavedTools, fingerprint
from client.engine.mcp.specs import ServerSpec
from client.engine.tool_search import ToolSearch
from client.ui.env_settings import dirs

TOOLS = [types.Tool(name="notes_write", description="Writes a note to the team notebook",
                    inputSchema={"type": "object", "properties": {"text": {"type": "string"}}})]


def spec(**kw) -> ServerSpec:
    base = dict(name="notes", transport="stdio", command="/usr/bin/notes-mcp", args=["--fast"], env={"TOKEN": "a"})
    return ServerSpec(**{**base, **kw})


def test_the_key_covers_the_whole_entry_and_the_client_version(monkeypatch):
    same = fingerprint(spec())
    assert fingerprint(spec()) == same
    for changed in (spec(command="/usr/bin/other"), spec(args=["--slow"]), spec(cwd="/srv"), spec(env={"TOKEN": "b"}),
                    spec(env={"TOKEN2": "a"}), spec(protocol="legacy"), spec(name="notes", transport="http",
                                                                         url="https://x/mcp", command="", args=[], env=None)):
        assert fingerprint(changed) != same
    http = spec(transport="http", url="https://x/mcp", command="", args=[], env=None, headers={"X-Key": "1"})
    assert fingerprint(http) != fingerprint(spec(transport="http", url="https://x/mcp", command="", args=[], env=None,
                                                 headers={"X-Other": "1"}))
    monkeypatch.setattr(st, "__version__", "99.0")
    assert fingerprint(spec()) != same


def test_a_relative_script_is_keyed_by_the_working_folder(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for d in ("a", "b"):
        (tmp_path / d / "server.py").write_text("")
    entry = spec(command="python", args=["server.py"], env=None)
    monkeypatch.chdir(tmp_path / "a")
    here = fingerprint(entry)
    monkeypatch.chdir(tmp_path / "b")
    assert fingerprint(entry) != here  # another folder's server.py is another server


def test_a_private_list_is_the_users_own_a_public_one_every_users(tmp_path):
    SavedTools("alice", tmp_path).save(spec(), TOOLS, 0, "private")
    assert SavedTools("alice", tmp_path).load(spec()).tools == TOOLS
    assert SavedTools("bob", tmp_path).load(spec()) is None
    SavedTools("alice", tmp_path).save(spec(), TOOLS, 600_000, "public")
    assert SavedTools("bob", tmp_path).load(spec()).ttl_ms == 600_000
    secret = spec(env={"TOKEN": "s3cr3t-value"})
    SavedTools("alice", tmp_path).save(secret, TOOLS, 0, "private")
    assert b"s3cr3t" not in SavedTools("alice", tmp_path).path(secret).read_bytes()  # its digest keys the file
    path = SavedTools("alice", tmp_path).path(spec())
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700


def test_a_file_another_user_could_have_written_is_ignored(tmp_path):
    saved = SavedTools("alice", tmp_path)
    saved.save(spec(), TOOLS, 0, "private")
    path = saved.path(spec())
    path.chmod(0o666)  # anyone may write it
    assert saved.load(spec()) is None and saved.problems == []  # absent, not corrupt
    path.chmod(0o600)
    os.rename(path, tmp_path / "real.json")
    path.symlink_to(tmp_path / "real.json")  # a link to a file that would do
    assert saved.load(spec()) is None
    if os.geteuid() == 0:  # another user's own file, private and well formed
        path.unlink()
        os.rename(tmp_path / "real.json", path)
        nobody = pwd.getpwnam("nobody")
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
        assert saved.load(spec()) is None
        assert ToolHub([spec()], saved=saved).tools == []


def test_nothing_is_read_from_the_working_folder(tmp_path, monkeypatch):
    planted = tmp_path / "work" / ".cache" / "mcp-chat" / "tools"
    SavedTools("alice", planted).save(spec(), TOOLS, 0, "private")
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.delenv("MCP_CHAT_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", ".cache")  # relative: not a per-user folder (XDG), ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = st.tools_dir(dirs().cache)  # the folders as the ui resolves them
    assert folder == tmp_path / "home" / ".cache" / "mcp-chat" / "tools"
    assert SavedTools("alice", folder).load(spec()) is None


@pytest.mark.parametrize("body", [b"{not json", b'{"format": 1, "tools": [{"name": 1}]}', b"[]",
                                  b'{"format": 1, "saved_at": 1, "ttl_ms": 0, "scope": "private", "user": "alice", '
                                  b'"tools": [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]}',
                                  b'{"format": 1, "saved_at": 1, "ttl_ms": -5, "scope": "private", "tools": []}',
                                  "\ufffe".encode()])
def test_a_corrupt_file_is_ignored_and_named_once(tmp_path, body):
    saved = SavedTools("alice", tmp_path)
    saved.save(spec(), TOOLS, 0, "private")
    saved.path(spec()).write_bytes(body)
    hub = ToolHub([spec()], saved=saved)
    assert hub.tools == []
    assert saved.take_problems() == [saved.path(spec())] and saved.take_problems() == []


def test_a_saved_list_is_offered_before_its_server_starts_whatever_its_ttl(tmp_path):
    saved = SavedTools("alice", tmp_path)
    saved.save(spec(), TOOLS, 0, "private")  # ttlMs 0 (or absent: a 2025 server): still offered
    doc = json.loads(saved.path(spec()).read_text())
    doc["saved_at"] -= 86_400 * 30
    saved.path(spec()).write_text(json.dumps(doc))
    hub = ToolHub([spec(), spec(name="fresh", command="/usr/bin/fresh")], saved=saved)
    assert [t.name for t in hub.tools] == ["notes_write"]
    assert hub.fleet.servers[0].live is False and hub.fleet.unknown() == []  # nothing started yet


def test_deferred_schemas_index_the_saved_lists(tmp_path):
    saved = SavedTools("alice", tmp_path)
    many = [types.Tool(name=f"notes_{i}", description=f"note tool {i}", inputSchema={"type": "object"}) for i in range(12)]
    saved.save(spec(), TOOLS + many, 0, "private")
    hub = ToolHub([spec()], saved=saved)

    def count(tools: list[BaseTool]) -> int:
        return 100 * len(tools)

    search = ToolSearch(hub.tools, 10_000, count)
    assert search.search_name == "tool_search"
    assert search.index.search("team notebook").names[0] == "notes_write"


def test_only_the_users_cache_folder_is_used(tmp_path, monkeypatch):
    monkeypatch.delenv("MCP_CHAT_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert st.tools_dir(dirs().cache) == Path(tmp_path / "c" / "mcp-chat" / "tools")
