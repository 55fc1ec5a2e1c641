"""OAuth 2.1 for remote MCP servers, on the MCP SDK's `OAuthClientProvider`.

The SDK does metadata discovery (protected resource + authorization server), dynamic client
registration, PKCE, token exchange and refresh. Ours: the token store (one 0600 JSON file per
user and server under the user's data directory, never the working folder), the loopback
callback (127.0.0.1, a port per flow or `oauth.redirectPort`), a pre-registered client from
the config (`oauth.clientId` / `clientSecret` / `scope`), and how the user reaches the
authorization URL: an event with the URL (the UI prints it and opens the browser) or, in the
documented headless mode (`MCP_CHAT_OAUTH_HEADLESS=1`, for tests and CI: Tuning.oauth_headless,
`headless` here), an HTTP GET of the URL whose redirect lands on the loopback callback.

Two rules for what the servers send (issue 50): the callback answers only the `state` of the
authorization URL it belongs to (another local user's `error=` is ignored, not the end of the
login), and the client's registration and token requests go to the authorization server's own
origin; another origin (metadata can name any host and port) is asked about, refused unasked.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import warnings
from pathlib import Path
from typing import Any, AsyncGenerator, Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from client.core.paths import safe_name
from client.core.secrets import remember
from plumbing import private

FLOW_TIMEOUT = 300.0  # seconds the user has to log in
PAGE = b"<html><body><p>mcp-chat: login complete. You can close this window.</p></body></html>"


def token_dir(data: Path, user: str) -> Path:
    """<data>/oauth/<user>: `data` the user's data folder (Settings.dirs.data), outside the working folder."""
    return data / "oauth" / safe_name(user)


def stored_secrets(data: Path) -> None:
    """Learn every token and client secret saved under the OAuth folder (all users of this
    account), starting nothing: `mcp-chat export` and `threads` mask them too."""
    root = token_dir(data, "x").parent
    for path in sorted(root.glob("*/*.json")) if root.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        tokens = data.get("tokens") if isinstance(data, dict) else None
        client = data.get("client") if isinstance(data, dict) else None
        remember([str(v) for d in (tokens, client) if isinstance(d, dict)
                  for k, v in d.items() if k in ("access_token", "refresh_token", "client_secret") and v])


class FileTokenStorage:
    """The SDK's TokenStorage as one private JSON file per server URL."""

    def __init__(self, folder: Path, server_url: str, redirect_uri: str, preset: OAuthClientInformationFull | None) -> None:
        key = hashlib.sha256(server_url.encode()).hexdigest()[:24]
        self.path = folder / f"{key}.json"  # folder: token_dir(...)
        self.server_url = server_url
        self.redirect_uri = redirect_uri
        self.preset = preset

    def _load(self) -> dict[str, Any]:
        """The file as plumbing/private.py reads state: a private regular file of this user, never
        through a symlink (a planted or readable token file counts as none)."""
        doc = private.read_json(self.path)
        return doc if isinstance(doc, dict) else {}

    def _save(self, data: dict[str, Any]) -> None:
        private.write_json(self.path, {**data, "server_url": self.server_url})  # 0600, atomic, folder 0700

    async def get_tokens(self) -> OAuthToken | None:
        raw = self._load().get("tokens")
        if not raw:
            return None
        tokens = OAuthToken.model_validate(raw)
        remember([tokens.access_token, tokens.refresh_token or ""])  # masked wherever echoed
        return tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        remember([tokens.access_token, tokens.refresh_token or ""])
        self._save({**self._load(), "tokens": tokens.model_dump(mode="json", exclude_none=True)})

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self.preset is not None:
            return self.preset
        raw = self._load().get("client")
        if not raw:
            return None
        info = OAuthClientInformationFull.model_validate(raw)
        remember([info.client_secret or ""])
        if info.redirect_uris and self.redirect_uri not in [str(u) for u in info.redirect_uris]:
            return None  # registered for another loopback port: register again
        return info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        remember([client_info.client_secret or ""])
        self._save({**self._load(), "client": client_info.model_dump(mode="json", exclude_none=True)})


