"""Turn a fresh fork of the pre-imported process into the invocation that asked for it.

Everything a cold start would have taken from its parent is taken from the launcher's
request: argv, the whole environment, the working folder (a descriptor), umask, resource
limits, niceness, signal dispositions and mask, the search path, the three standard streams
(descriptors, re-created with the launcher's encoding and buffering). When one of them cannot
be reproduced exactly the child refuses and the launcher starts cold instead.
"""

from __future__ import annotations

import io
import os
import resource
import signal
import sys
from typing import Callable, NoReturn

CHECKED_LIMITS = ("RLIMIT_NOFILE", "RLIMIT_CORE", "RLIMIT_STACK", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_FSIZE",
                  "RLIMIT_NPROC", "RLIMIT_CPU", "RLIMIT_MEMLOCK")
# what a cold interpreter installs itself at start, unless the signal was ignored by its parent
_PY_IGNORES = ("SIGPIPE", "SIGXFSZ")


class Refused(Exception):
    """This run cannot be reproduced here exactly: start cold."""


def snapshot() -> dict:
    """The launcher's side: what its child must reproduce (call before installing handlers)."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    umask = os.umask(0o22)
    os.umask(umask)
    ignored = [int(s) for s in signal.valid_signals()
               if s not in (signal.SIGKILL, signal.SIGSTOP) and _getsignal(s) == signal.SIG_IGN]
    limits = {name: list(resource.getrlimit(getattr(resource, name))) for name in CHECKED_LIMITS
              if hasattr(resource, name)}
    streams = []
    for s in (sys.stdin, sys.stdout, sys.stderr):
        if s is None or not isinstance(s, io.TextIOWrapper):
            raise Refused("stream")
        streams.append({"encoding": s.encoding, "errors": s.errors, "line_buffering": s.line_buffering,
                        "write_through": s.write_through})
    return {
        "argv": sys.argv, "orig_argv": getattr(sys, "orig_argv", sys.argv), "path": sys.path,
        "env": dict(os.environ), "umask": umask, "limits": limits, "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "ignored": ignored, "mask": sorted(int(s) for s in mask), "streams": streams,
        "sigint_default": _getsignal(signal.SIGINT) is signal.default_int_handler,
        "safe_path": bool(sys.flags.safe_path),
    }


def _getsignal(sig: int) -> object:
    try:
        return signal.getsignal(sig)
    except (ValueError, OSError):
        return None


def become(req: dict, fds: list[int], loaded: dict[str, str]) -> None:
    """In the fork: take on the launcher's process state. `fds`: stdin, stdout, stderr, cwd."""
    if len(fds) != 4:
        raise Refused("descriptors")
    os.setpgid(0, 0)  # a group of its own: signals it sends to "its group" never reach the daemon
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target, inheritable=True)
    os.fchdir(fds[3])
    for fd in fds:
        if fd > 2:
            os.close(fd)
    path = req["path"]
    local = [p for i, p in enumerate(path) if (i == 0 and not req["safe_path"]) or not os.path.isabs(p)]
    if any(_shadowed(p, loaded) for p in local):  # the script's folder, the working folder
        raise Refused("shadowed")
    os.umask(int(req["umask"]))
    _limits(req["limits"])
    _nice(int(req["nice"]))
    os.environ.clear()  # unsetenv and putenv too: C code and children see the same environment
    os.environ.update(req["env"])
    _signals(req)
    sys.argv[:] = req["argv"]
    sys.orig_argv[:] = req["orig_argv"]
    sys.path[:] = req["path"]
    sys.path_importer_cache.clear()
    _streams(req["streams"])


def _shadowed(entry: str, loaded: dict[str, str]) -> bool:
    """Would this search-path entry of the run (its working folder or script folder, or a
    relative entry) provide one of the modules already imported here, from another file?
    Then a cold start would import that file, and so must this run: start cold."""
    base = entry or "."
    try:
        names = os.listdir(base)
    except OSError:
        return False
    for name in names:
        stem, dot, ext = name.partition(".")
        if stem not in loaded:
            continue
        if dot and ext.rsplit(".", 1)[-1] in ("py", "pyc", "so"):
            found = os.path.join(base, name)
        elif not dot and os.path.exists(os.path.join(base, name, "__init__.py")):
            found = os.path.join(base, name, "__init__.py")
        else:
            continue
        if os.path.realpath(found) != loaded[stem]:
            return True
    return False


