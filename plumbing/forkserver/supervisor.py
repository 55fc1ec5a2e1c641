"""The supervisor between the daemon and a run (plumbing/forkserver/daemon.py): it waits for the
run and reports how it ended to the launcher, and kills the run if the launcher vanishes."""

from __future__ import annotations

import os
import select
import signal
import socket

from plumbing.forkserver.wire import send


def supervise(conn: socket.socket, pid: int) -> None:
    """Wait for the run; report how it ended. The launcher gone (its end closed): kill the run."""
    conn.settimeout(None)
    pidfd = os.pidfd_open(pid)
    killed = False
    while True:
        ready, _, _ = select.select([pidfd] if killed else [conn, pidfd], [], [])
        if pidfd in ready:
            break
        try:
            data = conn.recv(4096)
        except OSError:
            data = b""
        if not data:  # nothing else is ever sent after the request
            os.kill(pid, signal.SIGKILL)
            killed = True
    _, status, usage = os.wait4(pid, 0)
    cpu = round(usage.ru_utime + usage.ru_stime, 3)
    msg = {"signal": os.WTERMSIG(status), "cpu": cpu} if os.WIFSIGNALED(status) else {
        "exit": os.waitstatus_to_exitcode(status), "cpu": cpu}
    try:
        send(conn, msg)
    except OSError:
        pass
