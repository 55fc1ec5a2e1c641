"""`mcp-chat import FILE`: a conversation from a file becomes a thread (client/engine/importer.py).

Our own JSON export or the LoCoMo format (client/core/transcripts/). The whole file is read and
checked before the database is opened: a malformed file is one line and exit code 1, and
nothing is stored (not even a new database file). Prints each new thread's id on stdout, one a
line; the one-line report of each goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from client.core.paths import LOCAL_DB, ensure_private_dir
from client.ui import env_settings
from client.ui.i18n import t, tr
from client.ui.options import add_db_option, add_user_option
from client.ui.safe_text import screen

EXIT_OK, EXIT_RUNTIME = 0, 1


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("import", prog="mcp-chat import", help=tr("파일의 대화를 새 세션으로 가져오기", "import a conversation from a file"),
                       description=tr("mcp-chat 의 JSON 내보내기(export --format json) 또는 LoCoMo 형식의 대화를 새 세션으로 저장합니다",
                                      "store a conversation from an mcp-chat JSON export (export --format json) or a LoCoMo file as a new session"))
    p.add_argument("file", metavar="FILE", help=tr("가져올 JSON 파일", "the JSON file to import"))
    p.add_argument("--conversation", metavar="ID", help=tr("이 ID 의 대화만 (LoCoMo 의 sample_id)", "only the conversation with this id (LoCoMo sample_id)"))
    p.add_argument("--sessions", type=int, metavar="K", help=tr("LoCoMo: 처음 K개 세션만", "LoCoMo: only the first K sessions"))
    add_db_option(p)
    add_user_option(p)
    return p


async def dispatch(args: argparse.Namespace, db: str) -> int:
    from client.ui.options import import_identity

    user, prompt = import_identity(args)
    return await run_import(db, args.file, conversation=args.conversation, sessions=args.sessions, user=user,
                            system_prompt=prompt)


def read_file(path: str) -> bytes:
    from client.core.transcripts import MAX_FILE_BYTES, ImportFormatError

    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise ImportFormatError("import_unreadable", e.strerror or type(e).__name__) from None
    return raw


async def run_import(db: str, path: str, *, conversation: str | None, sessions: int | None, user: str,
                     system_prompt: str) -> int:
    from client.core.transcripts import ImportFormatError, parse_text  # messages: langchain, not for --help

    try:
        convs = parse_text(read_file(path), conversation=conversation, sessions=sessions)
    except ImportFormatError as e:
        why = t(e.key, detail=screen(e.detail), err=screen(e.detail))
        print(screen(t("import_failed", file=Path(path).name, why=why)), file=sys.stderr, flush=True)
        return EXIT_RUNTIME
    from client.engine.importer import import_all
    from client.engine.store import open_store

    dirs = env_settings.dirs()
    if db == str(dirs.data / LOCAL_DB):  # the per-user default: its folder may not exist yet
        ensure_private_dir(dirs.data)
    store = await open_store(db, config=dirs.config)
    try:
        ids = await import_all(store, convs, user=user, system_prompt=system_prompt)
        for tid, conv in zip(ids, convs):
            info = await store.get_thread(tid)
            print(tid, flush=True)
            print(screen(t("imported", title=conv.title or tid, turns=info.turns if info else 0, id=tid)),
                  file=sys.stderr, flush=True)
    finally:
        await store.close()
    return EXIT_OK
