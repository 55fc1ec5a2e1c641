"""Create or upgrade the database schema (idempotent; touches no data).

    python init_db.py [--db PATH | --db postgresql://USER:PASS@HOST/DB]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from dotenv import load_dotenv


async def init(db: str) -> None:
    from client.engine.store import open_store

    store = await open_store(db)  # runs the saver's setup() and our migrations
    await store.close()


def main(argv: list[str] | None = None) -> int:
    load_dotenv(".env", override=False)
    p = argparse.ArgumentParser(description="mcp-chat 데이터베이스 스키마 생성/업그레이드")
    p.add_argument("--db", default=os.environ.get("CHECKPOINT_DB") or "checkpoint.db",
                   help="SQLite 파일 또는 postgresql:// URL (env CHECKPOINT_DB)")
    args = p.parse_args(argv)
    from client.ui.i18n import t
    from client.engine.store import StoreError, mask_url

    try:
        asyncio.run(init(args.db))
    except StoreError as e:
        print(t(e.key, **e.fmt), file=sys.stderr)
        return 1
    print(f"스키마 준비 완료: {mask_url(args.db)}")  # never the password
    return 0


if __name__ == "__main__":
    sys.exit(main())