def _limits(limits: dict) -> None:
    for name, (soft, hard) in limits.items():
        res = getattr(resource, name, None)
        if res is None:
            raise Refused("limit")
        if tuple(resource.getrlimit(res)) != (soft, hard):
            try:
                resource.setrlimit(res, (soft, hard))
            except (ValueError, OSError):
                raise Refused("limit") from None


def _nice(nice: int) -> None:
    now = os.getpriority(os.PRIO_PROCESS, 0)
    if nice < now:  # lowering needs a privilege: a cold start would run at the launcher's
        raise Refused("nice")
    if nice > now:
        os.setpriority(os.PRIO_PROCESS, 0, nice)


def _signals(req: dict) -> None:
    ignored = set(req["ignored"])
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else ""
        if sig in ignored:
            want: object = signal.SIG_IGN
        elif sig == signal.SIGINT and req["sigint_default"]:
            want = signal.default_int_handler
        elif name in _PY_IGNORES:
            want = signal.SIG_IGN  # a cold interpreter ignores these whatever its parent did
        else:
            want = signal.SIG_DFL
        try:
            if signal.getsignal(sig) is not want:
                signal.signal(sig, want)  # type: ignore[arg-type]
        except (ValueError, OSError):
            pass
    signal.pthread_sigmask(signal.SIG_SETMASK, [signal.Signals(s) for s in req["mask"]])


def _streams(specs: list[dict]) -> None:
    """Standard streams over the new descriptors 0-2, built as CPython's create_stdio builds them."""
    made = []
    for fd, spec in enumerate(specs):
        unbuffered = fd > 0 and spec["write_through"]  # -u / PYTHONUNBUFFERED
        buf = io.open(fd, "rb" if fd == 0 else "wb", buffering=0 if unbuffered else -1, closefd=False)
        stream = io.TextIOWrapper(buf, encoding=spec["encoding"], errors=spec["errors"], newline="\n",  # type: ignore[arg-type]
                                  line_buffering=spec["line_buffering"], write_through=spec["write_through"])
        stream.mode = "r" if fd == 0 else "w"  # type: ignore[misc]
        made.append(stream)
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made  # type: ignore[misc]


def run_main(main: Callable[[], int | None]) -> NoReturn:
    """Run the program and end this fork as a cold interpreter ends: non-daemon threads joined,
    atexit handlers run, standard streams flushed, the same exit status (SystemExit codes,
    1 and a traceback for an uncaught exception, death by SIGINT for an uncaught Ctrl-C). The
    interpreter's own teardown of every module is skipped: in a fork it would write to every
    page inherited from the daemon (seconds of copy-on-write for nothing a program sees)."""
    import atexit
    import threading

    interrupted = False
    try:
        code = _exit_code(main())
    except SystemExit as e:
        code = _exit_code(e.code)
    except KeyboardInterrupt as e:  # printed, then the process dies by SIGINT
        _report(e)
        interrupted, code = True, 1
    except BaseException as e:  # noqa: BLE001 - reported as the interpreter reports it
        _report(e)
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]
    except BaseException:  # noqa: BLE001
        pass
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - CPython: a failed stdout flush at exit is status 120
            if stream is sys.stdout and code == 0:
                code = 120
    if interrupted and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


def _report(e: BaseException) -> None:
    """The traceback from the program's frame down (this function's frame is not the program's)."""
    if e.__traceback__ is not None:
        e = e.with_traceback(e.__traceback__.tb_next)
    sys.excepthook(type(e), e, e.__traceback__)


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF if value >= 0 else value % 256
    err = sys.stderr  # sys.exit("message"): the message on stderr, status 1
    err.flush()
    os.write(2, f"{value}\n".encode(err.encoding, err.errors or "strict"))
    return 1
