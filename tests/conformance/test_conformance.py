"""The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.12, pinned in
scripts/conformance/package-lock.json, installed by scripts/install_conformance.sh).

Client side: the suite starts its test servers and runs `python tests/conformance/driver.py <url>`,
which is the real mcp-chat. Expected failures live in scripts/conformance/baseline.yml, one reason
per line; the suite itself fails on a new failure and on a stale entry. Server side: the scenarios
that apply to our search server, over streamable HTTP against the Naver stub.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.server.helpers import server_env, start_http_server, stop_process
from tests.stubs.naver_stub import NaverStub

pytestmark = pytest.mark.sqlite_only
BASELINE = ROOT / "scripts" / "conformance" / "baseline.yml"
DRIVER = f"{sys.executable} {ROOT / 'tests' / 'conformance' / 'driver.py'}"
CLIENT_SCENARIOS = {
    "initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
    "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
    "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none", "auth/resource-mismatch", "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/client-credentials-jwt", "auth/client-credentials-basic",
}
SERVER_SCENARIOS = ["server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"]


@pytest.fixture(scope="session")
def conformance_js() -> str:
    if shutil.which("npm") is None or shutil.which("node") is None:  # CI never skips these
        (pytest.fail if os.environ.get("CI") else pytest.skip)("node/npm is not installed")
    p = subprocess.run([str(ROOT / "scripts" / "install_conformance.sh")], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip().splitlines()[-1]


def _suite(js: str, *args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["node", js, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)


def _baseline() -> set[str]:
    names = set()
    for line in BASELINE.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("- "):
            entry, _, reason = line.strip()[2:].partition("#")
            assert reason.strip(), f"baseline entry without a reason: {line}"
            names.add(entry.strip())
    return names


def test_the_pinned_suite_lists_the_scenarios_we_account_for(conformance_js, tmp_path):
    p = _suite(conformance_js, "list", cwd=tmp_path, timeout=60)
    assert p.returncode == 0, p.stderr
    client = p.stdout.split("Client scenarios", 1)[1]
    listed = {ln.strip()[2:] for ln in client.splitlines() if ln.strip().startswith("- ")}
    assert listed == CLIENT_SCENARIOS
    assert _baseline() <= CLIENT_SCENARIOS
    assert "elicitation-sep1034-client-defaults" not in _baseline() and "initialize" not in _baseline()


# One scenario at a time: the suite's parallel mode (--suite) starts 14-23 Python clients at
# once, which overloads a small shared machine into timeouts.
def _client(js: str, tmp: Path, *select: str) -> str:
    p = _suite(js, "client", "--command", DRIVER, *select, "--timeout", "120000",
               "--expected-failures", str(BASELINE), "-o", str(tmp / "results"), cwd=tmp)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-6000:]
    return out


@pytest.mark.parametrize("scenario", sorted(CLIENT_SCENARIOS))
def test_client_scenario(conformance_js, tmp_path, scenario):
    out = _client(conformance_js, tmp_path, "--scenario", scenario)
    if scenario in _baseline():
        assert "Baseline check passed" in out, out[-3000:]
    else:
        assert "OVERALL: PASSED" in out, out[-3000:]


@pytest.fixture
def search_server_url(tmp_path):
    with NaverStub() as stub:
        log = (tmp_path / "server.log").open("w")
        proc, port = start_http_server(server_env(stub), tmp_path, log)
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            stop_process(proc)
            log.close()


@pytest.mark.parametrize("scenario", SERVER_SCENARIOS)
def test_search_server_scenarios(conformance_js, search_server_url, tmp_path, scenario):
    p = _suite(conformance_js, "server", "--url", search_server_url, "--scenario", scenario,
               "-o", str(tmp_path / "results"), cwd=tmp_path, timeout=120)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-4000:]
    assert "failed" not in out.split("Test Results", 1)[-1].replace("0 failed", ""), out[-2000:]
