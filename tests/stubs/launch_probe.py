"""A program for the launcher's tests (tests/launch/): started like `mcp-chat`, served by its
own pre-imported process (kind "probe") or cold, it reports the process state it runs with.

    python -c "import sys; sys.path.insert(0, ROOT); from tests.stubs.launch_probe import entry; entry()" ACTION ...

Actions: state [CODE] (JSON of argv, environment, folder, umask, streams, signals, limits, pid;
exit CODE), read (stdin to stdout, a line to stderr), sleep (print "ready PID", wait for a
signal), dep (the VALUE of the module named by PROBE_DEPENDENCY, which the daemon preloads too),
raise (an uncaught exception), status (the probe daemon's status, JSON).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time

from pathlib import Path

from plumbing.forkserver import Program

IMPORT_VAR = "PROBE_IMPORT_VAR"  # read while the daemon imports: part of what it must share with a run
DEP_VAR = "PROBE_DEPENDENCY"  # a module the daemon imports too (an installed dependency, in a test's folder)
BREAK_VAR = "PROBE_BREAK"  # thread | fd | env: what its imports do that they must not
_KEPT: list = []
PROGRAM = Program(kind="probe", module="tests.stubs.launch_probe", root=Path(__file__).resolve().parents[2],
                  packages=("plumbing",), app="mcp-chat", runtime_env="MCP_CHAT_RUNTIME_DIR", switch="MCP_CHAT_DAEMON",
                  secret_names=("PROBE_CLIENT_ID",))


def entry() -> None:
    from plumbing.forkserver import launcher

    env = dict(os.environ)
    code = launcher.run(PROGRAM)
    if code is None:
        code = main()
        launcher.spawn(PROGRAM, env)
    sys.exit(code)


def preload() -> None:
    os.environ.get(IMPORT_VAR)
    if os.environ.get(DEP_VAR):
        __import__(os.environ[DEP_VAR])
    broken = os.environ.get(BREAK_VAR)  # an import that breaks the contract (plumbing/forkserver/__init__.py)
    if broken == "thread":
        import threading

        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
    elif broken == "fd":
        _KEPT.append(open(os.devnull))
    elif broken == "env":
        os.environ["PROBE_SET_BY_IMPORT"] = "1"


def daemon(kind: str, name: str) -> None:
    from plumbing.forkserver.child import run_main
    from plumbing.forkserver.daemon import serve

    run = serve(PROGRAM, name, preload)
    run.become()
    run_main(main)


def state() -> dict:
    ignored = [int(s) for s in signal.valid_signals()
               if s not in (signal.SIGKILL, signal.SIGSTOP) and signal.getsignal(s) == signal.SIG_IGN]
    streams = [{"tty": os.isatty(fd), "encoding": s.encoding, "errors": s.errors,
                "line_buffering": s.line_buffering, "write_through": s.write_through}
               for fd, s in enumerate((sys.stdin, sys.stdout, sys.stderr))]
    return {
        "pid": os.getpid(), "argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd(),
        "umask": _umask(), "streams": streams, "ignored": ignored,
        "sigint": "default" if signal.getsignal(signal.SIGINT) is signal.default_int_handler else "other",
        "mask": sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "nofile": list(resource.getrlimit(resource.RLIMIT_NOFILE)),
        "nice": os.getpriority(os.PRIO_PROCESS, 0), "path": sys.path[1:],
    }


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def main() -> int:
    action = sys.argv[1] if len(sys.argv) > 1 else "state"
    if action == "state":
        print(json.dumps(state()))
        return int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if action == "read":
        data = sys.stdin.read()
        sys.stdout.write(data.upper())
        print("read done", file=sys.stderr)
        return 0
    if action == "sleep":  # "sleep handle": say which signal came, exit 100 + its number
        if sys.argv[2:] == ["handle"]:
            def said(sig: int, _frame: object) -> None:
                print(f"got {sig}", flush=True)
                os._exit(100 + sig)

            for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR1):
                signal.signal(sig, said)
        print(f"ready {os.getpid()}", flush=True)
        time.sleep(60)
        return 0
    if action == "dep":  # what the dependency module says (its VALUE), as this run imported it
        module = __import__(os.environ[DEP_VAR])
        print(json.dumps({"pid": os.getpid(), "value": module.VALUE}))
        return 0
    if action == "raise":
        raise RuntimeError("probe failure")
    if action == "stop":
        from plumbing.forkserver.control import control

        print(json.dumps(control(PROGRAM.rundir(), "stop")))
        return 0
    if action == "status":
        from plumbing.forkserver.control import control

        mine = [r for r in control(PROGRAM.rundir(), "status") if r.get("kind") == "probe"]
        print(json.dumps(mine[0] if mine else None))
        return 0
    return 2


if __name__ == "__main__":
    entry()
