"""What went wrong, for the user: one line in the UI language, a stable kind (the `error_kind` of
`--output-format json`, docs/terminal.md) and the exit code. The one place an exception becomes
a message: the command line's report (client/ui/cli.py) and a failed turn (client/ui/repl.py).

Kinds: config (2), auth (2), session, database, mcp, local_model, not_writable, connection,
timeout, model, refused (client/ui/turn_view.py), interrupted (130), internal (1 unless said).
"""

from __future__ import annotations

import errno
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from client.core.config import ConfigError, Settings
from client.core.faults import AuthError, IncompleteResponse, describe, one_line
from client.ui.i18n import t

EXIT_RUNTIME, EXIT_CONFIG, EXIT_INTERRUPTED = 1, 2, 130
SESSION_KEYS = ("no_thread", "thread_ambiguous", "thread_busy", "thread_exists", "bad_thread_id")
NOT_WRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)


@dataclass(frozen=True)
class Failure:
    kind: str
    message: str
    code: int = EXIT_RUNTIME


class RequiredToolsFailed(Exception):
    """--require-tools: these servers did not start (one line each)."""

    def __init__(self, lines: Sequence[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = list(lines)


def of_exception(e: BaseException) -> Failure:
    """An error that ended the run before or around the chat (not a turn's)."""
    if isinstance(e, ConfigError):
        return Failure("config", t(e.key, **e.fmt), EXIT_CONFIG)
    if isinstance(e, AuthError):
        return Failure("auth", t("auth_failed", err=str(e)), EXIT_CONFIG)
    if isinstance(e, KeyboardInterrupt):
        return Failure("interrupted", t("interrupted_start"), EXIT_INTERRUPTED)
    from client.engine.local.weights import SetupError  # loaded by now when these can be raised
    from client.engine.store import StoreError

    if isinstance(e, StoreError):
        return Failure("session" if e.key in SESSION_KEYS else "database", t(e.key, **e.fmt))
    if isinstance(e, SetupError):  # --provider local could not build, fetch or start its model
        return Failure("local_model", t("local_failed", err=t(e.key, **e.fmt)))
    if isinstance(e, RequiredToolsFailed):
        return Failure("mcp", "\n".join(e.lines))
    if isinstance(e, OSError) and e.errno in NOT_WRITABLE and e.filename:
        return Failure("not_writable", not_writable(e))
    return Failure("internal", t("unexpected_error", err=one_line(e)))


def of_turn(e: BaseException, s: Settings, url: str) -> Failure:
    """A model request that failed for good (after its retries; a rejected key ends the run, of_exception):
    the address for a connection error or a timeout, the server's own words otherwise. `url`: where
    the chat model answers."""
    from client.core.secrets import mask_url_credentials

    openai = sys.modules.get("openai")
    url = mask_url_credentials(url)
    if openai is not None and isinstance(e, openai.APITimeoutError):
        return Failure("timeout", t("model_timeout", url=url, seconds=s.timeout))
    if openai is not None and isinstance(e, openai.APIConnectionError):
        return Failure("connection", t("model_unreachable", url=url, err=_root_cause(e), where=t(f"base_url_{s.provider}")))
    if isinstance(e, IncompleteResponse):
        return Failure("model", t("turn_error", err=one_line(e)))
    if openai is not None and isinstance(e, openai.APIError):
        return Failure("model", t("turn_error", err=describe(e)))
    return Failure("internal", t("turn_error", err=one_line(e, 300)))


def not_writable(e: OSError) -> str:
    """A file or folder that cannot be written (or reached): which, why, and what to do (the folder
    to fix, or the variable that puts the per-user files elsewhere)."""
    from client.ui.env_settings import dirs

    d = dirs()
    path = Path(str(e.filename))
    folder = next((p for p in (path, *path.parents) if _exists(p)), path)
    why = t("why_read_only_fs") if e.errno == errno.EROFS else t("why_no_permission")
    for root, var in ((d.data, "XDG_DATA_HOME"), (d.config, "XDG_CONFIG_HOME"), (d.cache, "MCP_CHAT_CACHE")):
        if path == root or root in path.parents or path in root.parents:
            return t("not_writable_env", path=path, why=why, folder=folder, var=var)
    return t("not_writable", path=path, why=why, folder=folder)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # a folder on the way that cannot be searched
        return False


def _root_cause(e: BaseException) -> str:
    """The deepest cause's first line (`[Errno 111] Connection refused`), else the error's."""
    seen = e
    while seen.__cause__ is not None or (seen.__context__ is not None and not seen.__suppress_context__):
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    return one_line(seen, 200)


class JsonOut:
    """`--output-format json`: the one object on stdout. The turn writes it (client/ui/repl.py);
    a run that ends otherwise writes it from its failure (client/ui/cli.py)."""

    def __init__(self) -> None:
        self.on = False
        self.written = False

    def start(self, argv: list[str]) -> None:
        """A run begins: json when asked for (before anything is parsed: a parse error too)."""
        self.on = wants_json(argv)
        self.written = False

    def write(self, text: str, out: Any = None) -> None:
        out = out or sys.stdout
        out.write(text + "\n")
        out.flush()
        self.written = True

    def failure(self, failure: Failure) -> None:
        """The run ended before its answer could be written: the object says why."""
        if self.on and not self.written:
            from client.ui.oneshot import Capture, to_json  # the turn's own shape (its imports are heavy)

            cap = Capture(stream=False)
            cap.fail(failure.kind, failure.message)
            self.write(to_json(cap, None, None, None, failure.code))


def wants_json(argv: list[str]) -> bool:
    """`--output-format json` or `--output-format=json` among the arguments (before `--`)."""
    for i, a in enumerate(argv):
        if a == "--":
            return False
        if a == "--output-format=json" or (a == "--output-format" and argv[i + 1:i + 2] == ["json"]):
            return True
    return False


JSON_OUT = JsonOut()
