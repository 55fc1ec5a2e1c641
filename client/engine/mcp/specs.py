"""Which MCP servers to run: options, `MCP_CONFIG` and the `mcpServers` JSON file.

The file uses the shape Claude Desktop, Cursor and others share:
    {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}},
                    "other": {"url": "https://.../mcp", "headers": {...}}}}
`"alwaysAllow": ["tool", ...]` (or Cline's `"autoApprove"`; `"*"` = every tool) lists tools that
run without asking (client/engine/mcp/permissions.py). `"enabled": false` (or `"disabled": true`)
keeps the entry, parsed like the others, as a spec that is never started (`enabled=False`: listed
as disabled, ready for a later enable); a disabled entry that does not parse is skipped.
`${VAR}` (or `${VAR:-default}`) in command, args, env, cwd, url and headers is
taken from the environment. Header and env values are secrets: never shown, masked in what the
server returns. Those that are credentials by name (Authorization, X-Api-Key, *_TOKEN, a
`${..._KEY}`, the OAuth client secret) and the credentials in a URL (password, `?api_key=`) are
known to the whole process (client/core/secrets.py `remember`): masked before anything is
stored or printed, whoever echoes them. `config_secrets` learns them for the commands that
start no server (export, threads).
Problems are `ConfigError`s naming the file and the entry (exit code 2).

Over ~300 lines on purpose: one parser per field of the shared file format, each small, with the
error text that names the field; the file format is the unit a reader looks for.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from client.core.config import ConfigError, Settings
from client.core.secrets import (SECRET_VARS, Redactor, credential_values, keep, looks_secret, mask,
                                 mask_url_credentials, remember, spec_secrets, url_credentials)

BUNDLED_NAME = "search"
TRANSPORTS = {
    "stdio": "stdio",
    "http": "http", "streamable-http": "http", "streamable_http": "http", "streamableHttp": "http",
    "sse": "sse",
}
# an entry's "protocol": how client/engine/mcp/era.py connects (the 2025 revisions all use the handshake)
PROTOCOLS = {"auto": "auto", "legacy": "legacy", "2026-07-28": "2026-07-28",
             **dict.fromkeys(("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"), "legacy")}
_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")  # ${VAR}; VS Code's ${env:VAR}
_INPUT = re.compile(r"\$\{input:[^}]*\}")  # VS Code's prompted inputs: nothing here can answer them
NAVER_KEYS = ("NAVER_CLIENT_ID", "NAVER_CLIENT_SECRET")
OAUTH_EXPANDED = ("clientId", "clientSecret", "scope", "clientMetadataUrl", "issuer", "privateKey")  # take ${VAR}
OAUTH_GRANTS = ("authorization_code", "client_credentials")
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


def bundled_spec(name: str = BUNDLED_NAME, result_chars: int | None = None) -> ServerSpec:
    """Our Naver search server as a stdio child, given the Naver settings of our environment.
    `result_chars`: the provider's cap on a search result (small windows), unless the user set one."""
    secrets = keep(os.environ.get(n, "") for n in SECRET_VARS)
    missing = [n for n in NAVER_KEYS if not os.environ.get(n, "").strip()]  # its tools would all fail
    command, args = bundled_command()
    env = {n: os.environ[n] for n in BUNDLED_VARS if n in os.environ}
    if result_chars is not None:
        env.setdefault("NAVER_RESULT_MAX_CHARS", str(result_chars))
    return ServerSpec(
        name=name, transport="stdio", command=command, args=args, env=env,
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


def url_spec(url: str, name: str = "") -> ServerSpec:
    """A `--server-url` entry: streamable HTTP, named after its host."""
    expanded, secrets = _expand_named(url, name or url, "--server-url")
    if not _is_http(expanded):
        raise ConfigError("mcp_bad_url", name=name or "--server-url", url=url)
    parts = urlsplit(expanded)
    host = parts.hostname or "server"
    name = name or _slug(host if parts.port is None else f"{host}-{parts.port}")
    found = url_credentials(expanded)
    remember([*found, *(v for n, v in secrets if looks_secret(n))])
    return ServerSpec(name=name, transport="http", url=expanded, shown=mask_url_credentials(url),
                      secrets=keep([*(v for _, v in secrets), *found]), oauth={})


def server_specs(settings: Settings) -> list[ServerSpec]:
    """Every server the settings ask for; the bundled one when nothing else is set."""
    specs: list[ServerSpec] = []
    if settings.mcp_config:
        specs.extend(load_config(settings.mcp_config))
    for url in settings.server_urls:
        specs.append(url_spec(url))
    if not any(s.enabled for s in specs) or settings.with_search:
        taken = {s.name for s in specs}
        from client.engine.providers import get_provider

        chars = get_provider(settings.provider).tool_result_chars
        specs.insert(0, bundled_spec(BUNDLED_NAME if BUNDLED_NAME not in taken else "bundled-search", chars))
    return _unique_names(specs)


def load_config(path: str) -> list[ServerSpec]:
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
        spec = parse_entry(str(name), entry, path)
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


def config_secrets(path: str) -> None:
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
            parse_entry(str(name), entry, path)  # remembers what it finds
        except ConfigError:
            pairs = [(k, v) for key in ("env", "headers") if isinstance(entry.get(key), dict)
                     for k, v in entry[key].items() if isinstance(v, str) and "${" not in v]
            remember(credential_values(dict(pairs)))
            if isinstance(entry.get("url"), str):
                remember(url_credentials(entry["url"]))


def parse_entry(name: str, entry: Any, path: str) -> ServerSpec | None:
    """One `mcpServers` entry -> ServerSpec (`enabled=False` when switched off; None when it is off
    and does not parse: skipped, as an entry switched off because it is broken should be)."""

    def bad(detail: str) -> ConfigError:
        return ConfigError("mcp_config_entry", path=path, name=name, detail=detail)

    if not name.strip():
        raise bad("empty name")
    if not isinstance(entry, dict):
        raise bad("not an object")
    for key in ("enabled", "disabled"):
        if key in entry and not isinstance(entry[key], bool):
            raise bad(f'"{key}" must be true or false')
    if entry.get("enabled") is False or entry.get("disabled") is True:
        try:
            spec = _parse_entry(name, entry, path, bad)
        except ConfigError:
            return None
        spec.enabled = False
        return spec
    return _parse_entry(name, entry, path, bad)


def _parse_entry(name: str, entry: dict, path: str, bad: Any) -> ServerSpec:
    kind = entry.get("type", entry.get("transport"))
    has_cmd, has_url = "command" in entry, "url" in entry
    if has_cmd == has_url:
        raise bad('needs exactly one of "command" (stdio) or "url" (HTTP)')
    if kind is not None and kind not in TRANSPORTS:
        raise bad(f'unknown type "{kind}" (stdio, http, sse)')
    transport = TRANSPORTS.get(kind or "", "stdio" if has_cmd else "http")
    if (transport == "stdio") != has_cmd:
        raise bad(f'type "{kind}" does not match {"command" if has_cmd else "url"}')
    secrets: list[str] = []
    strong: list[str] = []  # credentials by name: known to the whole process

    def expand(value: Any, what: str) -> str:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise bad(f"{what} must be a string")
        text, found = _expand_named(str(value), name, path)
        secrets.extend(v for _, v in found)
        strong.extend(v for n, v in found if looks_secret(n))
        return text

    def mapping(key: str) -> dict[str, str]:
        value = entry.get(key) or {}
        if not isinstance(value, dict):
            raise bad(f'"{key}" must be an object of strings')
        out = {str(k): expand(v, f'"{key}.{k}"') for k, v in value.items()}
        return out

    timeout, startup = entry.get("timeout"), entry.get("startupTimeout")
    for key, value in (("timeout", timeout), ("startupTimeout", startup)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
            raise bad(f'"{key}" must be a positive number of seconds')
    allow: list[str] = []
    for key in ("alwaysAllow", "autoApprove"):  # Roo/Cline spellings of the same list
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad(f'"{key}" must be a list of tool names')
        allow.extend(v for v in value if v not in allow)
    protocol = PROTOCOLS.get(entry.get("protocol", "auto")) if isinstance(entry.get("protocol", "auto"), str) else None
    if protocol is None:
        raise bad('"protocol" must be "auto", "legacy" (the 2025 handshake) or "2026-07-28"')
    spec = ServerSpec(name=name, transport=transport, timeout=float(timeout) if timeout else None, always_allow=allow,
                      protocol=protocol, startup_timeout=float(startup) if startup else None)
    if has_cmd:
        args = entry.get("args") or []
        if not isinstance(args, list):
            raise bad('"args" must be a list of strings')
        spec.command = expand(entry["command"], '"command"')
        if not spec.command.strip():
            raise bad('"command" is empty')
        spec.args = [expand(a, '"args"') for a in args]
        spec.env = mapping("env")
        spec.cwd = expand(entry["cwd"], '"cwd"') if entry.get("cwd") else None
        spec.shown = " ".join([str(entry["command"]), *map(str, args)])
        if spec.env:
            spec.shown += "  env: " + ", ".join(f"{k}=***" for k in spec.env)
    else:
        spec.url = expand(entry["url"], '"url"')
        if not _is_http(spec.url):
            raise bad(f'"url" is not an http(s) URL: {entry["url"]}')
        spec.headers = mapping("headers")
        # an explicit Authorization header is the user's choice of credentials: no OAuth unless asked for
        has_auth = any(k.lower() == "authorization" for k in spec.headers)
        oauth = entry.get("oauth", None if has_auth else {})
        if oauth is False or oauth is None:
            spec.oauth = None
        elif isinstance(oauth, dict):
            spec.oauth = {k: expand(v, f'"oauth.{k}"') if k in OAUTH_EXPANDED else v for k, v in oauth.items()}
            cimd = spec.oauth.get("clientMetadataUrl")
            if cimd is not None and not _cimd_url(cimd):
                raise bad('"oauth.clientMetadataUrl" must be an https URL with a path')
            grant = spec.oauth.setdefault("grant", "authorization_code")
            if grant not in OAUTH_GRANTS:
                raise bad(f'"oauth.grant" must be one of {", ".join(OAUTH_GRANTS)}')
            if grant == "client_credentials" and not (spec.oauth.get("clientId") and (
                    spec.oauth.get("clientSecret") or spec.oauth.get("privateKey"))):
                raise bad('"oauth.grant": "client_credentials" needs "clientId" and "clientSecret" or "privateKey"')
            for key in ("clientSecret", "privateKey"):
                if spec.oauth.get(key):
                    secrets.append(spec.oauth[key])
                    strong.append(spec.oauth[key])
        else:
            raise bad('"oauth" must be an object or false')
        strong.extend(url_credentials(spec.url))
        secrets.extend(url_credentials(spec.url))
        spec.shown = mask_url_credentials(str(entry["url"]))
        if spec.headers:
            spec.shown += "  headers: " + ", ".join(f"{k}=***" for k in spec.headers)
    spec.secrets = spec_secrets(spec.env, spec.headers, secrets)  # env and header values are secrets as given
    remember([*strong, *credential_values(spec.env, spec.headers)])
    return spec


def _expand_named(text: str, name: str, path: str) -> tuple[str, list[tuple[str, str]]]:
    """Replace `${VAR}` / `${VAR:-default}`; return the text and the (variable, value) pairs used."""
    used: list[tuple[str, str]] = []
    if _INPUT.search(text):
        raise ConfigError("mcp_config_input", path=path, name=name, ref=_INPUT.search(text).group(0))  # type: ignore[union-attr]

    def sub(m: re.Match[str]) -> str:
        value = os.environ.get(m.group(1))
        if value is None or (value == "" and m.group(2) is not None):
            if m.group(2) is None:
                raise ConfigError("mcp_config_var", path=path, name=name, var=m.group(1))
            return m.group(2)
        used.append((m.group(1), value))
        return value

    return _VAR.sub(sub, text), used


def _is_http(url: str) -> bool:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


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


def _cimd_url(url: Any) -> bool:
    """A client ID metadata document's URL: https, a host, a path other than "/" (the SDK's rule)."""
    if not isinstance(url, str):
        return False
    parts = urlsplit(url)
    return parts.scheme == "https" and bool(parts.hostname) and parts.path not in ("", "/")
