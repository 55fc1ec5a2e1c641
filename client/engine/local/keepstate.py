"""The kept local server's state (client/engine/local/keeper.py): one private JSON file, a state
lock, a lease file that sessions hold a shared lock on while they use the server, and the
server's socket. All in the private runtime folder (client/core/paths.py), named after the
model cache; the files, locks and /proc checks are plumbing's (plumbing/private.py, locks.py, proc.py)."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from client.core.paths import private_runtime_dir
from plumbing import private
from plumbing.locks import Lock, held


@dataclass
class State:
    pid: int
    keeper: int
    socket: str  # the unix socket it listens on (in the private runtime folder)
    key: str
    command: list[str]
    weights: list[int]  # size, mtime_ns of the weights, then of the template, when the server started
    keep_alive: float

    @property
    def base_url(self) -> str:
        return "http://llama-server/v1"  # through `socket`: the host is only a name


@dataclass(frozen=True)
class Files:
    state: Path
    lock: Path
    lease: Path
    socket: Path

    @classmethod
    def here(cls, cache: Path) -> Files | None:
        """The files of the server kept for `cache` (Settings.dirs.cache), in the private runtime folder."""
        rundir = private_runtime_dir()
        if rundir is None:
            return None
        tag = hashlib.sha256(str(cache.resolve()).encode()).hexdigest()[:12]  # one per model cache
        base = rundir / f"local-{tag}"
        return cls(*(Path(f"{base}.{ext}") for ext in ("json", "lock", "lease", "sock")))

    def locked(self) -> Lock:
        """The state lock (blocking: held only while a session checks or a keeper stops)."""
        return Lock(self.lock)

    def busy(self) -> bool:
        """Does a session hold the lease?"""
        return held(self.lease)


def read_state(files: Files) -> State | None:
    doc = private.read_json(files.state)
    if not isinstance(doc, dict):
        return None
    try:
        return State(**{k: doc[k] for k in State.__dataclass_fields__})
    except (KeyError, TypeError):
        return None


def write_state(files: Files, state: State) -> None:
    private.write_private(files.state, json.dumps(asdict(state)).encode())


def remove_state(files: Files, pid: int) -> None:
    st = read_state(files)
    if st is not None and st.pid == pid:
        private.remove(files.state)


def weights_stamp(path: Path) -> list[int]:
    try:
        st = os.stat(path)
        return [st.st_size, st.st_mtime_ns]
    except OSError:
        return [-1, -1]
