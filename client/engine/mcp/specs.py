"""Which MCP servers to run: options, `MCP_CONFIG` and the `mcpServers` JSON file.

The file uses the shape Claude Desktop, Cursor and others share:
    {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}},
                    "other": {"url": "https://.../mcp", "headers": {...}}}}
`"alwaysAllow": ["tool", ...]` (or Cline's `"autoApprove"`; `"*"` = every tool) lists tools that
run without asking (client/engine/mcp/permissions.py). `"enabled": false` (or `"disabled": true`)
keeps the entry, parsed like the others, as a spec that is never started (`enabled=False`: listed
as disabled, ready for a later enable); a disabled entry that does not parse is skipped.
`${VAR}` (or `${VAR:-default}`) in command, args, env, cwd, url and headers is taken from `env`,
the environment the ui hands down (nothing here reads one); an entry is a typed model and its
expansion a separate pure pass (client/engine/mcp/entries.py). Header and env values are
secrets: never shown, masked in what the server returns. Those that are credentials by name (Authorization, X-Api-Key, *_TOKEN, a
`${..._KEY}`, the OAuth client secret) and the credentials in a URL (password, `?api_key=`) are
known to the whole process (client/core/secrets.py `remember`): masked before anything is
stored or printed, whoever echoes them. `config_secrets` learns them for the commands that
start no server (export, threads).
Problems are `ConfigError`s naming the file and the entry (exit code 2).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping
from urllib.parse import urlsplit

from client.core.config import ConfigError, Settings, http_url
from client.core.secrets import (SECRET_VARS, Redactor, credential_values, keep, mask,
                                 mask_url_credentials, remember, url_credentials)
from client.engine.mcp.entries import HttpEntry, bad, expand, validate

BUNDLED_NAME = "search"
NO_ENV: Mapping[str, str] = MappingProxyType({})  # nothing to expand from unless the caller gives an environment
NAVER_KEYS = ("NAVER_CLIENT_ID", "NAVER_CLIENT_SECRET")
# What the bundled server reads (server/naver.py); nothing else of ours reaches it (client/core/childenv.py).
BUNDLED_VARS = (*NAVER_KEYS, "NAVER_API_BASE_URL", "NAVER_TIMEOUT", "NAVER_RESULT_MAX_CHARS",
                # whether and where its pre-imported process runs (plumbing/forkserver, server/daemon.py)
                "MCP_CHAT_DAEMON", "MCP_CHAT_RUNTIME_DIR", "MCP_CHAT_DAEMON_IDLE", "MCP_CHAT_DAEMON_DEBUG")


@dataclass
class ServerSpec:
    name: str
    transport: str  # stdio | http | sse
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    shown: str = ""  # how the user wrote it, without secret values
    secrets: list[str] = field(default_factory=list)  # values to mask wherever text leaves the hub
    timeout: float | None = None  # seconds per tool call (None: hub default)
    startup_timeout: float | None = None  # "startupTimeout": seconds to connect and list tools (None: hub default)
    bundled: bool = False
    missing: list[str] = field(default_factory=list)  # required env vars that are unset: not started
    always_allow: list[str] = field(default_factory=list)  # "alwaysAllow": tools run without asking ("*": all)
    oauth: dict[str, Any] | None = None  # remote only: {} = on (discovery + registration), None = off
    protocol: str = "auto"  # "protocol": auto (discover, else the 2025 handshake) | legacy | 2026-07-28 (era.py)
    enabled: bool = True  # False: "enabled": false / "disabled": true, never started (ToolHub.disabled)

    @property
    def where(self) -> str:
        """Command line or URL only (no env/header names)."""
        return self.shown.split("  ")[0]

    def redact(self, text: str) -> str:
        """This server's text with its own secrets and every known secret masked."""
        return mask(Redactor(self.secrets)(text))


# Runs our own `server` package from the directory that holds this `client` package (one
# distribution installs both side by side). `-P` keeps the working folder off sys.path and
# `-E` ignores PYTHONPATH/PYTHONSTARTUP/...: no server.py, mcp.py, ... there can be imported;
# `--no-env-file`: the working folder's .env is not the server's configuration either.
# server.__main__.boot hands the run to this user's pre-imported server process when one serves
# this installation (plumbing/forkserver, server/daemon.py), else starts cold.
_BOOT = "import sys; sys.path.insert(0, sys.argv.pop(1)); from server.__main__ import boot; boot()"


