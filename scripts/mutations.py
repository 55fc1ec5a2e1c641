#!/usr/bin/env python3
"""Mutation check: break one named behaviour at a time and show which test catches it.

    .venv/bin/python scripts/mutations.py [--only NAME,...] [--list]

Each mutation is one small edit of the source (a rule skipped, a bound moved by one) applied to
a throwaway copy of the repository (`git worktree` of HEAD plus the working tree's changes are
NOT included: commit first); the test that claims the behaviour is run there, and must fail.
Prints a Markdown table: behaviour, the edit, the test, and whether the test caught it. Exits 1
when a mutation survived or an edit no longer applies (the table is then out of date).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    name: str  # the behaviour broken
    path: str
    old: str
    new: str
    test: str  # pytest node id(s), space-separated

    @property
    def edit(self) -> str:
        return f"`{self.path}`: `{self.old.strip()[:60]}` → `{self.new.strip()[:60]}`"


MUTATIONS = [
    Mutation("multi-chunk rolling summary", "client/core/context/rolling.py",
             "for chunk in chunk_turns(plan.to_summarize, chunk_tokens):", "for chunk in [plan.to_summarize]:",
             "tests/e2e/test_context_wire.py::test_summary_rolled_over_chunks_twice_keeps_turn_one_facts"),
    Mutation("hydration prune to the last summary", "client/core/context/policy.py",
             "return split(repair_tool_pairs(messages)).join()", "return list(repair_tool_pairs(messages))",
             "tests/e2e/test_context_wire.py::test_resumed_legacy_thread_with_a_pair_in_the_middle_starts_at_the_pair"),
    Mutation("foreground summary applied to the turn", "client/engine/summaries.py",
             "elif item is not None:\n                    context, summarized = item.messages, True",
             "elif item is not None:\n                    summarized = True",
             "tests/e2e/test_context_wire.py::test_foreground_summary_on_resume_in_a_pipe"),
    Mutation("12-call cap, last call without tools", "client/engine/limits.py",
             "if t.model_calls + 1 >= max_model_calls:", "if t.model_calls >= max_model_calls:",
             "tests/unit/test_limits.py"),
    Mutation("piped tool call denied (nobody to ask)", "client/engine/mcp/permissions.py",
             'else Verdict(False, "no_terminal")', 'else Verdict(True, "no_terminal")',
             "tests/e2e/test_permissions_piped.py"),
    Mutation("readOnlyHint + destructiveHint asks", "client/engine/mcp/permissions.py",
             "return read_only_hint is True and destructive_hint is not True", "return read_only_hint is True",
             "tests/unit/test_permissions.py"),
    Mutation("malformed tool arguments never run", "client/core/toolargs.py",
             "    if raw.lstrip()[end:].strip():\n        raise BadToolArgs(TRAILING)\n", "",
             "tests/e2e/test_tool_args.py"),
    Mutation("an untrusted folder's .env is not used", "client/ui/trust.py",
             "    if changed == []:", "    if True:",
             "tests/e2e/test_untrusted_folder.py"),
    Mutation("a file for the user never goes through a folder link", "client/ui/user_file.py",
             "nxt = os.open(part, _DIR | _NOFOLLOW, dir_fd=fd)", "nxt = os.open(part, _DIR, dir_fd=fd)",
             "tests/unit/test_output_sinks.py"),
    Mutation("the search server never loads an untrusted .env", "server/envfile.py",
             '        return NOT_TRUSTED.format(path="./.env")',
             '        return _load(path, read_regular(path)) or NOT_TRUSTED.format(path="./.env")',
             "tests/server/test_env_file.py::test_a_cloned_folder_never_receives_the_users_naver_credentials"),
    Mutation("a stdio message is read up to a cap", "client/engine/mcp/bounded_stdio.py",
             "            if len(self.buf) <= self.cap:", "            if True:",
             "tests/unit/test_bounded_reads.py"),
    Mutation("an HTTP body is read up to a cap", "client/engine/mcp/server.py",
             'event_hooks={"response": [self._note, bounded()]}', 'event_hooks={"response": [self._note]}',
             "tests/unit/test_bounded_reads.py::test_a_50_mb_http_result_is_refused_and_the_session_goes_on"),
    Mutation("a checkpoint naming code is refused", "client/engine/store/serde.py",
             "        if found:\n            raise TamperedCheckpoint(found[0])\n", "",
             "tests/faults/test_tampered_checkpoint.py"),
    Mutation("known secrets masked on the way into the store", "client/engine/store/serde.py",
             "return super().dumps_typed(mask_value(obj))", "return super().dumps_typed(obj)",
             "tests/faults/test_secrets.py"),
    Mutation("nothing raw reaches a terminal", "client/ui/safe_text.py",
             "    return mask(clean(text))", "    return mask(text)",
             "tests/unit/test_hygiene.py"),
    Mutation("a damaged database is never written", "client/engine/store/sqlite_check.py",
             'rows = con.execute("PRAGMA quick_check").fetchall()', 'rows = [("ok",)]',
             "tests/faults/test_corrupt_files.py"),
    Mutation("one server log line per request", "server/logsafe.py",
             "        record.message = escape(record.message)\n", "",
             "tests/server/test_hygiene.py"),
    Mutation("a forgotten MCP session is reconnected", "client/engine/mcp/server.py",
             "        if _session_lost(err):\n            raise _SessionLost(_one_line(err))\n", "",
             "tests/faults/test_http_session.py"),
    Mutation("empty threads are never listed", "client/engine/store/thread_log.py",
             'self._threads("turns > 0"', 'self._threads("turns >= 0"',
             "tests/e2e/test_cli_habits.py"),
    # the storage seam: statements written once, the dialect table, the fork policy, the prefix rule
    Mutation("a dialect entry: the smaller of two counts", "client/engine/store/sql.py",
             'least="MIN"', 'least="MAX"',
             "tests/e2e/test_fork.py::test_rewind_takes_the_last_turns_out_of_the_next_request_and_keeps_them"),
    Mutation("a deleted thread leaves no row", "client/engine/store/thread_log.py",
             'OWN_ROWS = ("messages", "usage", "memory", "threads")', 'OWN_ROWS = ("messages", "usage", "threads")',
             "tests/e2e/test_postgres_store.py::test_delete_removes_every_row_of_the_thread"),
    Mutation("what a deleted thread's forks hold passes to them", "client/engine/forks.py",
             "        await hand_over(store, thread_id)\n", "",
             "tests/e2e/test_fork.py::test_memory_counts_once_across_a_fork_and_either_delete"),
    Mutation("an id prefix names its thread (one rule)", "client/engine/threads.py",
             "if ref and th.thread_id.startswith(ref)]", "if ref and th.thread_id == ref]",
             "tests/faults/test_hygiene.py::test_export_and_delete_take_a_unique_id_prefix"),
    Mutation("an older database is upgraded, not taken as current", "client/engine/store/migrations.py",
             "    done = await applied(sql)\n", "    done = {v for v, _, _ in MIGRATIONS} if await applied(sql) else set()\n",
             "tests/e2e/test_postgres_store.py::test_a_version_1_database_upgrades_keeping_its_rows"),
    Mutation("memory keeps only what the user said", "client/core/memory/ground.py",
             "return u >= 1 and not self.foreign and 2 * len(self.borrowed) <= u and len(self.own) <= 2 * u",
             "return True",
             "tests/unit/test_memory_ground.py"),
    # the per-user process plumbing (plumbing/) and what it promises (docs/startup.md, docs/security.md)
    Mutation("the daemon keeps no secret in its environment", "plumbing/forkserver/launcher.py",
             "    clean = daemon_env(env, program.secret_names)", "    clean = dict(env)",
             "tests/launch/test_daemon_contract.py::test_the_daemon_keeps_no_secret_of_the_run_that_started_it"),
    Mutation("a token as a URL's user name is a secret", "plumbing/forkserver/envscrub.py",
             "        elif user and len(unquote(user)) >= LONG_USER:", "        elif False:",
             "tests/launch/test_daemon_contract.py::test_the_daemon_keeps_no_secret_of_the_run_that_started_it"),
    Mutation("an edited preloaded module is never served stale", "plumbing/forkserver/daemon.py",
             "        edited = changed(self.code)", "        edited = None",
             "tests/launch/test_daemon_contract.py::test_an_in_place_edit_of_a_preloaded_dependency_is_never_served_stale"),
    Mutation("imports that break the fork contract are not served", "plumbing/forkserver/daemon.py",
             "    why = broken_contract(fds, env)", "    why = None",
             "tests/launch/test_daemon_contract.py::test_imports_that_break_the_contract_are_never_served"),
    Mutation("a peer of another user is never served", "plumbing/forkserver/daemon.py",
             "            if peer_uid(conn) != os.geteuid():", "            if False:",
             "tests/launch/test_launcher.py::test_another_user_is_never_served"),
    Mutation("a runtime folder others can enter is not used", "plumbing/rundir.py",
             " or st.st_uid != os.geteuid() or st.st_mode & 0o077:", " or st.st_uid != os.geteuid():",
             "tests/unit/test_plumbing.py::test_a_runtime_folder_others_can_enter_or_a_symlink_is_not_private"),
    Mutation("private state files: one permission rule", "plumbing/private.py",
             "st.st_uid == os.geteuid() and not st.st_mode & 0o077", "st.st_uid == os.geteuid()",
             "tests/unit/test_plumbing.py::test_one_rule_for_private_files"),
    Mutation("a lock is exclusive", "plumbing/locks.py",
             "fcntl.flock(fd, fcntl.LOCK_EX if self.wait else fcntl.LOCK_EX | fcntl.LOCK_NB)",
             "fcntl.flock(fd, fcntl.LOCK_SH if self.wait else fcntl.LOCK_SH | fcntl.LOCK_NB)",
             "tests/unit/test_plumbing.py::test_locks_and_leases_across_processes"),
    Mutation("a lease sees the other leases", "plumbing/locks.py",
             "            return held(self.path)", "            return False",
             "tests/unit/test_plumbing.py::test_locks_and_leases_across_processes"),
    Mutation("held: another process's lock counts", "plumbing/locks.py",
             "        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n        return False\n    except OSError:\n        return True\n",
             "        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n        return False\n    except OSError:\n        return False\n",
             "tests/unit/test_plumbing.py::test_locks_and_leases_across_processes"),
    Mutation("a lock file is never opened through a symlink", "plumbing/locks.py",
             "os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC", "os.O_RDWR | os.O_CLOEXEC",
             "tests/unit/test_plumbing.py::test_locks_and_leases_across_processes"),
    Mutation("plumbing imports only the standard library", "plumbing/locks.py",
             "import fcntl\nimport os\n", "import fcntl\nimport os\n\nimport httpx  # installed, not stdlib\n",
             "tests/unit/test_architecture.py::test_plumbing_imports_only_the_standard_library"),
    Mutation("plumbing knows nothing of the app", "plumbing/private.py",
             "    data = read_private(path)\n", "    from client.core.paths import safe_name  # noqa: F401\n    data = read_private(path)\n",
             "tests/unit/test_architecture.py::test_plumbing_imports_only_the_standard_library"),
    Mutation("the engine reads no environment variable (settings come in once)", "client/engine/local/server.py",
             "        self.log_path = (self.cache", "        self.threads = self.threads or int(os.environ.get(\"MCP_CHAT_LOCAL_THREADS\") or 0)\n"
             "        self.log_path = (self.cache",
             "tests/unit/test_architecture.py::test_core_and_engine_read_no_environment"),
    Mutation("${VAR} in mcp.json comes from the environment handed down", "client/engine/mcp/entries.py",
             "        value = env.get(m.group(1))", "        value = env.get(m.group(1), __import__(\"os\").environ.get(m.group(1)))",
             "tests/unit/test_mcp_config.py::test_variables_come_from_the_environment_handed_down_never_the_process"),
    Mutation("a wrong type in an mcp.json entry is refused", "client/engine/mcp/entries.py",
             "frozen=True, strict=True)", "frozen=True, strict=False)",
             "tests/unit/test_mcp_config.py::test_bad_entries_name_the_entry"),
    Mutation("a kept server is reused or stopped only if /proc says it is ours", "plumbing/proc.py",
             "and line[len(line) - len(command) + 1:] == command[1:])", "or True)",
             "tests/localmodel/test_keep_alive.py::test_a_forged_state_file_is_neither_reused_nor_obeyed"),
    Mutation("another user cannot impersonate the local server", "client/engine/local/server.py",
             "        return rundir / leaf, None", '        return Path("/tmp") / leaf, None',
             "tests/localmodel/test_squat.py"),
    Mutation("the server imports nothing of the client", "server/__main__.py",
             "    from server.daemon import PROGRAM, preload", "    from client.engine.daemon import PROGRAM, preload",
             "tests/unit/test_architecture.py"),
    Mutation("prints above the live region never overwrite earlier lines", "client/ui/render_rich.py",
             "with live._lock:  # an RLock", "if live:  # no lock",
             "tests/unit/test_render_rich.py::test_a_refresh_during_a_print_never_moves_the_cursor_over_earlier_lines"),
    Mutation("the HTTP server stops by itself with a listen stream open", "server/app.py",
             "        timeout_graceful_shutdown=SHUTDOWN_GRACE,", "",
             "tests/faults/test_http_session.py"),
    Mutation("a call to a tool a starting server brings waits for it", "client/engine/late_tools.py",
             "        if request.tool is None:", "        if False:",
             "tests/e2e/test_mcp_lazy.py::test_a_call_to_a_tool_a_starting_server_brings_waits_for_it_and_runs"),
    # engine/mcp in two parts (issue 52): connections without LangChain, the revision decided once, the fleet asked
    Mutation("the MCP connections know nothing of LangChain", "client/engine/mcp/server.py",
             "import anyio\nimport httpx2\n", "import anyio\nimport httpx2\nfrom langchain_core.tools import BaseTool  # noqa: F401\n",
             "tests/unit/test_architecture.py::test_the_mcp_connections_know_nothing_of_langchain"),
    Mutation("a server pinned to 2025 gets the handshake", "client/engine/mcp/era.py",
             "    while mode != LEGACY:", "    while True:",
             "tests/server/test_modern.py::test_our_client_pinned_to_the_2025_handshake"),
    Mutation("changed roots are told to the servers the fleet has connected", "client/engine/mcp/features.py",
             "for name, session, revision in fleet.sessions():", "for name, session, revision in []:",
             "tests/e2e/test_mcp_features.py::test_roots_are_only_the_configured_ones_and_changes_are_announced"),
    Mutation("a Korean name under the word it names is kept", "client/core/context/rolling.py",
             "or (owner and owner in ln))", "or False)",
             "tests/unit/test_context_notes_pick.py::test_a_korean_name_is_a_value_and_its_naming_is_kept"),
]


def copy_of_head(dest: Path) -> None:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(dest), "HEAD"], check=True)
    for npm in ("tests/.npm", "tests/.npm-conformance"):  # installed servers, not in git
        if (ROOT / npm).exists() and not (dest / npm).exists():
            (dest / npm).symlink_to(ROOT / npm)


def run(m: Mutation, work: Path) -> tuple[str, float]:
    src = work / m.path
    text = src.read_text(encoding="utf-8")
    if text.count(m.old) != 1:
        return "edit does not apply", 0.0
    src.write_text(text.replace(m.old, m.new), encoding="utf-8")
    started = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *m.test.split()],
                           cwd=work, capture_output=True, text=True, timeout=1800,
                           env={**os.environ, "PYTHONPATH": str(work)})
    finally:
        src.write_text(text, encoding="utf-8")
    took = time.monotonic() - started
    if p.returncode == 1:
        return "caught", took
    if p.returncode == 0:
        return "SURVIVED", took
    return f"pytest exit {p.returncode}", took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated substrings of behaviour names")
    ap.add_argument("--list", action="store_true", help="print the table of mutations without running them")
    args = ap.parse_args()
    wanted = [w.strip() for w in args.only.split(",") if w.strip()]
    chosen = [m for m in MUTATIONS if not wanted or any(w in m.name for w in wanted)]
    print("| behaviour | edit | test | result |")
    print("|---|---|---|---|")
    if args.list:
        for m in chosen:
            print(f"| {m.name} | {m.edit} | `{m.test}` | |")
        return 0
    bad = 0
    tmp = Path(tempfile.mkdtemp(prefix="mcp-chat-mut-"))
    work = tmp / "repo"
    copy_of_head(work)
    try:
        for m in chosen:
            result, took = run(m, work)
            bad += result != "caught"
            print(f"| {m.name} | {m.edit} | `{m.test}` | {result} ({took:.0f} s) |", flush=True)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(work)], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
