"""Per-user process plumbing shared by the client and the search server (docs/architecture.md).

    forkserver/  the pre-imported process that forks one child per run, and its launcher
    rundir.py    the private runtime folder
    locks.py     locks and leases (flock)
    private.py   small state files, with one permission rule
    proc.py      what /proc says: alive, runs this command, threads
    unixsock.py  unix sockets in a private folder: names that fit, the peer's user
    children.py  children that die with their parent, renicing

Stdlib only, and it knows nothing of the app: what a helper preloads, what its freshness
is keyed on and where its files live come in as arguments from the entry points
(client/engine/daemon.py, server/daemon.py, client/engine/local/). tests/unit/test_architecture.py
checks that nothing here imports the client, the server or a third-party library.
"""
