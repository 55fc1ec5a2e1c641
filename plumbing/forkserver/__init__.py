"""A per-user pre-imported process that forks one child per run (daemon.py), and the launcher
that hands a run to it (launcher.py); docs/startup.md.

It knows nothing of the program it serves: the entry point describes it (`Program`) and gives
the daemon what to import (`serve(program, name, preload)`). The contract with that program:
- importing what `preload` imports has no side effects a run could see: no thread, no event
  loop, no open connection or file a run would use, no state taken from the environment other
  than what the import reads (recorded, and compared with each run's);
- the daemon has a single thread when it forks (checked after importing: otherwise it does not
  serve), so a forked run never inherits a lock held by a thread that is not there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from plumbing.rundir import private_runtime_dir


@dataclass(frozen=True)
class Program:
    """What the launcher and its daemon need to know of one program."""

    kind: str  # names its daemon's files in the runtime folder ("client", "server")
    module: str  # imported by the daemon at boot; its `daemon(kind, name)` calls serve()
    root: Path  # the installation: the folder that holds the program's packages
    packages: tuple[str, ...]  # packages under `root` whose sources key the daemon's freshness
    app: str  # the runtime folder: $<runtime_env>, else $XDG_RUNTIME_DIR/<app>, else /tmp/<app>-<uid>
    runtime_env: str
    switch: str  # <switch>=0 turns it off; <switch>_IDLE: idle seconds; <switch>_DEBUG=1: why cold
    secret_names: tuple[str, ...] = ()  # variables that hold credentials although their names do not say so

    def rundir(self) -> Path | None:
        return private_runtime_dir(self.app, self.runtime_env)
