"""The kept local server's state and locks (client/engine/local/keeper.py): one 0600 JSON file,
a state lock, and a lease file that sessions hold a shared lock on while they use the server.
All in the private runtime folder (client/core/paths.py), named after the model cache."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from client.core.paths import private_runtime_dir
from client.engine.flock import held
from client.engine.local.spec import cache_root


@dataclass
class State:
    pid: int
    keeper: int
    port: int
    key: str
    command: list[str]
    weights: list[int]  # size, mtime_ns of the weights file when the server started
    keep_alive: float

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


@dataclass(frozen=True)
class Files:
    state: Path
    lock: Path
    lease: Path

    @classmethod
    def here(cls) -> Files | None:
        rundir = private_runtime_dir()
        if rundir is None:
            return None
        tag = hashlib.sha256(str(cache_root().resolve()).encode()).hexdigest()[:12]  # one per model cache
        base = rundir / f"local-{tag}"
        return cls(Path(f"{base}.json"), Path(f"{base}.lock"), Path(f"{base}.lease"))


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


def read_state(files: Files) -> State | None:
    try:
        fd = os.open(files.state, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            doc = json.loads(f.read(1 << 20))
        return State(**{k: doc[k] for k in State.__dataclass_fields__})
    except (OSError, ValueError, KeyError, TypeError):
        return None
    finally:
        os.close(fd)


def write_state(files: Files, state: State) -> None:
    tmp = files.state.with_name(f".{files.state.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(asdict(state), f)
    os.replace(tmp, files.state)


def remove_state(files: Files, pid: int) -> None:
    st = read_state(files)
    if st is not None and st.pid == pid:
        try:
            files.state.unlink()
        except OSError:
            pass


def weights_stamp(path: Path) -> list[int]:
    try:
        st = os.stat(path)
        return [st.st_size, st.st_mtime_ns]
    except OSError:
        return [-1, -1]


def cmdline(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [a.decode("utf-8", "surrogateescape") for a in raw.split(b"\0")[:-1]]


def runs(pid: int, command: list[str]) -> bool:
    """Does `pid` run `command`? Its arguments must match exactly (argv[0] may differ: a script
    that execs the real program shows the interpreter there)."""
    line = cmdline(pid)
    return bool(line and command and len(line) >= len(command) and line[len(line) - len(command) + 1:] == command[1:])


def alive(pid: int) -> bool:
    """Any thread of `pid` still running: an exited leader is a zombie while its other threads
    still hold the port and the memory."""
    try:
        tasks = [t.name for t in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return False
    return any(_state(f"/proc/{pid}/task/{tid}/stat") not in ("", "Z", "X") for tid in tasks)


def _state(stat: str) -> str:
    try:
        return Path(stat).read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def busy(files: Files) -> bool:
    """Does a session hold the lease?"""
    return held(files.lease)


class Lease:
    """This session's use of the kept server; `release()` when the session ends."""

    def __init__(self, files: Files) -> None:
        self.files = files
        self.state: State | None = None
        self.reused = False
        self.fd = _open(files.lease)
        fcntl.flock(self.fd, fcntl.LOCK_SH)  # held from before the server starts: never idle while loading

    def release(self, keep: float | None = None) -> None:
        """Say how long to keep the server now (this session's KEEP_ALIVE), then let go."""
        if self.fd < 0:
            return
        try:
            if keep is not None and self.state is not None:
                with Locked(self.files):
                    st = read_state(self.files)
                    if st is not None and st.pid == self.state.pid and st.keep_alive != keep:
                        st.keep_alive = keep
                        write_state(self.files, st)
                os.utime(self.files.lease)
        except OSError:
            pass
        finally:
            os.close(self.fd)
            self.fd = -1


class Locked:
    """The state lock (blocking: held only while a session checks or a keeper stops)."""

    def __init__(self, files: Files) -> None:
        self.fd = _open(files.lock)

    def __enter__(self) -> Locked:
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)  # closing releases the lock
