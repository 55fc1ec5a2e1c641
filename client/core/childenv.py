"""The environment a child process (a stdio MCP server) starts with: what it needs, not everything.

A child gets a small base set from our environment (where programs are, whose home, which
language and terminal, temp dir, proxies and CA files for servers that go online) plus the
variables its entry names. It never inherits our keys, nor variables that make a loader or an
interpreter run foreign code (LD_PRELOAD, DYLD_*, PYTHONSTARTUP, NODE_OPTIONS, BASH_ENV, ...).
Values an entry sets itself (`"env": {...}` in the user's own mcpServers file) are the user's
choice and pass as written. Compare the MCP SDK's get_default_environment (HOME, LOGNAME, PATH,
SHELL, TERM, USER), which this extends.
"""

from __future__ import annotations

from typing import Iterable, Mapping

BASE_VARS = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "LANG", "LANGUAGE", "TZ",
    "TMPDIR", "TEMP", "TMP", "XDG_RUNTIME_DIR",
    "SYSTEMROOT", "SYSTEMDRIVE", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PATHEXT", "COMSPEC",  # Windows
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR",
)
BASE_PREFIXES = ("LC_",)

# Variables that load or run code in whatever starts with them (dynamic loaders, interpreters, shells).
HIJACK_VARS = frozenset({
    "BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS", "CDPATH", "GLOBIGNORE",
    "NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE", "NPM_CONFIG_NODE_OPTIONS",
    "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB", "GEM_PATH",
    "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
    "GCONV_PATH", "GIT_EXEC_PATH", "GIT_SSH_COMMAND", "GIT_CONFIG_GLOBAL", "EDITOR", "VISUAL", "PAGER",
    "BROWSER", "SSLKEYLOGFILE", "OPENSSL_CONF", "OPENSSL_ENGINES", "MALLOC_CONF",
})
HIJACK_PREFIXES = ("LD_", "DYLD_", "PYTHON", "NODE_OPTIONS", "DENO_", "BUN_")


def is_hijack(name: str) -> bool:
    """A variable that makes a loader or interpreter run code it names."""
    return name in HIJACK_VARS or name.upper().startswith(HIJACK_PREFIXES) or name.startswith("()")


def _inheritable(name: str, value: str) -> bool:
    return not is_hijack(name) and not value.startswith("()")  # "() {": an exported shell function


def child_env(source: Mapping[str, str], named: Iterable[str] = (), given: Mapping[str, str] | None = None) -> dict[str, str]:
    """The base set and the `named` variables taken from `source` (never a hijack variable),
    then the entry's own `given` values on top."""
    wanted = set(BASE_VARS) | set(named)
    env = {k: v for k, v in source.items()
           if (k in wanted or k.startswith(BASE_PREFIXES)) and _inheritable(k, v)}
    env.update(given or {})
    return env
