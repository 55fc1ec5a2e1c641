"""The one serializer of checkpoints: a database row can hold data, never code.

LangGraph's JsonPlusSerializer rebuilds msgpack extension objects by importing the module and
calling the name they carry; by default any importable callable (`os.system`) is accepted with a
warning. Here only LangGraph's curated safe types are rebuilt (messages, datetime, uuid, ...:
everything this project stores; the graph may add the types of its own state schema through
`with_msgpack_allowlist`), and a row that names anything else, uses another encoding ("json",
"pickle") or does not decode at all is refused with TamperedCheckpoint (a StoreError, "db_tampered"): one line, nothing
runs.

Both backends get their serializer from `checkpoint_serde()` only. It is also where known
secrets are masked on the way in (client/core/secrets.py `mask_value`): every string of every
message in a checkpoint or pending write, whoever typed or returned it, so a thread's later
turns reload (and send the model) the masked text. Wrap it there: subclass StrictSerializer and
keep it a JsonPlusSerializer, so LangGraph's allowlist derivation (`with_msgpack_allowlist`, a
shallow copy) keeps working.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

import ormsgpack
from langgraph.checkpoint.serde import jsonplus
from langgraph.checkpoint.serde.event_hooks import SerdeEvent, register_serde_event_listener
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from client.core.secrets import mask_value
from client.engine.store.base import StoreError

class TamperedCheckpoint(StoreError):
    """A checkpoint row that names code, or does not decode: fatal for the command that read it."""

    def __init__(self, what: str) -> None:
        super().__init__("db_tampered", what=what)


ENCODINGS = ("null", "bytes", "bytearray", "msgpack")  # what LangGraph writes for our state
BLOCKED = ("msgpack_blocked", "msgpack_method_blocked")
EXT_CODES = frozenset(
    v for n, v in vars(jsonplus).items() if n.startswith("EXT_") and isinstance(v, int)
)

_seen = threading.local()  # the names refused during the loads_typed running on this thread


def _record(event: SerdeEvent) -> None:
    found = getattr(_seen, "names", None)
    if found is not None and event.get("kind") in BLOCKED:
        found.append(".".join(str(event.get(k)) for k in ("module", "name", "method") if event.get(k)))


register_serde_event_listener(_record)
# The refusal is ours to report (one line); LangGraph's own warning would be a second one.
logging.getLogger(jsonplus.__name__).setLevel(logging.ERROR)


def _known_codes_only(inner: Callable[[int, bytes], Any]) -> Callable[[int, bytes], Any]:
    """The top-level ext hook: an extension code LangGraph never writes is refused (nested
    objects go through the library's own checks, which report refused names as events)."""

    def ext_hook(code: int, data: bytes) -> Any:
        if code not in EXT_CODES:
            raise TamperedCheckpoint(f"msgpack ext {code}")
        return inner(code, data)

    return ext_hook


class StrictSerializer(JsonPlusSerializer):
    """JsonPlusSerializer in strict mode that refuses, rather than degrades, a row naming code."""

    def __init__(self) -> None:
        super().__init__(allowed_msgpack_modules=None, pickle_fallback=False, allowed_json_modules=None)
        self._unpack_ext_hook = _known_codes_only(self._unpack_ext_hook)

    def with_msgpack_allowlist(self, extra_allowlist: Any) -> JsonPlusSerializer:
        clone = super().with_msgpack_allowlist(extra_allowlist)
        if clone is not self:  # the library gave the clone a fresh hook: guard it too
            clone._unpack_ext_hook = _known_codes_only(clone._unpack_ext_hook)
        return clone

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return super().dumps_typed(mask_value(obj))

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        if data[0] not in ENCODINGS:
            raise TamperedCheckpoint(f"encoding {data[0]!r}")
        outer = getattr(_seen, "names", None)
        _seen.names = found = []
        try:
            value = super().loads_typed(data)
        except StoreError:
            raise
        except (ormsgpack.MsgpackDecodeError, ValueError, TypeError) as e:
            raise TamperedCheckpoint(type(e).__name__) from None
        finally:
            _seen.names = outer
        if found:
            raise TamperedCheckpoint(found[0])
        return value


def checkpoint_serde() -> JsonPlusSerializer:
    """The serializer every checkpoint saver of this project is built with."""
    return StrictSerializer()