class LoopbackCallback:
    """A one-shot HTTP listener on 127.0.0.1 that receives ?code=...&state=...[&iss=...]: only the
    `state` of the authorization URL it waits for (`expect`); anything else is answered 400 and
    changes nothing, so another local user cannot end a login with a forged `error=`."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._server: asyncio.AbstractServer | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None
        self._state: str | None = None

    async def start(self) -> str:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{self.port}/callback"

    def expect(self, authorization_url: str) -> None:
        """The login under way: its URL's `state` is the only one answered."""
        self._state = (parse_qs(urlsplit(authorization_url).query).get("state") or [None])[0]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                pass
            target = line.split(" ")[1] if line.count(" ") >= 2 else "/"
            query = parse_qs(urlsplit(target).query)
            if urlsplit(target).path != "/callback" or not ("code" in query or "error" in query):
                writer.write(b"HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n")
            elif self._state is None or query.get("state") != [self._state]:  # not this login's
                writer.write(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n" + PAGE)
                self._resolve(query)
            await writer.drain()
        except (OSError, asyncio.TimeoutError, IndexError):
            pass
        finally:
            writer.close()

    def _resolve(self, query: dict[str, list[str]]) -> None:
        if self._result is None or self._result.done():
            return
        if "code" in query:  # iss: the SDK checks it against the authorization server (RFC 9207)
            self._result.set_result(AuthorizationCodeResult(
                code=query["code"][0], state=self._state, iss=query.get("iss", [None])[0]))
        else:
            self._result.set_exception(RuntimeError(f"authorization failed: {query['error'][0]}"))

    async def wait(self) -> AuthorizationCodeResult:
        assert self._result is not None
        return await asyncio.wait_for(asyncio.shield(self._result), FLOW_TIMEOUT)

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None


Confirm = Callable[[str], Awaitable[bool | None]]  # "may credentials go to <url>?"; None: nobody to ask


def origin(url: str) -> tuple[str, str, int | None]:
    u = httpx2.URL(url)
    return u.scheme, u.host, u.port or {"http": 80, "https": 443}.get(u.scheme)


class SameOrigin:
    """Mixed into the SDK's providers: every POST of the flow (registration, token, refresh) goes to
    the authorization server's origin (its metadata's issuer; without metadata the SDK uses the
    server's own origin), or to one the user allowed (`confirm`) in this process. Else the flow
    stops with OAuthFlowError, nothing sent."""

    confirm: Confirm | None = None
    context: Any

    def _home(self) -> str:
        meta = self.context.oauth_metadata
        return str(meta.issuer) if meta is not None else self.context.server_url

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super()._auth_flow(request)  # type: ignore[misc]
        allowed: set[tuple[str, str, int | None]] = set()
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is not request and outgoing.method == "POST":
                    await self._check(str(outgoing.url), allowed)
                outgoing = await flow.asend((yield outgoing))
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    async def _check(self, url: str, allowed: set[tuple[str, str, int | None]]) -> None:
        home, there = self._home(), origin(url)
        if there == origin(home) or there in allowed:
            return
        answer = await self.confirm(f"{url} ({home})") if self.confirm is not None else None
        if answer is not True:
            raise OAuthFlowError(f"refused to send OAuth credentials to {url}: not on the authorization server's "
                                 f"origin ({home})")
        allowed.add(there)


def guarded(cls: type[OAuthClientProvider], confirm: Confirm | None) -> type[OAuthClientProvider]:
    """`cls` with the SameOrigin rule, asking through `confirm`."""
    return type(f"SameOrigin{cls.__name__}", (SameOrigin, cls), {"confirm": staticmethod(confirm) if confirm else None})


async def oauth_provider(server_url: str, tokens: Path, conf: dict[str, Any], callback: LoopbackCallback,
                         on_url: Callable[[str], None], on_login: Callable[[bool], None],
                         confirm: Confirm | None = None, headless: bool = False) -> OAuthClientProvider:
    """An httpx2 auth for one remote server, its tokens kept in `tokens` (token_dir). `on_url(url)`
    shows the authorization URL (unless `headless`: then it is fetched);
    `on_login(True/False)` marks a login in progress, so start-up waits for the user; `confirm(url)`
    asks whether credentials may go to an endpoint off the authorization server's origin.

    `"grant": "client_credentials"` is the machine-to-machine extension (no user, no browser): a
    client secret, or a private key that signs a JWT assertion (RFC 7523). Credentials given in the
    config are bound to `"issuer"` when it is set: the flow stops if the server leads elsewhere."""
    scope = conf.get("scope")
    secret = conf.get("clientSecret")
    issuer = conf.get("issuer") or None
    if conf.get("grant") == "client_credentials":
        return _client_credentials(server_url, tokens, conf, scope, secret, issuer, confirm)
    redirect_uri = await callback.start()
    # RFC 7591's default for a confidential client is HTTP Basic; "tokenEndpointAuthMethod" overrides it
    method = conf.get("tokenEndpointAuthMethod") or ("client_secret_basic" if secret else "none")
    metadata = OAuthClientMetadata(
        client_name="mcp-chat", redirect_uris=[redirect_uri], grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], scope=scope, token_endpoint_auth_method="none")
    preset = None
    if conf.get("clientId"):
        preset = OAuthClientInformationFull(client_id=conf["clientId"], client_secret=secret, redirect_uris=[redirect_uri],
                                            scope=scope, token_endpoint_auth_method=method, issuer=issuer)
    storage = FileTokenStorage(tokens, server_url, redirect_uri, preset)

    async def redirect(url: str) -> None:
        callback.expect(url)
        on_login(True)
        if headless:
            async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as http:
                await http.get(url)  # the authorization server redirects to our loopback callback
        else:
            on_url(url)

    async def wait_callback() -> AuthorizationCodeResult:
        try:
            return await callback.wait()
        finally:
            on_login(False)

    # a client ID metadata document (CIMD) the user hosts: used before registration when the
    # authorization server supports it; its redirect_uris must allow the loopback callback (docs/mcp.md)
    return guarded(OAuthClientProvider, confirm)(
        server_url, metadata, storage, redirect_handler=redirect,
        callback_handler=wait_callback,  # the wait is bounded by FLOW_TIMEOUT
        client_metadata_url=conf.get("clientMetadataUrl") or None)


def _client_credentials(server_url: str, tokens: Path, conf: dict[str, Any], scope: str | None, secret: str | None,
                        issuer: str | None, confirm: Confirm | None) -> OAuthClientProvider:
    from mcp.client.auth.extensions.client_credentials import (ClientCredentialsOAuthProvider,
                                                               PrivateKeyJWTOAuthProvider, SignedJWTParameters)

    storage = FileTokenStorage(tokens, server_url, "", None)
    client_id = str(conf.get("clientId") or "")
    key = conf.get("privateKey")
    with warnings.catch_warnings():  # the SDK warns when no issuer is given (required in its 3.0)
        warnings.simplefilter("ignore")
        if key:
            signer = SignedJWTParameters(issuer=client_id, subject=client_id, signing_key=key,
                                         signing_algorithm=conf.get("signingAlgorithm") or "RS256")
            return guarded(PrivateKeyJWTOAuthProvider, confirm)(
                server_url, storage, client_id, signer.create_assertion_provider(), scope=scope, issuer=issuer)
        method = conf.get("tokenEndpointAuthMethod") or "client_secret_basic"
        return guarded(ClientCredentialsOAuthProvider, confirm)(
            server_url, storage, client_id, str(secret or ""), method, scope=scope, issuer=issuer)
