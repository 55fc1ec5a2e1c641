"""One `mcpServers` entry of mcp.json, in two steps, each on its own:

1. `validate(raw)`: the JSON object as typed data (pydantic), `StdioEntry` or `HttpEntry`; a problem
   is a ConfigError naming the field, reported in the order of the fields. Nothing is expanded.
2. `expand(entry, env)`: a pure pass over the fields that take variables: `${VAR}`, `${VAR:-default}`
   and VS Code's `${env:VAR}` from `env` (given: nothing here reads the environment; `${input:...}`
   is refused). It returns the expanded entry, the secrets masked in that server's output, and
   the credentials known to the whole process (client/core/secrets.py `looks_secret`, a URL's).
   `check()` then holds what only the expanded values show.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal, Mapping, TypeVar
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from client.core.config import ConfigError, http_url
from client.core.secrets import credential_values, keep, looks_secret, mask_url_credentials, spec_secrets, url_credentials

TRANSPORTS = {"stdio": "stdio", "sse": "sse",
              **dict.fromkeys(("http", "streamable-http", "streamable_http", "streamableHttp"), "http")}
# an entry's "protocol": how client/engine/mcp/era.py connects (the 2025 revisions all use the handshake)
PROTOCOLS = {"auto": "auto", "legacy": "legacy", "2026-07-28": "2026-07-28",
             **dict.fromkeys(("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"), "legacy")}
OAUTH_EXPANDED = ("clientId", "clientSecret", "scope", "clientMetadataUrl", "issuer", "privateKey")  # take ${VAR}
OAUTH_GRANTS = ("authorization_code", "client_credentials")
_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")  # ${VAR}; VS Code's ${env:VAR}
_INPUT = re.compile(r"\$\{input:[^}]*\}")  # VS Code's prompted inputs: nothing here can answer them


def bad(detail: str) -> ConfigError:
    """A problem of the entry (the caller names the file and the entry)."""
    return ConfigError("mcp_config_entry", detail=detail)


def _oauth(value: Any) -> dict[str, Any] | None:
    if value is False or value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError
    port = value.get("redirectPort", 0)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < 65536:
        raise bad('"oauth.redirectPort" must be a port number')
    conf = {k: _text(v) if k in OAUTH_EXPANDED else v for k, v in value.items()}
    if wrong := next((k for k in OAUTH_EXPANDED if not isinstance(conf.get(k, ""), str)), None):
        raise bad(f'"oauth.{wrong}" must be a string')
    if conf.setdefault("grant", "authorization_code") not in OAUTH_GRANTS:
        raise bad(f'"oauth.grant" must be one of {", ".join(OAUTH_GRANTS)}')
    return conf


def _text(v: Any) -> Any:
    """A number written as a string is one."""
    return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


Text = Annotated[str, BeforeValidator(_text)]
Seconds = Annotated[float, Field(gt=0)] | None
# what a field must be: the one line a wrong value gets (by the first field pydantic refuses)
RULES = {"args": "a list of strings", "env": "an object of strings", "headers": "an object of strings",
         "timeout": "a positive number of seconds", "startupTimeout": "a positive number of seconds",
         "alwaysAllow": "a list of tool names", "autoApprove": "a list of tool names", "oauth": "an object or false",
         "protocol": '"auto", "legacy" (the 2025 handshake) or "2026-07-28"'}


class Entry(BaseModel):
    """What both kinds share. Strict: a wrong type is refused, never coerced (a number as a string excepted)."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)
    expanded: ClassVar[tuple[str, ...]] = ()  # the fields that take ${VAR}, in the order they are expanded
    timeout: Seconds = None  # seconds per tool call (None: the hub's)
    startupTimeout: Seconds = None  # seconds to connect and list its tools
    alwaysAllow: list[str] = []  # tools run without asking ("*": all)
    autoApprove: list[str] = []  # Roo/Cline's spelling of the same list
    protocol: Annotated[Literal[tuple(PROTOCOLS)], AfterValidator(PROTOCOLS.get)] = "auto"  # type: ignore[valid-type]

    @model_validator(mode="before")
    @classmethod
    def _nulls(cls, data: Any) -> Any:
        """null is the field left out (but "oauth": null is off)."""
        return {k: v for k, v in data.items() if v is not None or k == "oauth"} if isinstance(data, dict) else data

    def allowed(self) -> list[str]:
        return list(dict.fromkeys([*self.alwaysAllow, *self.autoApprove]))


class StdioEntry(Entry):
    expanded: ClassVar[tuple[str, ...]] = ("command", "args", "env", "cwd")
    args: list[Text] = []
    command: Text
    env: dict[str, Text] = {}
    cwd: Annotated[Text | None, AfterValidator(lambda v: v or None)] = None  # "": none

    def check(self, given: Entry) -> None:
        if not self.command.strip():
            raise bad('"command" is empty')

    def shown(self) -> str:
        return " ".join([self.command, *self.args]) + ("  env: " + ", ".join(f"{k}=***" for k in self.env) if self.env else "")


