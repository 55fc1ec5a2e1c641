"""A checkpoint row naming code (msgpack Ext -> os.system) runs nothing, on either backend.

Another party with write access to the database (a planted ./checkpoint.db, a shared
PostgreSQL) rewrites the latest checkpoint of a thread the client made itself. Resuming it
(-c, --thread, -p) gives one line and exit 1; no request reaches the model.
"""

from __future__ import annotations

from pathlib import Path

import ormsgpack

from tests.backends import is_pg, query


def tamper(db: str, thread: str, marker: Path) -> None:
    """Put an object naming `os.system` into the thread's stored messages."""
    evil = ormsgpack.Ext(0, ormsgpack.packb(["os", "system", f"touch {marker}"]))
    if is_pg(db):  # channel values live in checkpoint_blobs
        n = query(db, "UPDATE checkpoint_blobs SET type='msgpack', blob=? WHERE thread_id=? AND channel='messages'",
                  (ormsgpack.packb([evil]), thread))
        assert query(db, "SELECT count(*) FROM checkpoint_blobs WHERE thread_id=? AND channel='messages'", (thread,))[0][0]
        return
    rows = query(db, "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id=?", (thread,))
    assert rows
    for cid, blob in rows:
        doc = ormsgpack.unpackb(blob, ext_hook=lambda c, b: ormsgpack.Ext(c, b), option=ormsgpack.OPT_NON_STR_KEYS)
        doc["channel_values"]["messages"] = [evil]
        query(db, "UPDATE checkpoints SET checkpoint=? WHERE checkpoint_id=?",
              (ormsgpack.packb(doc, option=ormsgpack.OPT_NON_STR_KEYS), cid))


def test_a_tampered_checkpoint_runs_nothing(cli, llm, tmp_path):
    r = cli("--thread", "t1", "--no-memory", input="안녕\n")
    assert r.code == 0, r.err
    marker = tmp_path / "ran"
    tamper(cli.db, "t1", marker)
    asked = len(llm.chat_requests())
    for args, words in ((["-c"], "변조"), (["-p", "question", "--thread", "t1", "--lang", "en"], "altered")):
        r = cli(*args, "--no-memory", input="다음 질문\n")
        assert r.code == 1, (args, r.err)
        assert len(r.err.strip().splitlines()) == 1, (args, r.err)  # one line
        assert words in r.err and "os.system" in r.err and "Traceback" not in r.err, r.err
        assert not marker.exists(), args
    assert len(llm.chat_requests()) == asked  # nothing was sent
