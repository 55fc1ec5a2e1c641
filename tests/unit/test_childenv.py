"""Child processes get what they need, not everything (client/core/childenv.py, the bundled spec)."""

from __future__ import annotations

import pytest

from client.core.childenv import child_env, is_hijack
from client.engine.mcp.specs import bundled_spec

HIJACK = {
    "LD_PRELOAD": "./evil.so", "LD_LIBRARY_PATH": "./lib", "LD_AUDIT": "./a.so", "DYLD_INSERT_LIBRARIES": "./e.dylib",
    "PYTHONPATH": "./py", "PYTHONSTARTUP": "./s.py", "PYTHONHOME": "./h", "PYTHONINSPECT": "1",
    "NODE_OPTIONS": "--require ./evil.js", "BASH_ENV": "./evil.sh", "ENV": "./evil.sh", "PERL5OPT": "-Mevil",
    "RUBYOPT": "-revil", "JAVA_TOOL_OPTIONS": "-javaagent:evil.jar",
}
MINE = {"CLOVA_STUDIO_API_KEY": "sk-mine-1234", "OPENAI_API_KEY": "sk-other-5678", "CHECKPOINT_DB": "postgresql://u:pw@h/db",
        "MCP_CHAT_YES": "1", "NAVER_CLIENT_ID": "nid-1234", "NAVER_CLIENT_SECRET": "nsecret-5678",
        "NAVER_API_BASE_URL": "http://127.0.0.1:9/naver", "NAVER_TIMEOUT": "3"}
BASE = {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "ko_KR.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "xterm",
        "TMPDIR": "/tmp/u", "USER": "u", "HTTPS_PROXY": "http://proxy:3128"}
ENV = {**HIJACK, **MINE, **BASE}


@pytest.mark.parametrize("name", sorted(HIJACK))
def test_hijack_variables_are_known(name):
    assert is_hijack(name)


def test_a_server_entry_gets_the_base_set_and_its_own_values_only():
    env = child_env(ENV, given={"API_TOKEN": "entry-token", "PYTHONPATH": "/opt/srv"})
    assert env == {**BASE, "API_TOKEN": "entry-token", "PYTHONPATH": "/opt/srv"}  # the entry's own choice stays


def test_a_named_variable_is_inherited_but_never_a_hijack_one():
    env = child_env(ENV, named=["NAVER_TIMEOUT", "LD_PRELOAD", "NODE_OPTIONS"])
    assert env["NAVER_TIMEOUT"] == "3"
    assert not set(HIJACK) & set(env)


def test_exported_shell_functions_are_not_inherited():
    assert "TERM" not in child_env({"TERM": "() { evil; }", "PATH": "/bin"})


def test_the_bundled_server_gets_the_naver_settings_and_nothing_else_of_ours(monkeypatch):
    for k in list(__import__("os").environ):
        monkeypatch.delenv(k)
    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    spec = bundled_spec(result_chars=1200, env=ENV)
    env = child_env(ENV, given=spec.env)  # what server.py starts it with
    assert env == {**BASE, "NAVER_CLIENT_ID": "nid-1234", "NAVER_CLIENT_SECRET": "nsecret-5678",
                   "NAVER_API_BASE_URL": "http://127.0.0.1:9/naver", "NAVER_TIMEOUT": "3", "NAVER_RESULT_MAX_CHARS": "1200"}
    assert spec.args[:2] == ["-E", "-P"] and "--no-env-file" in spec.args
