"""Create or upgrade the database schema (idempotent; touches no data).

    python init_db.py [--db PATH | --db postgresql://USER:PASS@HOST/DB]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys


async def init(db: str) -> None:
    from client.engine.store import open_store

    store = await open_store(db)  # runs the saver's setup() and our migrations
    await store.close()


def main(argv: list[str] | None = None) -> int:
    from client.core.config import ConfigError
    from client.ui.i18n import t
    from client.ui.trust import load_user_env, settle

    p = argparse.ArgumentParser(description="mcp-chat 데이터베이스 스키마 생성/업그레이드")
    p.add_argument("--db", default=None, help="SQLite 파일 또는 postgresql:// URL (env CHECKPOINT_DB, 기본 ./checkpoint.db)")
    args = p.parse_args(argv)
    real_env = set(os.environ)
    try:
        load_user_env()  # a .env that is not UTF-8 text: one line, exit 2
        settle(args.db or "checkpoint.db", real_env)  # the folder's .env only once trusted (client/core/trust.py)
    except ConfigError as e:
        print(t(e.key, **e.fmt), file=sys.stderr)
        return 2
    args.db = args.db or os.environ.get("CHECKPOINT_DB") or "checkpoint.db"
    from client.engine.store import StoreError, mask_url

    try:
        asyncio.run(init(args.db))  # a damaged or read-only file is refused untouched
    except StoreError as e:
        print(t(e.key, **e.fmt), file=sys.stderr)
        return 1
    print(f"스키마 준비 완료: {mask_url(args.db)}")  # never the password
    return 0


if __name__ == "__main__":
    sys.exit(main())
