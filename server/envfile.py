"""Which `.env` the standalone server reads, under the client's folder-trust rule.

`--env-file PATH` is the user's own choice: read. Otherwise `./.env` is read only when the user
trusted this folder with mcp-chat (`mcp-chat trust`, or yes to its question) and the file is
byte for byte what they trusted: the same per-user record as the client's
($XDG_CONFIG_HOME/mcp-chat/trusted-folders.json, read by plumbing/trust_record.py). An untrusted
or changed `.env` is not read at all, so a cloned folder never decides where the Naver
credentials go (NAVER_API_BASE_URL), which hosts and origins are answered, or anything else;
one line says so. Real environment variables always win over the file.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from plumbing.trust_record import read_regular, trusted_env
from server.limits import UsageError

RECORD = ("mcp-chat", "trusted-folders.json")  # the client's record (client/ui/folder_trust.py)
NOT_TRUSTED = ("not reading {path}: this folder is not trusted, or its .env changed since it was "
               "(trust it with `mcp-chat trust`, or pass --env-file {path})")


def record_file() -> Path:
    """$XDG_CONFIG_HOME/mcp-chat/trusted-folders.json, else ~/.config/... (a relative
    $XDG_CONFIG_HOME is ignored, as the XDG spec says)."""
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root.joinpath(*RECORD)


def load_env(env_file: str | None, no_env_file: bool = False) -> str | None:
    """Load the chosen `.env` without overriding the environment. Returns a line to log when the
    folder's `.env` was left unread; a file that cannot be read as UTF-8 text is a UsageError."""
    if no_env_file:
        return None
    if env_file:
        path = Path(env_file)
        data = read_regular(path)
        if data is None:
            raise UsageError(f"cannot read --env-file {path}")
        _load(path, data)
        return None
    path = Path.cwd() / ".env"
    if read_regular(path) is None:
        return None
    data = trusted_env(record_file(), Path.cwd())
    if data is None:
        return NOT_TRUSTED.format(path="./.env")
    _load(path, data)
    return None


def _load(path: Path, data: bytes) -> None:
    from dotenv import load_dotenv

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {path} (byte {exc.start} is not UTF-8); fix it or pass --no-env-file") from None
    load_dotenv(stream=io.StringIO(text), override=False)  # the bytes checked are the bytes loaded