def bundled_command() -> tuple[str, list[str]]:
    """(executable, args) that start our search server over stdio, immune to the current folder."""
    root = Path(__file__).resolve().parents[3]  # client/engine/mcp/specs.py -> install dir
    return sys.executable, ["-E", "-P", "-c", _BOOT, str(root), "--transport", "stdio", "--no-env-file"]


def bundled_spec(name: str = BUNDLED_NAME, result_chars: int | None = None, env: Mapping[str, str] = NO_ENV) -> ServerSpec:
    """Our Naver search server as a stdio child, given the Naver settings of `env` (the ui's environment).
    `result_chars`: the provider's cap on a search result (small windows), unless the user set one."""
    secrets = keep(env.get(n, "") for n in SECRET_VARS)
    missing = [n for n in NAVER_KEYS if not env.get(n, "").strip()]  # its tools would all fail
    command, args = bundled_command()
    child = {n: env[n] for n in BUNDLED_VARS if n in env}
    if result_chars is not None:
        child.setdefault("NAVER_RESULT_MAX_CHARS", str(result_chars))
    return ServerSpec(
        name=name, transport="stdio", command=command, args=args, env=child,
        shown="python -P -m server --transport stdio", secrets=secrets, bundled=True,
        missing=missing,
    )


def names_directories(spec: ServerSpec) -> bool:
    """A stdio entry whose arguments name an existing directory (server-filesystem's allowed
    directories, `--root=DIR`, ...): it has its own access list, which roots would replace."""
    if spec.transport != "stdio":
        return False
    base = Path(spec.cwd or ".")
    for arg in spec.args:
        for part in (arg, arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else ""):
            if part and not part.startswith("-"):
                path = Path(os.path.expanduser(part))
                if (path if path.is_absolute() else base / path).is_dir():
                    return True
    return False


def url_spec(url: str, name: str = "", env: Mapping[str, str] = NO_ENV) -> ServerSpec:
    """A `--server-url` entry: streamable HTTP, named after its host (`${VAR}` from `env`, as in an entry)."""
    try:
        e, secrets, known = expand(HttpEntry(url=url, oauth={}), env)
    except ConfigError as err:
        raise ConfigError(err.key, path="--server-url", name=name or url, **err.fmt) from None
    if not http_url(e.url):
        raise ConfigError("mcp_bad_url", name=name or "--server-url", url=url)
    parts = urlsplit(e.url)
    host = parts.hostname or "server"
    remember(known)
    return ServerSpec(name=name or _slug(host if parts.port is None else f"{host}-{parts.port}"), transport="http",
                      url=e.url, shown=mask_url_credentials(url), secrets=secrets, oauth={})


def server_specs(settings: Settings, env: Mapping[str, str] = NO_ENV) -> list[ServerSpec]:
    """Every server the settings ask for; the bundled one when nothing else is set. `env`: the
    environment `${VAR}` and the bundled server's settings come from (the ui's). An entry without
    its own "startupTimeout" gets MCP_CHAT_STARTUP_TIMEOUT's (Settings.tuning)."""
    specs: list[ServerSpec] = []
    if settings.mcp_config:
        specs.extend(load_config(settings.mcp_config, env))
    for url in settings.server_urls:
        specs.append(url_spec(url, env=env))
    if not any(s.enabled for s in specs) or settings.with_search:
        taken = {s.name for s in specs}
        from client.engine.providers import get_provider

        chars = get_provider(settings.provider).tool_result_chars
        specs.insert(0, bundled_spec(BUNDLED_NAME if BUNDLED_NAME not in taken else "bundled-search", chars, env))
    for s in specs:
        s.startup_timeout = s.startup_timeout or settings.tuning.startup_timeout
    return _unique_names(specs)


