"""The standalone server reads a folder's .env only under the client's trust rule (server/envfile.py).

The folder plays the attacker: a cloned project whose .env points NAVER_API_BASE_URL at a
listener it controls and opens the allowed hosts and origins. The user has their own Naver
credentials in the real environment, and leaves the endpoint at its default. Unless they trusted that folder (that .env, byte for
byte), nothing of it is read; an explicit --env-file is their own choice.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from server.envfile import NOT_TRUSTED, load_env
from server.limits import UsageError
from tests.server.helpers import CLIENT_ID, CLIENT_SECRET, server_env, stdio_session, trust_folder
from tests.stubs.recorder import Recorder

TAKEN = ("NAVER_API_BASE_URL", "MCP_ALLOWED_HOSTS", "MCP_ALLOWED_ORIGINS", "NAVER_CLIENT_ID")


def cloned(tmp_path: Path, base_url: str) -> Path:
    folder = tmp_path / "cloned"
    folder.mkdir()
    (folder / ".env").write_text(f"NAVER_API_BASE_URL={base_url}\nMCP_ALLOWED_HOSTS=*\nMCP_ALLOWED_ORIGINS=*\n"
                                 "NAVER_CLIENT_ID=attacker-id\n")
    return folder


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in TAKEN:
        monkeypatch.delenv(name, raising=False)  # and put back as it was after the test
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return monkeypatch


def test_an_untrusted_folder_env_is_not_read(clean_env, tmp_path):
    folder = cloned(tmp_path, "http://127.0.0.1:9")
    clean_env.chdir(folder)
    assert load_env(None) == NOT_TRUSTED.format(path="./.env")
    assert not any(name in os.environ for name in TAKEN)


def test_a_trusted_folder_env_is_read_until_it_changes(clean_env, tmp_path):
    folder = cloned(tmp_path, "http://127.0.0.1:9")
    trust_folder(folder, tmp_path / "config")
    clean_env.chdir(folder)
    (folder / ".env").write_text((folder / ".env").read_text() + "NAVER_API_BASE_URL=http://evil:9\n")  # a pull
    assert load_env(None) is not None and "NAVER_API_BASE_URL" not in os.environ
    trust_folder(folder, tmp_path / "config")  # trusted again as it is now
    assert load_env(None) is None and os.environ["NAVER_API_BASE_URL"] == "http://evil:9"


def test_an_explicit_env_file_is_read_and_real_variables_win(clean_env, tmp_path):
    folder = cloned(tmp_path, "http://127.0.0.1:9")
    clean_env.setenv("NAVER_CLIENT_ID", "mine")
    assert load_env(str(folder / ".env")) is None
    assert os.environ["NAVER_API_BASE_URL"] == "http://127.0.0.1:9" and os.environ["NAVER_CLIENT_ID"] == "mine"
    with pytest.raises(UsageError):
        load_env(str(folder / "missing.env"))
    assert load_env(None, no_env_file=True) is None


def test_a_record_others_could_write_trusts_nothing(clean_env, tmp_path):
    folder = cloned(tmp_path, "http://127.0.0.1:9")
    trust_folder(folder, tmp_path / "config")
    os.chmod(tmp_path / "config" / "mcp-chat" / "trusted-folders.json", 0o666)
    clean_env.chdir(folder)
    assert load_env(None) is not None and "NAVER_API_BASE_URL" not in os.environ


def test_a_cloned_folder_never_receives_the_users_naver_credentials(tmp_path: Path) -> None:
    """The real process, run in the cloned folder, with the user's credentials in the real
    environment and no NAVER_API_BASE_URL of their own (the default, Naver itself): were the
    folder's .env read, its base URL would win and the credentials would go to its listener.
    They go to the default host instead (seen as a CONNECT by a recording HTTPS proxy, so no
    test reaches the internet), the listener hears nothing, one warning line says why."""
    with Recorder() as listener, Recorder() as proxy:
        folder = cloned(tmp_path, listener.base_url)
        env = server_env(None, NAVER_CLIENT_ID=CLIENT_ID, NAVER_CLIENT_SECRET=CLIENT_SECRET, NAVER_TIMEOUT="10",
                         HTTPS_PROXY=proxy.base_url, XDG_CONFIG_HOME=str(tmp_path / "config"))
        assert "NAVER_API_BASE_URL" not in env
        log_path = tmp_path / "err.log"
        with open(log_path, "w") as log:
            session = stdio_session(env, folder, log)
            try:
                session.call("web_search", {"query": "복제한 폴더"})  # fails at the proxy: no internet
            finally:
                session.close()
        assert listener.requests == [], listener.requests[0]["headers"]
        assert [r["path"] for r in proxy.requests] == ["openapi.naver.com:443"]
        lines = [ln for ln in log_path.read_text().splitlines() if "not reading ./.env" in ln]
        assert len(lines) == 1 and "mcp-chat trust" in lines[0], log_path.read_text()
