"""A call's arguments against the live input schema (client/core/schema_args.py, issue 48)."""

from __future__ import annotations

from client.core.schema_args import args_problem

SCHEMA = {"type": "object", "required": ["region"],
          "properties": {"region": {"type": "string"}, "priority": {"type": "integer"},
                         "verbose": {"type": "boolean"}, "code": {"type": "string", "pattern": "(a+)+$"}}}


def test_null_for_an_optional_argument_is_no_argument():
    """What models send for 'not given' (and the conformance suite's http-custom-headers sends)."""
    assert args_problem(SCHEMA, {"region": "us-east1", "priority": 1, "verbose": None}) is None


def test_null_for_a_required_argument_is_refused():
    assert args_problem(SCHEMA, {"region": None}) == "region: None is not of type 'string'"


def test_a_wrong_type_is_refused_and_lax_forms_pass():
    assert args_problem(SCHEMA, {"region": "x", "verbose": "maybe"}) == "verbose: 'maybe' is not of type 'boolean'"
    assert args_problem(SCHEMA, {"region": "x", "priority": "10", "verbose": 1}) is None
    assert args_problem(SCHEMA, {"priority": 1}) == "'region' is a required property"


def test_a_hostile_pattern_is_not_run():
    assert args_problem(SCHEMA, {"region": "x", "code": "a" * 5000 + "!"}) is None