def load_config(path: str, env: Mapping[str, str] = NO_ENV) -> list[ServerSpec]:
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError("mcp_config_unreadable", path=path, err=getattr(e, "strerror", None) or str(e)) from None
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ConfigError("mcp_config_json", path=path, line=e.lineno, col=e.colno, err=e.msg) from None
    servers = _servers(doc, path)
    specs = []
    for name, entry in servers.items():
        spec = parse_entry(str(name), entry, path, env)
        if spec is not None:
            specs.append(spec)
    return specs


def _servers(doc: Any, path: str) -> dict:
    """The file's servers: `mcpServers` (Claude Desktop, Cursor, ...) or `servers` (VS Code), not both;
    a file with neither names the keys it has and the one meant ("mcpServer": a typo)."""
    if isinstance(doc, dict) and "mcpServers" in doc and "servers" in doc:
        raise ConfigError("mcp_config_both", path=path)
    servers = doc.get("mcpServers", doc.get("servers")) if isinstance(doc, dict) else None
    if isinstance(servers, dict):
        return servers
    keys = [str(k) for k in doc] if isinstance(doc, dict) else []
    near = difflib.get_close_matches("mcpServers", keys, n=1, cutoff=0.6)
    if near and near[0] != "mcpServers":
        raise ConfigError("mcp_config_typo", path=path, found=near[0])
    raise ConfigError("mcp_config_shape", path=path, keys=", ".join(json.dumps(k, ensure_ascii=False) for k in keys[:5]) or "-")


def config_secrets(path: str, env: Mapping[str, str] = NO_ENV) -> None:
    """Learn the credentials an mcpServers file names, starting nothing (`mcp-chat export` and
    `threads` mask them too). Best effort: an entry that does not parse (a `${VAR}` unset here)
    still gives its literal credential-named header and env values; an unreadable file, nothing."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.loads(f.read())
    except (OSError, UnicodeDecodeError, ValueError):
        return
    servers = doc.get("mcpServers", doc.get("servers")) if isinstance(doc, dict) else None
    for name, entry in (servers.items() if isinstance(servers, dict) else []):
        try:
            parse_entry(str(name), entry, path, env)  # remembers what it finds
        except ConfigError:
            if not isinstance(entry, dict):
                continue
            pairs = [(k, v) for key in ("env", "headers") if isinstance(entry.get(key), dict)
                     for k, v in entry[key].items() if isinstance(v, str) and "${" not in v]
            remember(credential_values(dict(pairs)))
            if isinstance(entry.get("url"), str):
                remember(url_credentials(entry["url"]))


def parse_entry(name: str, entry: Any, path: str, env: Mapping[str, str] = NO_ENV) -> ServerSpec | None:
    """One `mcpServers` entry -> ServerSpec (`enabled=False` when switched off; None when it is off
    and does not parse: skipped, as an entry switched off because it is broken should be). Its
    shape is checked, then its variables expanded from `env` (client/engine/mcp/entries.py); the
    credentials it holds become known to the whole process."""

    def named(e: ConfigError) -> ConfigError:
        return ConfigError(e.key, path=path, name=name, **e.fmt)

    if not name.strip():
        raise named(bad("empty name"))
    if not isinstance(entry, dict):
        raise named(bad("not an object"))
    for key in ("enabled", "disabled"):
        if key in entry and not isinstance(entry[key], bool):
            raise named(bad(f'"{key}" must be true or false'))
    off = entry.get("enabled") is False or entry.get("disabled") is True
    try:
        given = validate(entry)
        e, secrets, known = expand(given, env)
        e.check(given)
    except ConfigError as err:
        if off:
            return None
        raise named(err) from None
    remember(known)
    fields = e.model_dump(include={"command", "args", "env", "cwd", "transport", "url", "headers", "oauth"})
    return ServerSpec(**{"transport": "stdio", **fields}, name=name, timeout=e.timeout, startup_timeout=e.startupTimeout,
                      always_allow=e.allowed(), protocol=e.protocol, shown=given.shown(), secrets=secrets, enabled=not off)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "server"


def _unique_names(specs: list[ServerSpec]) -> list[ServerSpec]:
    seen: set[str] = set()
    for s in specs:
        base, n = s.name, 2
        while s.name in seen:
            s.name, n = f"{base}-{n}", n + 1
        seen.add(s.name)
    return specs
