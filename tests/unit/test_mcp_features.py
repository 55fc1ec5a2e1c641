"""The client features: SEP-1034 defaults, form fields, typed answers, clientInfo, and the questions
they ask through the frontend they are built with (none by default: nobody to ask, declined)."""

from __future__ import annotations

import importlib.metadata

import pytest

from client.engine.frontend import Frontend
from client.engine.mcp.features import BadValue, ClientFeatures, coerce, client_info, form_fields, missing_required, schema_defaults
from client.engine.model_calls import ModelCalls
from mcp import types

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
        "verified": {"type": "boolean", "default": True},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "default": ["a"]},
        "pick": {"type": "string", "oneOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]},
        "email": {"type": "string"},
    },
    "required": ["email"],
}


def test_defaults_of_every_json_type():
    assert schema_defaults(SCHEMA) == {"name": "John Doe", "age": 30, "score": 95.5, "status": "active",
                                       "verified": True, "tags": ["a"]}


def test_form_fields_carry_type_enum_and_required():
    f = {x.name: x for x in form_fields(SCHEMA)}
    assert f["pick"].enum == ["x", "y"] and f["tags"].enum == ["a", "b", "c"]
    assert f["email"].required and not f["name"].required
    assert missing_required(list(f.values()), schema_defaults(SCHEMA)) == ["email"]


@pytest.mark.parametrize("name,text,value", [
    ("age", "41", 41), ("age", "", 30), ("score", "1.5", 1.5), ("verified", "n", False), ("verified", "예", True),
    ("status", "2", "inactive"), ("status", "active", "active"), ("tags", "b, c", ["b", "c"]), ("email", "", None),
])
def test_typed_answers(name, text, value):
    f = {x.name: x for x in form_fields(SCHEMA)}[name]
    assert coerce(f, text) == value


@pytest.mark.parametrize("name,text", [("age", "4.5"), ("score", "many"), ("verified", "maybe"), ("status", "gone"),
                                       ("tags", "a, z")])
def test_bad_answers_are_refused(name, text):
    with pytest.raises(BadValue):
        coerce({x.name: x for x in form_fields(SCHEMA)}[name], text)


def test_client_info_is_ours():
    info = client_info()
    assert info.name == "mcp-chat" and info.version == importlib.metadata.version("mcp-chat")


async def test_yes_accepts_defaults_and_no_terminal_declines():
    params = types.ElicitRequestFormParams(message="m", requestedSchema={**SCHEMA, "required": []})
    got = await ClientFeatures(yes=True).elicit("s", params)
    assert got.action == "accept" and got.content == schema_defaults(SCHEMA)
    assert (await ClientFeatures().elicit("s", params)).action == "decline"
    req = types.ElicitRequestFormParams(message="m", requestedSchema=SCHEMA)  # a required field has no default
    assert (await ClientFeatures(yes=True).elicit("s", req)).action == "decline"


class _Sampler:
    """A features.Sampler with fixed limits, recording its calls."""

    def __init__(self, budget: int = 0, max_output: int = 1024, limit: int = 12) -> None:
        self.budget, self.max_output, self.calls = budget, max_output, []
        self.meter = ModelCalls(lambda: limit)
        self.limit, self.room, self.take = limit, self.meter.room, self.meter.take

    async def __call__(self, msgs, system, n):
        self.calls.append((msgs, system, n))
        return "ok", "m"


async def test_sampling_needs_approval_and_fits_the_budget():
    params = types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hello " * 50))],
        maxTokens=5000)
    sampler = _Sampler()
    denied = await ClientFeatures(sampler=sampler).sample("s", params)
    assert isinstance(denied, types.ErrorData) and not sampler.calls
    sampler = _Sampler(budget=10)
    over = await ClientFeatures(yes=True, sampler=sampler).sample("s", params)
    assert isinstance(over, types.ErrorData) and not sampler.calls
    sampler = _Sampler(max_output=256)
    ok = await ClientFeatures(yes=True, sampler=sampler).sample("s", params)
    assert isinstance(ok, types.CreateMessageResult) and ok.content.text == "ok"
    assert sampler.calls[0][2] == 256  # capped to our output budget


