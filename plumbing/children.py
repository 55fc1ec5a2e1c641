"""Child processes that never outlive their parent, and that take only the CPU others leave.

`die_with_parent(pid)` is a preexec_fn (Linux PR_SET_PDEATHSIG: SIGTERM when the parent thread
exits, even by SIGKILL); `lower_priority(pid, nice)` renices a running child.
"""

from __future__ import annotations

import ctypes
import os
import signal

from plumbing.proc import tasks

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """preexec_fn (runs in the child before exec): SIGTERM when the parent thread exits."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def lower_priority(pid: int, nice: int) -> None:
    """Renice a running process: every thread (Linux nices threads, not processes; threads made
    later inherit) and, where the kernel groups sessions (autogroup), its session too, or a
    niced process in a session of its own would still get its full share. Raising the nice
    value of one's own process needs no privilege."""
    for tid in tasks(pid) or [pid]:
        try:
            os.setpriority(os.PRIO_PROCESS, tid, nice)
        except OSError:
            pass
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(nice))
    except OSError:
        pass
