"""Working-folder trust at start-up: load the user's own config, ask about the folder's.

Before any command that reads configuration or a database starts: the per-user `.env` is
loaded; then, when the working folder offers a `.env` or a `./checkpoint.db`
(client/core/trust.py), it is used only if the user trusted it. At a terminal one question shows
what would be used; in a pipe one line on stderr says how to trust. `mcp-chat trust [DIR]` and
`mcp-chat trust --revoke [DIR]` set the record directly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterable

from client.core.config import YES_WORDS, ConfigError
from client.core.paths import user_env_file
from client.core.trust import Offer, shown_value, trusted
from client.ui.i18n import t

LISTED = 20  # variables shown in the question


def load_user_env() -> None:
    """The per-user `.env` (the user's own: always used); real environment variables win.
    One that is not UTF-8 text is a ConfigError naming it (exit 2)."""
    from client.engine.trust import read_user_env

    for name, value in read_user_env(user_env_file()).items():
        if value is not None and name not in os.environ:
            os.environ[name] = value


def settle(db_option: str | None, real_env: Iterable[str]) -> bool:
    """Use the working folder's offer if it is trusted (asking at a terminal). Returns whether a
    ./checkpoint.db there may be the default database. `real_env`: the names set before any .env."""
    from client.engine.trust import load_records, save_records

    chosen = bool(db_option or os.environ.get("CHECKPOINT_DB", "").strip())
    o = _offer(Path.cwd(), real_env, chosen)
    if o.empty:
        return False
    records = load_records()
    if trusted(o, records.keys):
        apply(o)
        return True
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        print(t("trust_not_used", folder=_clean(o.folder), what=_what(o)), file=sys.stderr, flush=True)
        return False
    if not ask(o):
        print(t("trust_declined"), file=sys.stderr, flush=True)
        return False
    records.add(o.key)
    err = save_records(records)
    if err:
        print(t("trust_save_failed", err=err), file=sys.stderr, flush=True)
    apply(o)
    return True


def apply(o: Offer) -> None:
    """The folder's variables, before the per-user ones and after the real environment."""
    for name, value in o.env:
        os.environ[name] = value


def ask(o: Offer) -> bool:
    for line in describe(o):
        print(line, file=sys.stderr)
    print(t("trust_ask"), end="", file=sys.stderr, flush=True)
    try:
        answer = input()
    except EOFError:
        return False
    return answer.strip().lower() in YES_WORDS


def describe(o: Offer) -> list[str]:
    """What trusting the folder would use (no secret values, no control characters)."""
    lines = [t("trust_head", folder=_clean(o.folder))]
    for name, value in o.env[:LISTED]:
        shown = shown_value(name, value)
        lines.append(t("trust_env_var", name=_clean(name), value=_clean(shown) if shown is not None else t("trust_secret")))
    if len(o.env) > LISTED:
        lines.append(t("trust_env_more", n=len(o.env) - LISTED))
    if o.db is not None:
        lines.append(t("trust_db", path=_clean(o.db)))
    return lines


def run_trust(folder: str, revoke: bool, real_env: Iterable[str]) -> int:
    """`mcp-chat trust [DIR]` / `mcp-chat trust --revoke [DIR]`."""
    from client.engine.trust import load_records, save_records

    path = Path(folder or ".")
    if not path.is_dir():
        raise ConfigError("trust_no_folder", path=folder)
    real = os.path.realpath(path)
    records = load_records()
    if revoke:
        n = records.revoke(real)
        err = save_records(records) if n else None
        if err:
            print(t("trust_save_failed", err=err), file=sys.stderr)
            return 1
        print(t("trust_revoked" if n else "trust_was_not", folder=_clean(real)))
        return 0
    o = _offer(path, real_env, db_chosen=False)
    records.add(o.key)
    err = save_records(records)
    if err:
        print(t("trust_save_failed", err=err), file=sys.stderr)
        return 1
    for line in describe(o) if not o.empty else []:
        print(line)
    print(t("trust_done", folder=_clean(real)))
    return 0


def _offer(folder: Path, real_env: Iterable[str], db_chosen: bool) -> Offer:
    """folder_offer, its errors naming the file without the folder name's control characters."""
    from client.engine.trust import folder_offer

    try:
        return folder_offer(folder, real_env, db_chosen)
    except ConfigError as e:
        if "path" in e.fmt:
            e.fmt["path"] = _clean(str(e.fmt["path"]))
        raise


def _what(o: Offer) -> str:
    return ", ".join(x for x in (".env" if o.env else "", "./checkpoint.db" if o.db else "") if x)


def _clean(text: str) -> str:
    from client.ui.render import clean

    return clean(text)
