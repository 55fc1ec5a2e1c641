"""`python -m client` and the `mcp-chat` entry point; the CLI lives in client/ui/cli.py.

Both take the same path: a run is handed to this user's pre-imported process when one
serves this installation (plumbing/forkserver, described by client/engine/daemon.py), else it
starts cold, here, and a daemon is started in the background for the next runs. Nothing heavy
is imported before that choice.
"""

from __future__ import annotations

import os
import sys


def entry() -> None:
    from client.engine.daemon import PROGRAM
    from plumbing.forkserver import launcher

    env = dict(os.environ)  # as started: a cold run loads .env files into its own
    code = launcher.run(PROGRAM)
    if code is None:
        from client.ui.cli import main

        code = main()
        launcher.spawn(PROGRAM, env)
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    from client.ui.cli import main as cli_main

    return cli_main(argv)


def daemon(kind: str, name: str) -> None:
    """The pre-imported process (started by launcher.spawn); each forked run goes on here."""
    from client.engine.daemon import PROGRAM, preload
    from plumbing.forkserver.daemon import serve

    run = serve(PROGRAM, name, preload)
    run.become()
    from client.ui.cli import main as cli_main
    from plumbing.forkserver.child import run_main

    run_main(cli_main)


if __name__ == "__main__":
    entry()
