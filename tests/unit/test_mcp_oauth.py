"""OAuth token storage: private files per user outside the working folder; the loopback callback."""

from __future__ import annotations

import asyncio
import os
import stat
from urllib.parse import urlencode

import httpx
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from client.engine.mcp.oauth import FileTokenStorage, LoopbackCallback, token_dir
from client.ui.env_settings import dirs
from tests.faults.files import unprivileged_ids


async def test_tokens_are_private_per_user_and_outside_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    data = dirs().data  # the folders as the ui resolves them
    store = FileTokenStorage(token_dir(data, "kim"), "https://mcp.example/mcp", "http://127.0.0.1:5000/callback", None)
    await store.set_tokens(OAuthToken(access_token="at-secret", refresh_token="rt-secret", expires_in=60))
    assert store.path.parent == token_dir(data, "kim") and str(store.path).startswith(str(tmp_path / "data"))
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.path.parent).st_mode) == 0o700
    assert (await store.get_tokens()).refresh_token == "rt-secret"
    other = FileTokenStorage(token_dir(data, "lee"), "https://mcp.example/mcp", "http://127.0.0.1:5000/callback", None)
    assert await other.get_tokens() is None  # per user
    assert not list(tmp_path.glob("*.json"))  # nothing in the working folder


async def test_tokens_follow_the_private_file_rule(tmp_path, monkeypatch):
    """plumbing/private.py's one rule: written 0600 whatever the umask, read only as a private
    regular file of this user, never through a symlink; anything else counts as no tokens."""
    store = FileTokenStorage(token_dir(tmp_path / "data", "kim"), "https://mcp.example/mcp", "http://127.0.0.1:5000/callback", None)
    old = os.umask(0)
    try:
        await store.set_tokens(OAuthToken(access_token="at-1", refresh_token="rt-1", expires_in=60))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600 and list(store.path.parent.iterdir()) == [store.path]
    assert (await store.get_tokens()).access_token == "at-1"
    store.path.chmod(0o640)  # readable by the group: another user may have read (or written) it
    assert await store.get_tokens() is None
    store.path.chmod(0o600)
    planted = tmp_path / "planted.json"
    planted.write_bytes(store.path.read_bytes())
    planted.chmod(0o600)
    store.path.unlink()
    store.path.symlink_to(planted)  # never read through a symlink
    assert await store.get_tokens() is None
    await store.set_tokens(OAuthToken(access_token="at-2", expires_in=60))  # replaces the link, not its target
    assert not store.path.is_symlink() and (await store.get_tokens()).access_token == "at-2"
    assert "at-1" in planted.read_text()


async def test_a_client_registered_for_another_port_registers_again(tmp_path, monkeypatch):
    old = FileTokenStorage(token_dir(tmp_path, "u"), "https://s/mcp", "http://127.0.0.1:1111/callback", None)
    await old.set_client_info(OAuthClientInformationFull(client_id="c1", redirect_uris=["http://127.0.0.1:1111/callback"]))
    assert (await old.get_client_info()).client_id == "c1"
    new = FileTokenStorage(token_dir(tmp_path, "u"), "https://s/mcp", "http://127.0.0.1:2222/callback", None)
    assert await new.get_client_info() is None
    preset = OAuthClientInformationFull(client_id="pre", redirect_uris=["http://127.0.0.1:2222/callback"])
    assert (await FileTokenStorage(token_dir(tmp_path, "u"), "https://s/mcp", "x", preset).get_client_info()).client_id == "pre"


async def test_loopback_callback_receives_the_code():
    cb = LoopbackCallback()
    uri = await cb.start()
    cb.expect("https://as.example/authorize?state=xyz")
    try:
        async with httpx.AsyncClient() as http:
            assert (await http.get(uri.replace("/callback", "/other"))).status_code == 404
            r = await http.get(uri, params={"code": "abc", "state": "xyz", "iss": "https://as.example"})
        assert r.status_code == 200
        got = await asyncio.wait_for(cb.wait(), 5)
        # iss is handed on: the SDK checks it against the authorization server's issuer (RFC 9207)
        assert (got.code, got.state, got.iss) == ("abc", "xyz", "https://as.example")
    finally:
        await cb.aclose()


SEND = "import sys, urllib.request, urllib.error\ntry:\n    urllib.request.urlopen(sys.argv[1], timeout=30)\n" \
       "except urllib.error.HTTPError as e:\n    print(e.code)\nelse:\n    print(200)\n"


async def test_another_local_user_cannot_end_a_login_through_the_callback(tmp_path):
    """Issue 50: the callback answers only the state of the login's authorization URL; a forged
    `error=` (or `code=`) from another OS user is refused and the login goes on."""
    ids, _ = unprivileged_ids(tmp_path)
    cb = LoopbackCallback()
    uri = await cb.start()
    cb.expect("https://as.example/authorize?" + urlencode({"state": "the-real-state", "client_id": "c"}))

    async def as_other_user(query: dict[str, str]) -> str:
        def become() -> None:
            if ids is not None:
                os.setgid(ids[1])
                os.setuid(ids[0])

        proc = await asyncio.create_subprocess_exec(
            "/usr/bin/python3", "-I", "-c", SEND, f"{uri}?{urlencode(query)}",
            stdout=asyncio.subprocess.PIPE, preexec_fn=become, cwd="/")
        out, _ = await proc.communicate()
        return out.decode().strip()

    try:
        assert await as_other_user({"error": "access_denied"}) == "400"
        assert await as_other_user({"error": "access_denied", "state": "guessed"}) == "400"
        assert await as_other_user({"code": "stolen", "state": "guessed"}) == "400"
        assert not cb._result.done()  # the login still waits for its own answer
        async with httpx.AsyncClient() as http:
            r = await http.get(uri, params={"code": "abc", "state": "the-real-state"})
        assert r.status_code == 200
        got = await asyncio.wait_for(cb.wait(), 5)
        assert (got.code, got.state) == ("abc", "the-real-state")
    finally:
        await cb.aclose()
