"""A program for the launcher's tests (tests/launch/): started like `mcp-chat`, served by its
own pre-imported process (kind "probe") or cold, it reports the process state it runs with.

    python -c "import sys; sys.path.insert(0, ROOT); from tests.stubs.launch_probe import entry; entry()" ACTION ...

Actions: state [CODE] (JSON of argv, environment, folder, umask, streams, signals, limits, pid;
exit CODE), read (stdin to stdout, a line to stderr), sleep (print "ready PID", wait for a
signal), raise (an uncaught exception), status (the probe daemon's status, JSON).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time

MODULE = "tests.stubs.launch_probe"
IMPORT_VAR = "PROBE_IMPORT_VAR"  # read while the daemon imports: part of what it must share with a run


def entry() -> None:
    from client.engine.launch import launcher

    env = dict(os.environ)
    code = launcher.run("probe", MODULE)
    if code is None:
        code = main()
        launcher.spawn("probe", MODULE, env)
    sys.exit(code)


def daemon(kind: str, name: str) -> None:
    from client.engine.launch.child import run_main
    from client.engine.launch.daemon import serve

    run = serve(kind, name, lambda: os.environ.get(IMPORT_VAR))
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
    if action == "raise":
        raise RuntimeError("probe failure")
    if action == "stop":
        from client.engine.launch.control import control

        print(json.dumps(control("stop")))
        return 0
    if action == "status":
        from client.engine.launch.control import control

        mine = [r for r in control("status") if r.get("kind") == "probe"]
        print(json.dumps(mine[0] if mine else None))
        return 0
    return 2


if __name__ == "__main__":
    entry()