class HttpEntry(Entry):
    expanded: ClassVar[tuple[str, ...]] = ("url", "headers", "oauth")
    transport: str = "http"  # http | sse
    url: Text
    headers: dict[str, Text] = {}
    oauth: Annotated[dict[str, Any] | None, BeforeValidator(_oauth)]  # {"grant": ...}: on (discovery + registration); None: off

    @model_validator(mode="before")
    @classmethod
    def _oauth_unless_authorization(cls, data: Any) -> Any:
        """On unless the entry says, or an explicit Authorization header is the user's choice of credentials."""
        if isinstance(data, dict) and "oauth" not in data:
            headers = data.get("headers")
            given = isinstance(headers, dict) and any(str(k).lower() == "authorization" for k in headers)
            return {**data, "oauth": None if given else {}}
        return data

    def check(self, given: Entry) -> None:
        if not http_url(self.url):
            raise bad(f'"url" is not an http(s) URL: {getattr(given, "url", "")}')
        conf = self.oauth or {}
        if "clientMetadataUrl" in conf and not cimd_url(conf["clientMetadataUrl"]):
            raise bad('"oauth.clientMetadataUrl" must be an https URL with a path')
        if conf.get("grant") == "client_credentials" and not (conf.get("clientId") and (
                conf.get("clientSecret") or conf.get("privateKey"))):
            raise bad('"oauth.grant": "client_credentials" needs "clientId" and "clientSecret" or "privateKey"')

    def shown(self) -> str:
        return mask_url_credentials(self.url) + ("  headers: " + ", ".join(f"{k}=***" for k in self.headers) if self.headers else "")


E = TypeVar("E", StdioEntry, HttpEntry)


def validate(raw: dict[str, Any]) -> StdioEntry | HttpEntry:
    """Which kind the entry is, then every field checked (the first problem reported, in one line)."""
    kind = raw.get("type", raw.get("transport"))
    has_cmd, has_url = "command" in raw, "url" in raw
    if has_cmd == has_url:
        raise bad('needs exactly one of "command" (stdio) or "url" (HTTP)')
    if kind is not None and kind not in TRANSPORTS:
        raise bad(f'unknown type "{kind}" (stdio, http, sse)')
    transport = TRANSPORTS.get(kind or "", "stdio" if has_cmd else "http")
    if (transport == "stdio") != has_cmd:
        raise bad(f'type "{kind}" does not match {"command" if has_cmd else "url"}')
    try:
        return StdioEntry.model_validate(raw) if has_cmd else HttpEntry.model_validate({**raw, "transport": transport})
    except ValidationError as e:
        where = ".".join(map(str, e.errors()[0]["loc"]))  # a ConfigError of a validator passes through as it is
        raise bad(f'"{where}" must be {RULES.get(where, "a string")}') from None


def expand(entry: E, env: Mapping[str, str]) -> tuple[E, list[str], list[str]]:
    """(the entry expanded from `env`, its secrets, its credentials). Pure: `env` is all it reads."""
    used: list[tuple[str, str]] = []  # (variable, value)

    def sub(m: re.Match[str]) -> str:
        value = env.get(m.group(1))
        if value is None or (value == "" and m.group(2) is not None):
            if m.group(2) is None:
                raise ConfigError("mcp_config_var", var=m.group(1))
            return m.group(2)
        used.append((m.group(1), value))
        return value

    def walk(value: Any, key: str = "") -> Any:
        if isinstance(value, str):
            if prompted := _INPUT.search(value):
                raise ConfigError("mcp_config_input", ref=prompted.group(0))
            return _VAR.sub(sub, value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):  # env, headers; of "oauth" only the settings that take variables
            return {k: walk(v) if key != "oauth" or k in OAUTH_EXPANDED else v for k, v in value.items()}
        return value

    done = entry.model_copy(update={f: walk(getattr(entry, f), f) for f in entry.expanded})
    secrets, strong = [v for _, v in used], [v for n, v in used if looks_secret(n)]
    env_values, headers = (done.env, None) if isinstance(done, StdioEntry) else (None, done.headers)
    if isinstance(done, HttpEntry):  # the OAuth secret or key, a URL's credentials: both kinds
        found = [*(v for k, v in (done.oauth or {}).items() if k in ("clientSecret", "privateKey") and v),
                 *url_credentials(done.url)]
        secrets, strong = [*secrets, *found], [*strong, *found]
    return done, spec_secrets(env_values, headers, secrets), keep([*strong, *credential_values(env_values, headers)])


def cimd_url(url: Any) -> bool:
    """A client ID metadata document's URL: https, a host, a path other than "/" (the SDK's rule)."""
    if not isinstance(url, str):
        return False
    parts = urlsplit(url)
    return parts.scheme == "https" and bool(parts.hostname) and parts.path not in ("", "/")
