"""`mcp-chat memory fold`: the memory passes a `-p` run leaves, in a process of their own.

A `-p` run answers and exits at once. When its thread's pass needs a model request (the
extraction of `--memory-source both|llm`), the run starts this command detached (a new session,
no terminal, standard streams on /dev/null, through the pre-imported process when it is up:
client/engine/daemon.py) and exits; nobody waits for it. It folds the user's pending threads,
oldest first within a bound (client/engine/memory/fold.py), and ends. Its settings come through
the environment, never the command line (a database URL may carry a password): the database, the
user, the provider and model, the memory options. `MCP_CHAT_MEMORY_DETACH=0` turns it off (the
next start folds them, as before).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import Any

from client.core.config import Settings
from client.ui.i18n import tr
from client.ui.options import BASE_URL_ENV, MODEL_ENV, add_chat_options

NOTE = "p-memory-background"  # the one-time notice (store.memory_note)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("memory", prog="mcp-chat memory", help=tr("장기 기억 정리", "long-term memory passes"),
                       description=tr("fold: 이 사용자의 미뤄 둔 장기 기억 정리를 지금 함 (-p 실행이 백그라운드로 부름)",
                                      "fold: do this user's pending memory passes now (what -p runs start in the background)"))
    p.add_argument("op", choices=("fold",), help=tr("fold: 미뤄 둔 정리", "fold: the pending passes"))
    add_chat_options(p)
    return p


def child_env(s: Settings) -> dict[str, str]:
    """The run's environment, with its resolved settings in the variables that stand for them."""
    env = dict(os.environ)
    env.update({"CHECKPOINT_DB": os.path.abspath(s.db) if "://" not in s.db else s.db, "MCP_CHAT_USER": s.user,
                "MCP_CHAT_PROVIDER": s.provider, "MCP_CHAT_MEMORY_SCORER": s.memory_scorer, "MCP_CHAT_LANG": s.lang})
    if s.memory_source:
        env["MCP_CHAT_MEMORY_SOURCE"] = s.memory_source
    for names, value in ((MODEL_ENV.get(s.provider, ()), s.model), (BASE_URL_ENV.get(s.provider, ()), s.base_url)):
        if names and value:
            env[names[0]] = value
    return env


def spawn(s: Settings, thread_id: str) -> bool:
    """Start `mcp-chat memory fold` detached, to fold what this run leaves (its thread once it lets
    go of it). False when it could not start (the next start folds it)."""
    argv = [sys.executable, "-m", "client", "memory", "fold", "--thread", thread_id,
            "--memory-threshold", repr(s.memory_threshold), "--memory-top-k", str(s.memory_top_k)]
    try:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=child_env(s), start_new_session=True, close_fds=True)
    except OSError:
        return False
    return True


async def run_fold(s: Settings) -> int:
    """The detached job: fold this user's pending threads (the one in `--thread` waited for)."""
    from client.core.secrets import remember, settings_secrets
    from client.engine.build import memory_manager
    from client.engine.memory.fold import fold_pending
    from client.engine.models import Models
    from client.engine.providers import get_provider
    from client.engine.store import open_store

    if not s.memory:
        return 0
    provider = get_provider(s.provider)
    provider.check(s)
    store = await open_store(s.db, config=s.dirs.config)
    try:
        async with provider.runtime(s) as runtime:
            remember([*settings_secrets(s), *([runtime.api_key] if runtime.api_key else [])])
            models = Models(s, runtime)
            await fold_pending(memory_manager(s, store, models), models.background_summarizer(), after=s.thread or "")
    finally:
        await store.close()
    return 0
