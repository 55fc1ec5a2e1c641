"""`mcp-chat threads`, `export ID`, `delete ID` and `fork ID`: the commands that use a database without a chat.

They start no server and no model, so the secrets the chat would know are learned first
(`learn_secrets`: the environment's, the MCP config's credentials, saved OAuth tokens, the
database URL's password) and masked in everything printed, also rows an older client stored
raw. They go through the engine's `Threads`, as the chat's slash commands do: ID may be a unique
prefix (`Threads.match`); an ambiguous one is a usage error (exit 2) naming the candidates.
"""

from __future__ import annotations

import sys
from pathlib import Path

from client.core.config import ConfigError, url_passwords
from client.ui import env_settings
from client.core.pg_url import is_postgres_url
from client.core.secrets import remember
from client.engine.store import StoreError
from client.engine.threads import Threads
from client.ui.i18n import t

EXIT_OK = 0
CANDIDATES_SHOWN = 10


def _missing_file(db: str) -> bool:
    """A SQLite path with no file behind it: read-only commands must not create one."""
    return not is_postgres_url(db) and not Path(db).exists()


def learn_secrets(db: str) -> None:
    """What the chat would mask, known without starting it (client/core/secrets.py `remember`)."""
    from client.engine.mcp.oauth import stored_secrets
    from client.engine.mcp.specs import config_secrets

    remember(url_passwords(db))
    dirs, env = env_settings.dirs(), env_settings.environ()
    for path in {env_settings.raw("MCP_CONFIG") or "", str(dirs.config / "mcp.json")}:
        if path and Path(path).is_file():
            config_secrets(path, env)
    stored_secrets(dirs.data)


async def resolve_ref(threads: Threads, ref: str) -> str:
    """The thread `ref` names: itself, or the one thread whose id starts with it."""
    found = await threads.match(ref)
    if len(found) == 1:
        return found[0]
    if not found:
        raise StoreError("no_thread", id=ref)
    shown = ", ".join(found[:CANDIDATES_SHOWN]) + (", …" if len(found) > CANDIDATES_SHOWN else "")
    raise ConfigError("thread_ambiguous", id=ref, ids=shown)


async def run_threads(db: str) -> int:
    from client.ui.render import Renderer

    if _missing_file(db):
        Renderer().line(t("threads_empty"))
        return EXIT_OK
    from client.engine.store import open_store
    from client.ui.slash.threads import print_threads

    learn_secrets(db)  # a title an older client stored with a key in it
    store = await open_store(db, readonly=True)  # nothing written, whatever the permissions
    try:
        await print_threads(Threads(store), Renderer())
    finally:
        await store.close()
    return EXIT_OK


async def run_export(db: str, thread: str, fmt: str) -> int:
    if _missing_file(db):
        raise StoreError("no_thread", id=thread)
    from client.engine.store import open_store
    from client.ui.export import to_json, to_markdown
    from client.ui.safe_text import screen

    learn_secrets(db)
    store = await open_store(db, readonly=True)
    try:
        threads = Threads(store)
        data = await threads.export(await resolve_ref(threads, thread))
        info, rows = data.info, data.rows
        if info is None:
            raise StoreError("no_thread", id=thread)
        tty = sys.stdout.isatty()  # a terminal gets the text cleaned; a file or pipe keeps it (controls written out)
        text = to_json(info, rows) + "\n" if fmt == "json" else to_markdown(info, rows, terminal=tty)
        sys.stdout.write(screen(text) if tty else text)
    finally:
        await store.close()
    return EXIT_OK


async def run_delete(db: str, thread: str) -> int:
    if _missing_file(db):
        raise StoreError("no_thread", id=thread)
    from client.engine.store import open_store

    store = await open_store(db, config=env_settings.dirs().config)
    try:
        threads = Threads(store)
        thread = await resolve_ref(threads, thread)
        if not await threads.delete(thread):
            raise StoreError("no_thread", id=thread)
        await store.vacuum()  # give the space back now: delete is explicit and rare
        from client.ui.safe_text import screen

        print(screen(t("deleted", id=thread)))  # the id as the database holds it
    finally:
        await store.close()
    return EXIT_OK


async def run_fork(db: str, thread: str, at: int | None, name: str | None, user: str) -> int:
    """`mcp-chat fork ID [--at N] [--name NEW] [--user NAME]`: the new thread (`user`'s) id on stdout
    (for scripts), a line on how to go on in it on stderr, and one on whose the source was when it
    was another user's (client/engine/forks.py does the work)."""
    if _missing_file(db):
        raise StoreError("no_thread", id=thread)
    from client.engine.store import open_store

    learn_secrets(db)  # a --name holding one is refused
    store = await open_store(db, config=env_settings.dirs().config)
    try:
        threads = Threads(store, user=user)
        thread = await resolve_ref(threads, thread)
        source = await threads.info(thread)
        new = await threads.fork(thread, at=at, new_id=name)
        info = await threads.info(new)
        print(new, flush=True)
        print(t("forked_cli", src=thread, n=info.parent_turn if info else at, id=new), file=sys.stderr)
        if source is not None and source.user_name not in ("", user):  # whose it was: never silent
            from client.ui.safe_text import screen

            print(screen(t("forked_other_owner", owner=source.user_name, user=user)), file=sys.stderr)
    finally:
        await store.close()
    return EXIT_OK
