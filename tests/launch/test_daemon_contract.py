"""What the pre-imported process keeps and what it serves (plumbing/forkserver), tried as an attacker.

- Its contract with the program it preloads: imports that start a thread, leave a descriptor
  open or change the environment make it refuse to serve (every run is cold, as it must be).
- Its own environment holds no secret, by name or by value: a later reader of the daemon's
  /proc/PID/environ (or of a core dump) finds none of the launcher's credentials.
- An in-place edit of an installed dependency it preloaded (which changes no folder's mtime)
  is never served stale.

The probe program (tests/stubs/launch_probe.py) is the client's launcher with a daemon that
imports almost nothing, so each case costs a few interpreter starts.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from tests.launch.test_launcher import rundir, run, probe_env, state_of, status, warm  # noqa: F401 - fixture

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the daemon is Linux-only (SO_PEERCRED, pidfd)")


def _gave_up(rundir: Path, timeout: float = 30) -> str:
    """The daemon's log line that says why it does not serve (the sign that it tried)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for log in rundir.glob("probe-*.log"):
            text = log.read_text(errors="replace")
            if "not serving" in text:
                return text
        time.sleep(0.05)
    raise AssertionError("the daemon neither served nor said why not")


@pytest.mark.parametrize("broken", ["thread", "fd", "env"])
def test_imports_that_break_the_contract_are_never_served(rundir: Path, broken: str) -> None:
    env = probe_env(rundir, PROBE_BREAK=broken)
    p, out, _ = state_of(env)  # cold; spawns the daemon
    assert out["pid"] == p.pid
    why = _gave_up(rundir)
    assert {"thread": "threads after importing", "fd": "descriptors left open", "env": "changed the environment"}[broken] in why
    assert "PROBE_SET_BY_IMPORT=" not in why  # names only
    p, out, _ = state_of(env)
    assert out["pid"] == p.pid and status(env) is None


SECRETS = {
    "CHECKPOINT_DB": "postgresql://chat:pg-pass-4f9a2c@db.internal/chat",  # a password in a database URL
    "MY_REPORTS_DSN": "host=db.internal user=u password=dsn-pass-77e1b0",  # libpq keywords
    "SEARCH_ENDPOINT": "https://search.example/v1?lang=ko&api_key=qk-8c1d5e9a7b",  # a key parameter
    "WEBHOOK": "https://hook:hook-pass-19ab@hooks.example/x",  # userinfo in an innocent name
    "GIT_REMOTE": "https://ghp_abcdefghijklmnop1234@github.com/x/y",  # a token as the user name, no password
    "OPENAI_API_KEY": "sk-known-0d3c7a9f55e2",  # a secret by its name
    "PROBE_CLIENT_ID": "probe-id-5a0e7c3d91",  # a credential the program names (Program.secret_names)
    "BACKUP_OF_KEY_VALUE": "copy: sk-known-0d3c7a9f55e2",  # a known secret's value under another name
}
CREDENTIALS = ("pg-pass-4f9a2c", "dsn-pass-77e1b0", "qk-8c1d5e9a7b", "hook-pass-19ab", "sk-known-0d3c7a9f55e2",
               "probe-id-5a0e7c3d91", "ghp_abcdefghijklmnop1234")


def test_the_daemon_keeps_no_secret_of_the_run_that_started_it(rundir: Path) -> None:
    env = probe_env(rundir, **SECRETS, HARMLESS="harmless-value")
    st = warm(env)
    environ = Path(f"/proc/{st['pid']}/environ").read_bytes()
    assert b"HARMLESS=harmless-value" in environ  # the daemon kept the rest
    leaked = [c for c in CREDENTIALS if c.encode() in environ]
    assert not leaked, f"the daemon's environment holds {leaked}"
    p, out, _ = state_of(env)  # and it still serves that very run, with the run's own environment
    assert out["pid"] != p.pid
    assert all(out["env"].get(k) == v for k, v in SECRETS.items())


def test_an_in_place_edit_of_a_preloaded_dependency_is_never_served_stale(rundir: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"  # stands for site-packages
    site.mkdir()
    dep = site / "probe_dep.py"
    dep.write_text("VALUE = 1\n")
    env = probe_env(rundir, PROBE_DEPENDENCY="probe_dep")
    env["PYTHONPATH"] += f":{site}"
    first = warm(env)
    p, out, _ = state_of(env, cwd=tmp_path)
    assert out["pid"] != p.pid  # served
    folder = os.stat(site).st_mtime_ns
    with open(dep, "r+") as f:  # as an editor or a patch does: same size, the folder untouched
        f.write("VALUE = 2\n")
    assert os.stat(site).st_mtime_ns == folder
    got = run(env, "dep", cwd=tmp_path)
    assert json.loads(got.stdout)["value"] == 2, "the daemon served the dependency as it was before the edit"
    deadline = time.monotonic() + 20  # and that daemon retires (the next cold run may start a fresh one)
    while (st := status(env)) is not None and st["pid"] == first["pid"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert st is None or st["pid"] != first["pid"]
