"""A working folder's database, trusted by content (the rule: client/core/trust.py DbSeal).

- `db_seal`: the sha256 of the main file and of its `-wal`, `-shm` and `-journal` (each absent,
  its bytes, or "not a file"), read without blocking and only from regular files, and which file
  the main one is (device, inode). A `git pull` or `git checkout` that puts another file in its
  place, or a `-wal` a later commit adds, changes it, whatever inode the new file gets. Files
  whose status (inode, size, mtime, ctime) is what it was when they were last hashed are not
  read again: a file written since, or created in its place, has a new ctime (bench/trust_seal_bench.py).
- `in_use`: another client of this user holds a thread of the database now (its `<db>-lock`,
  client/engine/store/filelock.py).
- `sealer`: the client's own writes are no change. A store about to open a trusted folder's
  database gets a seal to run at its close when it is the last client of that database (under
  the whole lock file, after SQLite folded its `-wal` in): the record then holds the content as
  this client left it. Only when the file matched the record as the store opened it (an explicit
  `--db` on a changed file is not sealed) and the main file is still the one it opened (a file put
  in its place meanwhile is not).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Callable

from client.core.trust import DbSeal, same_db
from client.engine.trust_records import load_records, record_path, update
from plumbing.locks import ranges_held
from plumbing.trust_record import sha256_file

SIDECARS = ("-wal", "-shm", "-journal")


def db_seal(path: str, known: DbSeal | None = None) -> DbSeal:
    """The database's content now (sha256 None: no main file). `known`: a seal taken before; when
    none of the four files' status changed since (the same inode, size, mtime and ctime: the
    kernel sets ctime on every write and creation, and no one can set it back), its digest
    stands without reading the files again."""
    real = os.path.realpath(path)
    stats = _stats(real)
    if known is not None and known.sha256 is not None and known.stats == stats:
        return dataclasses.replace(known, path=path)
    main, st = sha256_file(real)
    if main is None or st is None:
        return DbSeal(path, None)
    h = hashlib.sha256(main.encode())
    for side in SIDECARS:
        digest, _ = sha256_file(real + side)
        h.update(f"\0{side}\0{digest or '-'}".encode())
    steady = stats if _stats(real) == stats else ""  # changed while read: read again next time
    return DbSeal(path, h.hexdigest(), st.st_dev, st.st_ino, steady)


def _stats(real: str) -> str:
    out = []
    for name in (real, *(real + side for side in SIDECARS)):
        try:
            st = os.stat(name)
        except OSError:
            out.append("-")
            continue
        out.append(f"{st.st_mode}:{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
    return "|".join(out)


def in_use(db: str) -> bool:
    return ranges_held(db + "-lock")  # the store's per-thread locks (client/engine/store/filelock.py)


def sealer(db: str, config: Path) -> Callable[[], None] | None:
    """What seals `db` again at this client's last close, when a trusted folder's record (in the
    user's `config` folder) names it and it is what that record holds now; None otherwise."""
    real, records = os.path.realpath(db), record_path(config)
    rec = next((r for r in load_records(records) if r.db is not None and r.db.path
                and os.path.realpath(r.db.path) == real), None)
    if rec is None or rec.db is None:
        return None
    now = db_seal(rec.db.path, rec.db)
    if not same_db(rec.db, now, now.sha256 != rec.db.sha256 and in_use(db)):
        return None
    folder, path, opened = rec.folder, rec.db.path, (now.dev, now.ino)
    return lambda: _reseal(records, folder, path, opened, now)


def _reseal(records: Path, folder: str, path: str, opened: tuple[int, int], was: DbSeal) -> None:
    sealed = db_seal(path, was)  # nothing written: nothing read
    if sealed.sha256 is None or (opened != (0, 0) and (sealed.dev, sealed.ino) != opened):
        return  # gone, or another file put in its place while this client had it open: not ours to seal

    def change(records: list) -> list:
        return [dataclasses.replace(r, db=sealed) if r.folder == folder and r.db is not None and r.db.path == path
                else r for r in records]

    update(records, change)  # best effort: a seal that cannot be written asks once more at the next start
