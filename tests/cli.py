"""The command line in this process: `client.ui.cli.main(argv)` with the run's environment,
working folder and standard streams, as `python -m client` runs it minus the process (the way
simonw/llm tests its CLI with click's CliRunner).

What a run goes through is the product's own path: argument parsing, the per-user and working
folder's .env, settings resolution, the store, the engine, the MCP servers (real children over
stdio or HTTP), the slash commands, the exit code. What only a process shows stays with the
process runner (`chat`, tests/conftest.py): signals, the tty, the daemon, what reaches file
descriptors 1 and 2 from elsewhere than sys.stdout/sys.stderr (stdio purity), interpreter exit.

A run starts from what a fresh process would have and leaves the test's process as it found it:
- os.environ is exactly the run's environment (nothing of pytest's), the working folder the
  run's; both are put back afterwards;
- stdin is a pipe holding the input (read by fd, as client/ui/line_reader.py does), stdout and
  stderr are files (real descriptors: a stdio MCP server inherits stderr as it would) with the
  process's encodings and error handlers; none is a tty;
- the process-wide state the client keeps is reset first and restored after: the known
  secrets (client/core/secrets.py), the language, logging's last resort and the root logger
  (pytest's capture handlers would otherwise swallow what a process prints on stderr), the
  warnings filters (a fresh interpreter's; a warning is printed on the run's stderr);
- an exception that escapes `main` is printed as the interpreter would (exit 1), SystemExit
  gives its code; a thread the run leaves running would keep a process from exiting: it fails
  the run.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import threading
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
PIPE_CAPACITY = 60_000  # bytes written before the run; more goes through a writer thread
THREAD_GRACE = 10.0  # seconds a thread the run started may take to end after it


@dataclass
class Result:
    code: int
    out: str
    err: str

    def error_line(self) -> str:
        """The one line an expected error prints (stderr: one line, no traceback)."""
        lines = [ln for ln in self.err.splitlines() if ln.strip()]
        assert len(lines) == 1 and "Traceback" not in self.err, self.err
        return lines[0]


def run_cli(argv: list[str], stdin: str | bytes = "", env: dict[str, str] | None = None,
            cwd: str | Path | None = None, main: Callable[[list[str]], int] | None = None,
            as_user: tuple[int, int] | None = None) -> Result:
    """One run of `mcp-chat ARGV` in this process (`main`: another entry point of the same shape,
    e.g. init_db.main). `env`: the whole environment of the run (default: this process's).
    `as_user`: (uid, gid) the run has, as `setpriv --reuid --regid --clear-groups` gives a process
    (a root test process only: the ids are put back afterwards)."""
    if main is None:
        from client.ui.cli import main
    data = stdin.encode() if isinstance(stdin, str) else stdin
    before = set(threading.enumerate())
    ended = threading.Event()
    with _process_state(env if env is not None else dict(os.environ), cwd), _streams(data) as (out, err), \
            _thread_errors(ended), _user(as_user):
        code = _call(main, list(argv))
        ended.set()
        sys.stdout.flush()
        sys.stderr.flush()
        _wait_for_threads(before)
        out.seek(0)
        err.seek(0)
        return Result(code, out.read().decode("utf-8", errors="replace"), err.read().decode("utf-8", errors="replace"))


def _call(main: Callable[[list[str]], int], argv: list[str]) -> int:
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's --help/--version and its errors, sys.exit anywhere
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except Exception:  # noqa: BLE001 - what the interpreter prints for an uncaught exception
        traceback.print_exc(file=sys.stderr)
        return 1
    return 0 if code is None else int(code)


def _wait_for_threads(before: set[threading.Thread]) -> None:
    """The run's threads end with it (the stdin reader ends at the pipe's end); a non-daemon thread
    that does not would keep the process from exiting."""
    for th in set(threading.enumerate()) - before:
        th._started.wait(THREAD_GRACE)  # one still starting (enumerate lists it already)
        th.join(THREAD_GRACE if th.name == "stdin" or not th.daemon else 0)
        assert th.daemon or not th.is_alive(), f"the run left a thread running (a process would not exit): {th}"


def _import_everything() -> None:
    """Every module of the client imported beforehand, with what they import: the interpreter's
    own library may sit where the other user cannot read (root's pyenv), and a module first
    imported during the run would not be found (a process of that user finds the system's)."""
    import importlib
    import pkgutil

    for pkg in ("client", "plumbing"):
        root = importlib.import_module(pkg)
        for info in pkgutil.walk_packages(root.__path__, pkg + "."):
            if info.name.endswith("__main__"):
                continue
            importlib.import_module(info.name)


@contextmanager
def _user(ids: tuple[int, int] | None) -> Iterator[None]:
    """Real and effective ids `ids`, no supplementary groups, root kept as the saved id (so the
    test process gets its own back); the kernel checks file access and os.access against them."""
    if ids is None:
        yield
        return
    assert os.getuid() == 0, "as_user needs a root test process"
    _import_everything()
    uid, gid = ids
    groups = os.getgroups()
    os.setgroups([])
    os.setresgid(gid, gid, 0)
    os.setresuid(uid, uid, 0)
    try:
        yield
    finally:
        os.setresuid(0, 0, 0)
        os.setresgid(0, 0, 0)
        os.setgroups(groups)


@contextmanager
def _thread_errors(ended: threading.Event) -> Iterator[None]:
    """A daemon thread that fails once `main` has returned (the stdin reader handing EOF to a loop
    that is closed) is one the process's exit would have ended silently; any other thread's
    exception is printed on the run's stderr, as the interpreter prints it."""
    saved = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if ended.is_set() and args.thread is not None and args.thread.daemon:
            return
        threading.__excepthook__(args)

    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = saved


@contextmanager
def _process_state(env: dict[str, str], cwd: str | Path | None) -> Iterator[None]:
    from client.core import secrets
    from client.ui import i18n

    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    saved_secrets, saved_cache, saved_lang = set(secrets._remembered), secrets._cache, i18n._lang
    root = logging.getLogger()
    saved_handlers, saved_level, saved_last = root.handlers[:], root.level, logging.lastResort
    os.environ.clear()
    os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    sys.argv = [str(ROOT / "client" / "__main__.py")]
    secrets._remembered.clear()
    secrets._cache = None
    i18n._lang = "ko"
    root.handlers, root.level = [], logging.WARNING
    try:
        with warnings.catch_warnings():
            _fresh_warnings()
            yield
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        sys.argv = saved_argv
        secrets._remembered.clear()
        secrets._remembered.update(saved_secrets)
        secrets._cache = saved_cache
        i18n._lang = saved_lang
        root.handlers, root.level, logging.lastResort = saved_handlers, saved_level, saved_last


def _fresh_warnings() -> None:
    """A fresh interpreter's filters (no -W, no PYTHONWARNINGS), shown on the run's stderr."""
    warnings.resetwarnings()
    for category in (ResourceWarning, ImportWarning, PendingDeprecationWarning, DeprecationWarning):
        warnings.filterwarnings("ignore", category=category)
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")

    def show(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    warnings.showwarning = show


@contextmanager
def _streams(data: bytes) -> Iterator[tuple]:
    """stdin: a pipe with `data` then its end; stdout, stderr: files. Yields the two files (binary)."""
    saved = sys.stdin, sys.stdout, sys.stderr
    r, w = os.pipe()
    writer = None
    if len(data) <= PIPE_CAPACITY:
        os.write(w, data)
        os.close(w)
    else:
        def feed() -> None:
            with open(w, "wb") as f:
                try:
                    f.write(data)
                except BrokenPipeError:
                    pass

        writer = threading.Thread(target=feed, name="stdin-feed", daemon=True)
        writer.start()
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    sys.stdin = open(r, "r", encoding="utf-8", errors="surrogateescape")
    # PYTHONUNBUFFERED=1 in every run's environment: written through, as the process writes
    sys.stdout = _text(out, "surrogateescape")
    sys.stderr = _text(err, "backslashreplace")
    try:
        yield out, err
    finally:
        stdin, stdout, stderr = sys.stdin, sys.stdout, sys.stderr
        sys.stdin, sys.stdout, sys.stderr = saved
        for f in (stdout, stderr):
            try:
                f.flush()
                f.detach()  # the binary file stays open for reading
            except (ValueError, OSError):
                pass
        if writer is not None:
            writer.join(THREAD_GRACE)
        stdin.close()
        out.close()
        err.close()


def _text(binary, errors: str):  # -> io.TextIOWrapper
    import io

    return io.TextIOWrapper(binary, encoding="utf-8", errors=errors, write_through=True)
