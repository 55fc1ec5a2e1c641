"""`python -m client` and the `mcp-chat` entry point; the CLI lives in client/ui/cli.py.

Both take the same path: a run is handed to this user's pre-imported process when one
serves this installation (client/engine/launch/), else it starts cold, here, and a daemon is
started in the background for the next runs. Nothing heavy is imported before that choice.
"""

from __future__ import annotations

import os
import sys

MODULE = "client.__main__"


def entry() -> None:
    from client.engine.launch import launcher

    env = dict(os.environ)  # as started: a cold run loads .env files into its own
    code = launcher.run("client", MODULE)
    if code is None:
        from client.ui.cli import main

        code = main()
        launcher.spawn("client", MODULE, env)
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    from client.ui.cli import main as cli_main

    return cli_main(argv)


def daemon(kind: str, name: str) -> None:
    """The pre-imported process (started by launcher.spawn); each forked run goes on here."""
    from client.engine.launch.daemon import serve
    from client.engine.launch.preload import preload

    run = serve(kind, name, lambda: preload("client"))
    run.become()
    from client.engine.launch.child import run_main
    from client.ui.cli import main as cli_main

    run_main(cli_main)


if __name__ == "__main__":
    entry()
