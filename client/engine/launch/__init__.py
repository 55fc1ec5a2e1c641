"""Start-up: a per-user pre-imported process that forks one child per run (daemon.py), and the launcher that hands a run to it (launcher.py)."""
