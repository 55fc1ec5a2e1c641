"""Working-folder trust at start-up: load the user's own config, ask about the folder's.

Before any command that reads configuration or a database starts: the per-user `.env` is
loaded; then, when the working folder offers a `.env` or a database (client/core/trust.py), it
is used only if the user trusted it as it is now: the `.env`, every file it names in the folder
and the database's identity. At a terminal one question shows what would be used (and what
changed since the user trusted it); in a pipe one line on stderr says it was not used and how
to trust. `mcp-chat trust [DIR]` and `mcp-chat trust --revoke [DIR]` set the record directly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterable

from client.core.config import YES_WORDS, ConfigError
from client.ui.env_settings import dirs, raw
from client.core.trust import HARMLESS_SHOWN, Offer, Record, changes, ordered, record_of, shown_value
from client.ui.i18n import t


def load_user_env() -> None:
    """The per-user `.env` (the user's own: always used); real environment variables win.
    One that is not UTF-8 text is a ConfigError naming it (exit 2)."""
    from client.ui.folder_trust import read_user_env

    for name, value in read_user_env(dirs().config / ".env").items():
        if value is not None and name not in os.environ:
            os.environ[name] = value


def settle(db_option: str | None, real_env: Iterable[str]) -> bool:
    """Use the working folder's offer if it is trusted as it is now (asking at a terminal).
    Returns whether a database in it may be the default one. `real_env`: the names set before any .env."""
    from client.ui.folder_trust import load_records, record_path, update, with_record

    chosen, records = bool(db_option or raw("CHECKPOINT_DB")), record_path(dirs().config)
    real = os.path.realpath(Path.cwd())
    known = next((r for r in load_records(records) if r.folder == real), None)
    o = _offer(Path.cwd(), real_env, chosen, known)
    if o.empty:
        return False
    if o.unusable:  # no answer makes it safe: one line, at a terminal too
        print(_unusable(o), file=sys.stderr, flush=True)
        return False
    changed = changes(o, known)
    if changed == []:
        apply(o)
        return True
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        key = "trust_changed_not_used" if changed else "trust_not_used"
        print(t(key, folder=_clean(o.folder), what=_what(o), changed=_names(o, changed)), file=sys.stderr, flush=True)
        return False
    if not ask(o, changed):
        print(t("trust_declined"), file=sys.stderr, flush=True)
        return False
    err = update(records, lambda rs: with_record(rs, record_of(o)))
    if err:
        print(t("trust_save_failed", err=_clean(err)), file=sys.stderr, flush=True)
    apply(o)
    return True


def apply(o: Offer) -> None:
    """The folder's variables, before the per-user ones and after the real environment."""
    for name, value in o.env:
        os.environ[name] = value


def ask(o: Offer, changed: list[str] | None = None) -> bool:
    for line in describe(o, changed):
        print(line, file=sys.stderr)
    print(t("trust_ask"), end="", file=sys.stderr, flush=True)
    try:
        answer = input()
    except EOFError:
        return False
    return answer.strip().lower() in YES_WORDS


def describe(o: Offer, changed: list[str] | None = None) -> list[str]:
    """What trusting the folder would use (no secret values, no control characters): every
    variable that decides what runs, where data goes or what is approved first, all of them;
    then the harmless ones (client/core/trust.py HARMLESS), the files the .env names, the database."""
    changed = changed or []
    folder = _clean(o.folder)
    lines = [t("trust_head_changed", folder=folder, changed=_names(o, changed)) if changed
             else t("trust_head", folder=folder)]
    decisive, harmless = ordered(o.env)
    for name, value in decisive + harmless[:HARMLESS_SHOWN]:
        shown = shown_value(name, value)
        lines.append(t("trust_env_var", name=_clean(name), value=_clean(shown) if shown is not None else t("trust_secret")))
    if len(harmless) > HARMLESS_SHOWN:
        lines.append(t("trust_env_more", n=len(harmless) - HARMLESS_SHOWN))
    mark = " " + t("trust_changed_mark")
    for path, digest in o.files:
        key = "trust_file" if digest is not None else "trust_file_absent"
        lines.append(t(key, path=_clean(path)) + (mark if path in changed else ""))
    if o.db is not None:
        lines.append(t("trust_db", path=_clean(o.db)) + (mark if o.db in changed else ""))
    return lines


def run_trust(folder: str, revoke: bool, real_env: Iterable[str]) -> int:
    """`mcp-chat trust [DIR]` / `mcp-chat trust --revoke [DIR]`."""
    from client.ui.folder_trust import load_records, record_path, update, with_record, without

    path, records = Path(folder or "."), record_path(dirs().config)
    if not path.is_dir():
        raise ConfigError("trust_no_folder", path=_clean(folder))
    real = os.path.realpath(path)
    if revoke:
        was = any(r.folder == real for r in load_records(records))
        err = update(records, lambda rs: without(rs, real)) if was else None
        if err:
            print(t("trust_save_failed", err=_clean(err)), file=sys.stderr)
            return 1
        print(t("trust_revoked" if was else "trust_was_not", folder=_clean(real)))
        return 0
    o = _offer(path, real_env, db_chosen=False)
    if o.unusable:
        print(_unusable(o), file=sys.stderr)
        return 1
    err = update(records, lambda rs: with_record(rs, record_of(o)))
    if err:
        print(t("trust_save_failed", err=_clean(err)), file=sys.stderr)
        return 1
    for line in describe(o) if not o.empty else []:
        print(line)
    print(t("trust_done", folder=_clean(real)))
    return 0


def _offer(folder: Path, real_env: Iterable[str], db_chosen: bool, known: Record | None = None) -> Offer:
    """folder_offer, its errors naming the file without the folder name's control characters."""
    from client.ui.folder_trust import folder_offer

    try:
        return folder_offer(folder, real_env, db_chosen, known)
    except ConfigError as e:
        if "path" in e.fmt:
            e.fmt["path"] = _clean(str(e.fmt["path"]))
        raise


def _unusable(o: Offer) -> str:
    """One line: the folder is not used, for the first file it names that may not be used, and why."""
    path, why = o.unusable[0]
    return t("trust_unusable", folder=_clean(o.folder), path=_clean(path), why=t("trust_why_" + why))


def _what(o: Offer) -> str:
    db = "./" + os.path.relpath(o.db, o.folder) if o.db else ""
    return ", ".join(x for x in (".env" if o.env else "", db) if x)


def _names(o: Offer, changed: list[str] | None) -> str:
    """What changed, named as in the folder (`.env`, `mcp.json`, `data/chat.db`)."""
    return ", ".join(_clean(p if p == ".env" else os.path.relpath(p, o.folder)) for p in changed or [])


def _clean(text: str) -> str:
    from client.ui.render import clean

    return clean(text)
