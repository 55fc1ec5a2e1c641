"""Working-folder trust: the pure rules (client/core/trust.py) and the per-user record (client/engine/trust.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from client.core.trust import Records, TrustKey, offer, shown_value, trusted
from client.engine.trust import folder_offer, load_records, save_records

HOSTILE = b"MCP_CONFIG=./evil.json\nMCP_CHAT_YES=1\nCLOVA_STUDIO_BASE_URL=http://127.0.0.1:9/v1\nLD_PRELOAD=./evil.so\n"


def hostile_folder(tmp_path: Path, env: bytes = HOSTILE, db: bool = True) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir(exist_ok=True)
    (folder / ".env").write_bytes(env)
    if db:
        (folder / "checkpoint.db").write_bytes(b"")
    return folder


def test_an_untrusted_folder_offers_its_env_and_database(tmp_path):
    o = folder_offer(hostile_folder(tmp_path), real_env=["PATH"], db_chosen=False)
    assert [k for k, _ in o.env] == ["MCP_CONFIG", "MCP_CHAT_YES", "CLOVA_STUDIO_BASE_URL", "LD_PRELOAD"]
    assert o.db == str((tmp_path / "proj" / "checkpoint.db").resolve())
    assert not trusted(o, [])


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
    o = folder_offer(folder, [], False)
    assert trusted(o, [o.key])
    (folder / ".env").write_bytes(HOSTILE + b"EXTRA=1\n")  # a changed .env asks again
    assert not trusted(folder_offer(folder, [], False), [o.key])
    (folder / ".env").unlink()  # so does a removed one (the database alone is another offer)
    assert not trusted(folder_offer(folder, [], False), [o.key])
    other = tmp_path / "other"
    other.mkdir()
    (other / ".env").write_bytes(HOSTILE)
    assert not trusted(folder_offer(other, [], False), [o.key])  # same content elsewhere


def test_a_symlinked_folder_is_the_folder_it_points_to(tmp_path):
    folder = hostile_folder(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(folder)
    assert folder_offer(link, [], False).key == folder_offer(folder, [], False).key


@pytest.mark.parametrize("name,value,shown", [
    ("MCP_CONFIG", "./evil.json", "./evil.json"),
    ("CLOVA_STUDIO_API_KEY", "sk-1", None), ("NAVER_CLIENT_SECRET", "s", None), ("MY_TOKEN", "t", None),
    ("DB_PASSWORD", "p", None), ("CHECKPOINT_DB", "postgresql://u:pw@h/db", None),
    ("NOTE", "x" * 200, "x" * 200),
    ("MCP_CONFIG", "/" + "d" * 300 + "/evil.json", "/" + "d" * 98 + "…" + "d" * 89 + "/evil.json"),
])
def test_secret_values_are_never_shown(name, value, shown):
    assert shown_value(name, value) == shown


def test_the_record_round_trips_owner_only(tmp_path):
    path = tmp_path / "cfg" / "trusted-folders.json"
    records = Records()
    records.add(TrustKey("/a", "d1"))
    records.add(TrustKey("/b", None))
    records.add(TrustKey("/a", "d2"))  # one entry per folder: the newer .env
    assert save_records(records, path) is None
    assert (path.stat().st_mode & 0o777, path.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    assert load_records(path).keys == [TrustKey("/b", None), TrustKey("/a", "d2")]
    assert records.revoke("/a") == 1 and records.keys == [TrustKey("/b", None)]


def test_a_record_others_could_write_is_ignored(tmp_path):
    path = tmp_path / "trusted-folders.json"
    save_records(Records([TrustKey("/a", "d")]), path)
    os.chmod(path, 0o666)
    assert load_records(path).keys == []
    os.chmod(path, 0o600)
    link = tmp_path / "link.json"
    link.symlink_to(path)
    assert load_records(link).keys == []  # not followed
    path.write_text(json.dumps({"folders": [{"path": 3}, "x", {"path": "/ok", "env_sha256": None}]}))
    os.chmod(path, 0o600)
    assert load_records(path).keys == [TrustKey("/ok", None)]


def test_offer_is_pure():
    o = offer("/p", b"A=1\n", {"A": "1", "B": None}, ["PATH"], None)
    assert o.env == (("A", "1"),) and o.env_sha256 and o.db is None
