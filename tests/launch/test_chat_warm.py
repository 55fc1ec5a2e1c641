"""A chat run served by the pre-imported processes and a cold run of the same invocation send
the same requests to the model and print the same output (issue 30).

Real processes: `python -m client` against the recording model stub and the Naver stub, with
the bundled search server over stdio (served by its own pre-imported process when warm). The
runtime folder is private to this module, so the daemons it starts serve no other test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import TEST_KEY
from tests.stubs.llm_stub import LLMStub
from tests.stubs.naver_stub import NaverStub

ROOT = Path(__file__).resolve().parents[2]
# thread ids, the stub's random call ids, times of day
VARYING = re.compile(r"\b[0-9a-f]{32}\b|\bcall_[0-9a-f]{12}\b|\b\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?")
RUNNING = re.compile(r"^(client|server): running \(pid (\d+), served (\d+)", re.M)

# the module's first test also waits for its daemons to import (seconds of CPU on a busy machine)
pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the daemon is Linux-only"),
              pytest.mark.slow,  # each case runs cold as well as warm
              # one worker: the module's daemons are imported once, not once per worker that runs a case
              pytest.mark.xdist_group("chat_warm"),
              pytest.mark.timeout(600)]


class Runs:
    def __init__(self, tmp: Path, llm: LLMStub, naver: NaverStub) -> None:
        self.tmp, self.llm = tmp, llm
        self.count = 0
        rundir = tmp / "rt"
        rundir.mkdir(mode=0o700)
        self.env = {
            "PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "PYTHONPATH": str(ROOT),
            "CLOVA_STUDIO_API_KEY": TEST_KEY, "CLOVA_STUDIO_BASE_URL": llm.base_url,
            "NAVER_CLIENT_ID": naver.client_id, "NAVER_CLIENT_SECRET": naver.client_secret,
            "NAVER_API_BASE_URL": naver.base_url, "PYTHONUNBUFFERED": "1",
            "MCP_CHAT_RUNTIME_DIR": str(rundir),
            # a -p run's detached memory job would reach the stub during the next run and be recorded as its request
            "MCP_CHAT_MEMORY_DETACH": "0",
        }

    def __call__(self, warm: bool, *args: str, input: str = "", db: str = "chat.db") -> subprocess.CompletedProcess:
        env = {**self.env, "MCP_CHAT_DAEMON": "1" if warm else "0"}
        return subprocess.run([sys.executable, "-m", "client", *args, "--db", str(self.tmp / db)], env=env,
                              cwd=self.tmp, input=input.encode(), capture_output=True, timeout=120)

    def served(self) -> dict[str, int]:
        p = subprocess.run([sys.executable, "-m", "client", "daemon", "status"],
                           env={**self.env, "MCP_CHAT_DAEMON": "0", "MCP_CHAT_LANG": "en"}, capture_output=True, timeout=60)
        return {kind: int(n) for kind, _pid, n in RUNNING.findall(p.stdout.decode())}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    with LLMStub() as llm, NaverStub() as naver:
        r = Runs(tmp_path_factory.mktemp("warm"), llm, naver)
        # a cold run with the daemon allowed starts both pre-imported processes for the next runs
        r(True, "-p", "[tool:web_search {\"query\": \"x\"}]", "--new", "--yes", "--no-memory")
        deadline = time.monotonic() + 120
        while set(r.served()) != {"client", "server"}:
            assert time.monotonic() < deadline, "the pre-imported processes did not start"
            time.sleep(0.2)
        yield r
        subprocess.run([sys.executable, "-m", "client", "daemon", "stop"], env={**r.env, "MCP_CHAT_DAEMON": "0"},
                       capture_output=True, timeout=60)


def _normal(text: str) -> str:
    return VARYING.sub("<v>", text)


def _both(runs: Runs, *args: str, input: str = "", kinds: tuple[str, ...] = ("client",)) -> list[tuple]:
    out = []
    for warm in (False, True):
        runs.llm.clear()
        before = runs.served()
        runs.count += 1
        p = runs(warm, *args, input=input, db=f"run{runs.count}.db")  # each run its own database
        after = runs.served()
        for kind in kinds:  # the warm run was served (the cold one was not)
            assert after.get(kind, 0) - before.get(kind, 0) == (1 if warm else 0), (kind, before, after, p.stderr)
        requests = json.loads(_normal(json.dumps(runs.llm.requests, ensure_ascii=False)))
        out.append((p.returncode, _normal(p.stdout.decode()), _normal(p.stderr.decode()), requests))
    return out


def test_a_one_shot_answer_is_the_same_warm_and_cold(runs: Runs) -> None:
    cold, warm = _both(runs, "-p", "안녕하세요, 저는 부산에 살아요", "--new")
    assert cold[0] == 0 and cold[3], cold
    assert warm == cold


def test_a_one_shot_tool_call_is_the_same_warm_and_cold(runs: Runs) -> None:
    cold, warm = _both(runs, "-p", "서울 날씨 검색", "--new", "--yes", "--no-memory", kinds=("client", "server"))
    assert cold[0] == 0 and any(m.get("role") == "tool" for r in cold[3] for m in r["messages"]), cold
    assert warm == cold


def test_json_output_is_the_same_warm_and_cold(runs: Runs) -> None:
    cold, warm = _both(runs, "-p", "안녕", "--new", "--output-format", "json", "--no-memory")
    assert json.loads(cold[1])["answer"]
    assert warm == cold


def test_a_piped_session_is_the_same_warm_and_cold(runs: Runs) -> None:
    script = "안녕\n/tokens\n부산 맛집 검색\n/threads\n종료\n"
    cold, warm = _both(runs, "--new", "--yes", input=script, kinds=("client", "server"))
    assert cold[0] == 0 and len(cold[3]) >= 3, cold
    assert warm == cold


def test_a_bad_option_and_a_rejected_key_fail_the_same_way(runs: Runs) -> None:
    cold, warm = _both(runs, "--no-such-option")
    assert cold[0] == 2 and warm == cold
    runs.llm.require_key = "another-key"
    try:
        cold, warm = _both(runs, "-p", "안녕", "--new")
    finally:
        runs.llm.require_key = None
    assert cold[0] == 2 and warm == cold
