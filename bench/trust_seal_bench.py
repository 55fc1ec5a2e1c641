"""What trusting a folder's database by content costs at start-up (issue 50).

    python bench/trust_seal_bench.py [--sizes 1,10,100,500] [--repeat 5]

A run in a trusted folder checks its ./checkpoint.db twice as it starts (the start-up question,
the store as it opens) and seals it at the last close (client/engine/trust_db.py). A check of a
database whose four files' status (inode, size, mtime, ctime) is what was sealed reads nothing;
the seal after a run that wrote reads the main file and sidecars whole for the sha256. Per
database size (a SQLite file filled with rows, in the page cache as after any recent use): the
median of a full read (the seal after writing, or a check of a changed file), of a check of an
unchanged one, and of the stat-only identity the record used before (device, inode).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from client.engine.trust_db import db_seal  # noqa: E402


def make(path: Path, mb: int) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x BLOB)")
    blob = os.urandom(64 * 1024)
    for _ in range(mb * 16):
        con.execute("INSERT INTO t VALUES (?)", (blob,))
    con.commit()
    con.close()


def timed(fn, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,10,100,500")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'database':>10}  {'full read':>10}  {'unchanged':>10}  {'stat (before)':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        for mb in (int(s) for s in args.sizes.split(",")):
            db = Path(tmp) / f"{mb}.db"
            make(db, mb)
            sealed = db_seal(str(db))  # in the page cache, as after the last run
            full = timed(lambda: db_seal(str(db)), args.repeat)
            unchanged = timed(lambda: db_seal(str(db), sealed), args.repeat)
            stat = timed(lambda: os.stat(db), args.repeat)
            print(f"{db.stat().st_size / 1e6:>8.1f}MB  {full:>8.1f}ms  {unchanged:>8.3f}ms  {stat:>11.3f}ms", flush=True)


if __name__ == "__main__":
    main()
