"""The official MCP conformance suite (@modelcontextprotocol/conformance, pinned with the Node.js it
needs in scripts/conformance/package-lock.json, installed by scripts/install_conformance.sh).

Client side: the suite starts its test server and runs `python tests/conformance/driver.py <url>`,
which is the real mcp-chat (forked by the test session's pre-imported process). Server side: our
search server over streamable HTTP against the Naver stub. Every scenario runs on its own, at the
revision it is scored for. Expected failures live in scripts/conformance/baseline.yml, one reason
per line; the suite fails on a new failure and on a stale entry. Every scenario the pinned suite
scores for a revision is either run here or named in NOT_RUN with the reason (docs/mcp.md has the
table).
"""

from __future__ import annotations

import os
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
NEW, OLD = "2026-07-28", "2025-11-25"
AUTH = ["auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
        "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
        "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
        "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none", "auth/pre-registration"]
# revision -> client scenarios run at it ("extension": off the spec timeline, run unscored)
CLIENT = {
    NEW: ["tools_call", "request-metadata", *AUTH, "auth/resource-mismatch", "auth/offline-access-scope",
          "auth/offline-access-not-supported", "auth/authorization-server-migration", "auth/iss-supported",
          "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected",
          "auth/iss-normalized", "auth/metadata-issuer-mismatch", "sep-2322-client-request-state",
          "http-standard-headers", "http-custom-headers", "http-invalid-tool-headers", "json-schema-ref-no-deref",
          "json-schema-2020-12-preservation"],
    OLD: ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", *AUTH],
    "2025-03-26": ["auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback"],
    "extension": ["auth/client-credentials-jwt", "auth/client-credentials-basic"],
}
# revision -> server scenarios that apply to a server with our own tools
SERVER = {
    NEW: ["server-stateless", "tools-list", "tools-call-error", "server-sse-multiple-streams", "resources-list",
          "sep-2164-resource-not-found", "prompts-list", "dns-rebinding-protection", "caching",
          "http-header-validation", "input-required-result-unsupported-methods",
          "input-required-result-ignore-extra-params"],
    OLD: ["server-initialize", "ping", "tools-list", "tools-call-error", "server-sse-multiple-streams",
          "resources-list", "prompts-list", "dns-rebinding-protection", "server-session-lifecycle"],
}
FIXTURE = "exercises the suite's own fixture tools/prompts/resources, which a search server does not have"
NOT_RUN = {  # scenario -> why it is not run against mcp-chat or the search server
    "auth/enterprise-managed-authorization": "extension: enterprise identity assertion, not built",
    "auth/dpop": "extension: DPoP-bound tokens, not built", "auth/dpop-nonce": "extension: DPoP, not built",
    "auth/wif-jwt-bearer": "extension: workload identity federation, not built",
    "completion-complete": "our server offers no completions (it declares no such capability)",
    "logging-set-level": "our server declares no logging capability (deprecated in 2026-07-28)",
    "resources-subscribe": "our server has no resources to subscribe to",
    "resources-unsubscribe": "our server has no resources to subscribe to",
    "http-custom-header-server-validation": "our tools designate no x-mcp-header parameters",
    "input-required-result-missing-input-response": "our tools never ask for input, so nothing is re-requested "
                                                    "(passes with a warning)",
    "input-required-result-validate-input": "our tools never ask for input: a null inputResponses is ignored "
                                            "(passes with a warning; the SDK answers it)",
    **{s: FIXTURE for s in (
        "tools-call-simple-text", "tools-call-image", "tools-call-audio", "tools-call-embedded-resource",
        "tools-call-mixed-content", "tools-call-with-progress", "tools-call-with-logging", "tools-call-sampling",
        "tools-call-elicitation", "elicitation-sep1034-defaults", "elicitation-sep1330-enums", "resources-read-text",
        "resources-read-binary", "resources-templates-read", "prompts-get-simple", "prompts-get-with-args",
        "prompts-get-embedded-resource", "prompts-get-with-image", "json-schema-2020-12",
        "input-required-result-basic-elicitation", "input-required-result-basic-sampling",
        "input-required-result-basic-list-roots", "input-required-result-request-state",
        "input-required-result-multiple-input-requests", "input-required-result-multi-round",
        "input-required-result-non-tool-request", "input-required-result-result-type",
        "input-required-result-tampered-state", "input-required-result-capability-check")},
}


def _run(suite: list[str], *args: str, cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 300) -> str:
    p = subprocess.run([*suite, *args, "--expected-failures", str(BASELINE), "-o", str(cwd / "results")],
                       capture_output=True, text=True, cwd=cwd, timeout=timeout, env={**os.environ, **(env or {})})
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-6000:]
    return out


def _at(revision: str) -> list[str]:
    return [] if revision == "extension" else ["--spec-version", revision]


def _baseline(section: str) -> set[str]:
    names, current = set(), None
    for line in BASELINE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith((" ", "#")):
            current = line.rstrip(":").strip()
        elif line.strip().startswith("- "):
            entry, _, reason = line.strip()[2:].partition("#")
            assert reason.strip(), f"baseline entry without a reason: {line}"
            if current == section:
                names.add(entry.strip())
    return names


def _required(suite: list[str], revision: str, side: str, cwd: Path) -> set[str]:
    p = subprocess.run([*suite, "list", "--requirements", revision], capture_output=True, text=True, cwd=cwd,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    part = p.stdout.split(f"{side} scenarios", 1)[1].split("scenarios (test against", 1)[0]
    return {ln.strip()[2:] for ln in part.split("Run and reported")[0].splitlines() if ln.strip().startswith("- ")}


@pytest.mark.parametrize("revision", [NEW, OLD])
def test_every_scored_scenario_is_run_or_explained(suite, tmp_path, revision):
    for side, ours in (("Client", CLIENT[revision]), ("Server", SERVER[revision])):
        required = _required(suite, revision, side, tmp_path)
        missing = required - set(ours) - set(NOT_RUN)
        assert not missing, f"{revision} {side}: scored but neither run nor explained: {sorted(missing)}"
    assert _baseline("client") | _baseline("server") <= {s for v in [*CLIENT.values(), *SERVER.values()] for s in v}


@pytest.mark.parametrize("revision,scenario", [(r, s) for r, names in CLIENT.items() for s in names],
                         ids=lambda v: v)
def test_client_scenario(suite, tmp_path, daemon_env, revision, scenario):
    out = _run(suite, "client", "--command", DRIVER, "--scenario", scenario, *_at(revision), "--timeout", "120000",
               cwd=tmp_path, env=daemon_env)
    assert ("Baseline check passed" if scenario in _baseline("client") else "OVERALL: PASSED") in out, out[-3000:]


@pytest.fixture(scope="module")
def search_server_url(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("search")
    with NaverStub() as stub:
        log = (tmp / "server.log").open("w")
        proc, port = start_http_server(server_env(stub), tmp, log)
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            stop_process(proc)
            log.close()


@pytest.mark.parametrize("revision,scenario", [(r, s) for r, names in SERVER.items() for s in names],
                         ids=lambda v: v)
def test_search_server_scenario(suite, search_server_url, tmp_path, revision, scenario):
    out = _run(suite, "server", "--url", search_server_url, "--scenario", scenario, *_at(revision), cwd=tmp_path,
               timeout=120)
    if scenario in _baseline("server"):
        assert "Baseline check passed" in out, out[-3000:]
    else:
        assert "failed" not in out.split("Test Results", 1)[-1].replace(" 0 failed", ""), out[-2000:]
