"""What the model is shown of a server's tool schema (client/core/tool_schema.py): the server's
JSON Schema 2020-12 kept, local refs inlined, nothing outside the document ever followed, and a
hostile schema costing nothing."""

from __future__ import annotations

import json

from client.core.tool_schema import MAX_CHARS, for_model

RICH = {
    "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": False,
    "$defs": {"address": {"$anchor": "addr", "type": "object", "properties": {"city": {"type": "string"}}}},
    "properties": {"home": {"$ref": "#/$defs/address"}, "kind": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
    "if": {"properties": {"kind": {"const": "work"}}}, "then": {"required": ["home"]}, "required": ["kind"],
}


def test_2020_12_keywords_are_kept_and_local_refs_inlined():
    out = for_model(RICH)
    for key in ("$schema", "$defs", "additionalProperties", "if", "then", "required"):
        assert out[key] == RICH[key]
    assert out["properties"]["home"] == RICH["$defs"]["address"]  # inlined, $anchor and all
    assert out["properties"]["kind"] == RICH["properties"]["kind"]
    assert "$ref" not in json.dumps(out["properties"])


def test_a_ref_outside_the_document_is_dropped_with_a_note():
    schema = {"type": "object", "properties": {
        "profile": {"$ref": "https://attacker.example/canary.json", "description": "The profile"},
        "other": {"$ref": "other.json#/x"}, "missing": {"$ref": "#/$defs/nothing"}}}
    out = for_model(schema)
    text = json.dumps(out)
    assert "$ref" not in text
    assert out["properties"]["profile"]["description"].startswith("The profile (schema reference not loaded")
    assert "canary.json" in out["properties"]["profile"]["description"]
    assert set(out["properties"]) == {"profile", "other", "missing"}


def test_a_recursive_schema_keeps_a_ref_that_still_resolves():
    tree = {"type": "object", "$defs": {"node": {"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "properties": {"root": {"$ref": "#/$defs/node"}}}
    out = for_model(tree)
    inner = out["properties"]["root"]["properties"]["children"]["items"]
    assert inner == {"$ref": "#/$defs/node"} and out["$defs"] == tree["$defs"]


def test_refs_that_double_at_every_level_cost_nothing_and_stay_refs():
    defs = {"a0": {"type": "string"}}
    for i in range(1, 60):
        defs[f"a{i}"] = {"type": "object", "properties": {"x": {"$ref": f"#/$defs/a{i - 1}"},
                                                          "y": {"$ref": f"#/$defs/a{i - 1}"}}}
    schema = {"type": "object", "$defs": defs, "properties": {"p": {"$ref": "#/$defs/a59"}}}
    out = for_model(schema)  # inlining all of it (2^59 nodes) would never end: the suite's hang detector
    assert out["properties"]["p"] == {"$ref": "#/$defs/a59"}
    assert len(json.dumps(out)) < MAX_CHARS


def test_what_is_not_a_schema_becomes_an_empty_object_schema():
    for bad in (None, [], "x", 3):
        assert for_model(bad) == {"type": "object", "properties": {}}
    assert for_model({"$ref": 7})["type"] == "object"


def test_title_annotations_go_but_a_property_named_title_and_data_stay():
    schema = {"title": "bookArguments", "type": "object", "properties": {
        "title": {"title": "Title", "type": "string", "default": "Untitled"},
        "meta": {"title": "Meta", "type": "object", "default": {"title": "kept as data"},
                 "enum": [{"title": "also data"}], "anyOf": [{"title": "T", "type": "object"}]}}}
    out = for_model(schema)
    assert "title" not in out
    assert out["properties"]["title"] == {"type": "string", "default": "Untitled"}
    meta = out["properties"]["meta"]
    assert meta["default"] == {"title": "kept as data"} and meta["enum"] == [{"title": "also data"}]
    assert meta["anyOf"] == [{"type": "object"}] and "title" not in meta
