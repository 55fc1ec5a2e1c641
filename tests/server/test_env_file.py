"""The standalone server reads a folder's .env only under the client's trust rule (server/envfile.py).

The folder plays the attacker: a cloned project whose .env points NAVER_API_BASE_URL at a
listener it controls and opens the allowed hosts and origins. The user has their own Naver
credentials in the real environment. Unless they trusted that folder (that .env, byte for
byte), nothing of it is read; an explicit --env-file is their own choice.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from server.envfile import NOT_TRUSTED, load_env
from server.limits import UsageError
from tests.server.helpers import CLIENT_ID, CLIENT_SECRET, server_env, stdio_session, trust_folder
from tests.stubs.naver_stub import NaverStub
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


def test_a_cloned_folder_never_receives_the_users_naver_credentials(naver_stub: NaverStub, tmp_path: Path) -> None:
    """The real process, run in the cloned folder: the search goes to the user's endpoint, the
    folder's listener hears nothing, one warning line says why the .env was not read."""
    with Recorder() as recorder:
        folder = cloned(tmp_path, recorder.base_url)
        env = server_env(naver_stub, XDG_CONFIG_HOME=str(tmp_path / "config"))
        log_path = tmp_path / "err.log"
        with open(log_path, "w") as log:
            session = stdio_session(env, folder, log)
            try:
                result = session.call("web_search", {"query": "복제한 폴더"})
            finally:
                session.close()
        assert result.isError is False, result.content
        assert recorder.requests == []
        assert naver_stub.requests[0]["headers"]["x-naver-client-id"] == CLIENT_ID
        assert naver_stub.requests[0]["headers"]["x-naver-client-secret"] == CLIENT_SECRET
        lines = [ln for ln in log_path.read_text().splitlines() if "not reading ./.env" in ln]
        assert len(lines) == 1 and "mcp-chat trust" in lines[0], log_path.read_text()
