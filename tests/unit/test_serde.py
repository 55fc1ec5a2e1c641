"""The checkpoint serializer rebuilds data, never code (client/engine/store/serde.py).

Each hostile payload names a callable that would create a marker file if it ran.
"""

from __future__ import annotations

from pathlib import Path

import ormsgpack
import pytest
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage

from client.engine.store.serde import TamperedCheckpoint, checkpoint_serde


def ext(code: int, *parts: object) -> ormsgpack.Ext:
    return ormsgpack.Ext(code, ormsgpack.packb(list(parts)))


def packed(value: object) -> tuple[str, bytes]:
    return "msgpack", ormsgpack.packb(value, option=ormsgpack.OPT_NON_STR_KEYS)


def test_what_the_project_stores_round_trips():
    serde = checkpoint_serde()
    state = {"messages": [SystemMessage("s", id="1"), HumanMessage("안녕", id="2"),
                          AIMessage("", tool_calls=[{"name": "web_search", "args": {"query": "q"}, "id": "c1"}], id="3"),
                          ToolMessage("r", tool_call_id="c1", status="error", id="4",
                                      additional_kwargs={"permission": "deny:x"}),
                          RemoveMessage(id="__remove_all__")], "n": 3, "b": b"\x00"}
    assert serde.loads_typed(serde.dumps_typed(state)) == state


def hostile(marker: Path) -> dict[str, object]:
    cmd = f"touch {marker}"
    return {
        "constructor": ext(0, "os", "system", cmd),
        "positional": ext(1, "os", "system", [cmd]),
        "keywords": ext(2, "subprocess", "run", {"args": ["touch", str(marker)]}),
        "method": ext(3, "os", "system", cmd, "__call__"),
        "pydantic": ext(5, "subprocess", "Popen", {"args": ["touch", str(marker)]}, None),
        "nested": ext(2, "langchain_core.messages.human", "HumanMessage",
                      {"content": ext(0, "os", "system", cmd)}),
        "unknown code": ormsgpack.Ext(42, b"\x00"),
    }


@pytest.mark.parametrize("name", list(hostile(Path("x"))))
def test_a_row_naming_code_is_refused_and_nothing_runs(tmp_path, name):
    marker = tmp_path / "ran"
    payload = hostile(marker)[name]
    with pytest.raises(TamperedCheckpoint) as e:
        checkpoint_serde().loads_typed(packed({"channel_values": {"messages": [payload]}}))
    assert e.value.key == "db_tampered"
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["pickle", "json", "nonsense"])
def test_other_encodings_are_refused(kind):
    import pickle

    with pytest.raises(TamperedCheckpoint):
        checkpoint_serde().loads_typed((kind, pickle.dumps(print)))


def test_bytes_that_do_not_decode_are_refused():
    with pytest.raises(TamperedCheckpoint):
        checkpoint_serde().loads_typed(("msgpack", b"\xc1\xff\x00"))


def test_the_graph_allowlist_clone_stays_strict(tmp_path):
    """LangGraph derives a clone from the state schema (with_msgpack_allowlist): still refuses code."""
    marker = tmp_path / "ran"
    clone = checkpoint_serde().with_msgpack_allowlist([("collections", "OrderedDict")])
    with pytest.raises(TamperedCheckpoint):
        clone.loads_typed(packed([ext(0, "os", "system", f"touch {marker}")]))
    with pytest.raises(TamperedCheckpoint):
        clone.loads_typed(packed([ormsgpack.Ext(42, b"")]))
    assert not marker.exists()
