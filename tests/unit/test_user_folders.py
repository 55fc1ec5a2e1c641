"""Per-user folders and file names follow one rule (client/core/config.py Dirs, read from the
environment once by the ui: client/ui/env_settings.py), wherever they are used: saved approvals,
OAuth tokens, input history, the local model's cache, the default database."""

from __future__ import annotations

import pytest

from client.core.paths import default_db, safe_name
from client.engine.mcp.oauth import token_dir
from client.engine.mcp.saved_approvals import approvals_path
from client.ui.env_settings import dirs
from client.ui.tui import history_path

XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")


def _places(user: str) -> dict:
    d = dirs()
    return {"approvals": approvals_path(d.config, user).parent, "tokens": token_dir(d.data, user).parent,
            "history": history_path(user).parent, "cache": d.cache, "db": default_db(d)}


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MCP_CHAT_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "home"


def test_a_relative_xdg_value_never_makes_the_working_folder_a_user_folder(home, monkeypatch):
    for var in XDG:
        monkeypatch.setenv(var, "relative/dir")  # the XDG spec: ignored
    assert _places("kim") == {"approvals": home / ".config" / "mcp-chat",
                              "tokens": home / ".local" / "share" / "mcp-chat" / "oauth",
                              "history": home / ".local" / "share" / "mcp-chat",
                              "cache": home / ".cache" / "mcp-chat",
                              "db": str(home / ".local" / "share" / "mcp-chat" / "checkpoint.db")}


def test_absolute_xdg_values_and_the_cache_override(home, tmp_path, monkeypatch):
    for var in XDG:
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    got = _places("kim")
    assert got["approvals"] == tmp_path / "xdg_config_home" / "mcp-chat"
    assert got["tokens"].parent == got["history"] == tmp_path / "xdg_data_home" / "mcp-chat"
    assert got["cache"] == tmp_path / "xdg_cache_home" / "mcp-chat"
    monkeypatch.setenv("MCP_CHAT_CACHE", str(tmp_path / "own-cache"))
    assert dirs().cache == tmp_path / "own-cache"


def test_the_settings_carry_the_folders_of_the_environment_they_were_resolved_in(home, tmp_path, monkeypatch):
    """Resolved once (client/ui/options.py): a later change of the environment moves nothing."""
    import argparse

    from client.ui.options import add_chat_options, resolve

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("CLOVA_STUDIO_API_KEY", "k")
    p = argparse.ArgumentParser()
    add_chat_options(p)
    s = resolve(p.parse_args([]), interactive=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "elsewhere"))
    assert s.dirs.data == tmp_path / "data" / "mcp-chat" and s.db == str(tmp_path / "data" / "mcp-chat" / "checkpoint.db")


@pytest.mark.parametrize("user,safe", [("kim", "kim"), ("a.b-c_d", "a.b-c_d"), ("../x", "_x"), ("", "user"),
                                       ("...", "user"), ("김철수", "___"), ("a/b\\c d", "a_b_c_d"), ("x" * 99, "x" * 64)])
def test_a_user_name_in_a_file_name(user, safe, home):
    d = dirs()
    names = [approvals_path(d.config, user).name, token_dir(d.data, user).name, history_path(user).name]
    assert safe_name(user) == safe
    assert names == [f"permissions-{safe}.json", safe, f"history-{safe}"]  # one rule in all three