async def test_sampling_past_the_turns_model_calls_is_refused_unasked_and_ends_the_call():
    params = types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="again"))],
        maxTokens=10)
    front, sampler = Answers(yes=True), _Sampler(limit=4)
    sampler.meter.answers = 1  # the answer that called the tool
    f = ClientFeatures(sampler=sampler, frontend=front)
    with f.capped("srv") as mine, f.capped("other") as theirs:
        got = [await f.sample("srv", params) for _ in range(4)]
    assert [isinstance(g, types.CreateMessageResult) for g in got] == [True, True, False, False]
    assert "model call limit of 4" in got[2].message and len(sampler.calls) == 2
    assert len(front.asked) == 2  # never asked about a call that could not run
    assert mine.is_set() and not theirs.is_set()  # the asking server's call ends, no other
    assert front.notices.count("sampling_limit") == 1  # one line, however often it asks
    assert [r["decision"] for r in f.drain_journal()][2:] == ["deny:limit", "deny:limit"]


class Answers(Frontend):
    """A frontend answering every confirm with `yes` and every form with `form` (None: nobody to ask)."""

    def __init__(self, yes: bool | None = None, form: tuple | None = None) -> None:
        self.yes, self.form, self.notices, self.asked = yes, form, [], []

    def notice(self, key, fmt=None, *, warning=False):
        self.notices.append(key)

    async def confirm(self, kind, server, summary):
        self.asked.append((kind, server, summary))
        return self.yes

    async def ask_form(self, server, message, fields):
        self.asked.append(("form", server, [f.name for f in fields]))
        return self.form


@pytest.mark.parametrize("answer,decision,ran", [(None, "deny:no_terminal", False), (False, "deny:user", False),
                                                 (True, "allow:once", True)])
async def test_sampling_asks_the_frontend_it_was_built_with(answer, decision, ran):
    params = types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi there"))],
        maxTokens=10)
    front, sampler = Answers(yes=answer), _Sampler()
    f = ClientFeatures(sampler=sampler, frontend=front)
    got = await f.sample("srv", params)
    assert front.asked == [("sampling", "srv", "hi there")]
    assert isinstance(got, types.CreateMessageResult) == ran and bool(sampler.calls) == ran
    assert [r["decision"] for r in f.drain_journal()] == [decision] and f.drain_journal() == []
    assert ("sampling_denied" in front.notices) != ran and ("sampling_answer" in front.notices) == ran


async def test_a_form_is_asked_through_the_frontend_and_nobody_means_decline():
    params = types.ElicitRequestFormParams(message="m", requestedSchema=SCHEMA)
    front = Answers(form=None)
    assert (await ClientFeatures(frontend=front).elicit("srv", params)).action == "decline"
    assert front.asked[0][0] == "form" and front.notices == ["elicit_declined"]
    front = Answers(form=("accept", {"email": "a@b.c", "age": None}))
    got = await ClientFeatures(frontend=front).elicit("srv", params)
    assert got.action == "accept" and got.content == {"email": "a@b.c"}
    assert (await ClientFeatures(frontend=Answers(form=("cancel", None))).elicit("srv", params)).action == "cancel"
    url = types.ElicitRequestURLParams(message="log in", url="https://example.test/x", elicitationId="e1")
    assert (await ClientFeatures(frontend=Answers(yes=None)).elicit("srv", url)).action == "decline"
    assert (await ClientFeatures(frontend=Answers(yes=True)).elicit("srv", url)).action == "accept"


# -- roots never widen access -------------------------------------------------------
def test_a_server_that_names_its_directories_is_offered_no_roots(tmp_path):
    from client.engine.mcp.features import ClientFeatures
    from client.engine.mcp.specs import ServerSpec, names_directories

    notes = tmp_path / "notes"
    notes.mkdir()
    fs = ServerSpec("fs", "stdio", command="npx", args=["-y", "@modelcontextprotocol/server-filesystem", str(notes)])
    flag = ServerSpec("f2", "stdio", command="srv", args=[f"--allowed-dir={notes}"])
    rel = ServerSpec("f3", "stdio", command="srv", args=["notes"], cwd=str(tmp_path))
    plain = ServerSpec("plain", "stdio", command="node", args=[str(tmp_path / "index.js"), "stdio"])
    remote = ServerSpec("web", "http", url="http://127.0.0.1:1/mcp")
    assert [names_directories(s) for s in (fs, flag, rel, plain, remote)] == [True, True, True, False, False]
    f = ClientFeatures(roots=[tmp_path], own_dirs={"fs"})
    assert f.list_roots("fs").roots == [] and [str(r.uri) for r in f.list_roots("plain").roots] == [tmp_path.resolve().as_uri()]
    assert ClientFeatures().list_roots("plain").roots == []  # nothing offered unless the user asked
