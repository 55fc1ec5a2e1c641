"""A stdio MCP server with many generated tools, for deferred tool schemas (issue 41).

    python tests/stubs/many_tools_server.py DOMAIN[,DOMAIN...] [--count N] [--log FILE]
        [--delay S] [--gate FILE]

DOMAIN is one of DOMAINS (github, slack, ...): its N tools (default 8) are `DOMAIN_VERB_NOUN`
(past 8: `..._2`, `..._3`), each with a realistic description and 3-5 typed parameters, like the
servers people run; several domains make one process serve all their tools. A call returns
"DOMAIN_VERB_NOUN ran: {arguments}" and, with --log, appends that line to FILE (proof it ran).
--delay S / --gate FILE: a slow server, which reads its input only after S seconds / once FILE exists.
`catalog(domain, count)` gives the same tools as plain data (for tests and bench/tools_bench.py).
"""

from __future__ import annotations

import argparse
import inspect
import json
from typing import Annotated, Any

from pydantic import Field

# (domain, product words, nouns): eight tools per domain from VERBS x nouns
DOMAINS: dict[str, tuple[str, tuple[str, ...]]] = {
    "github": ("GitHub repositories", ("issue", "pull_request", "branch", "release")),
    "gitlab": ("GitLab projects", ("merge_request", "pipeline", "issue", "tag")),
    "jira": ("Jira Cloud", ("ticket", "sprint", "epic", "comment")),
    "linear": ("Linear workspaces", ("issue", "cycle", "project", "label")),
    "slack": ("Slack workspaces", ("message", "channel", "reminder", "user_group")),
    "discord": ("Discord servers", ("message", "thread", "role", "webhook")),
    "gmail": ("Gmail mailboxes", ("email", "draft", "label", "filter")),
    "calendar": ("Google Calendar", ("event", "calendar", "attendee", "availability")),
    "drive": ("Google Drive", ("file", "folder", "permission", "revision")),
    "notion": ("Notion workspaces", ("page", "database", "block", "comment")),
    "confluence": ("Confluence spaces", ("page", "space", "attachment", "comment")),
    "figma": ("Figma files", ("frame", "component", "comment", "version")),
    "stripe": ("Stripe accounts", ("payment", "customer", "invoice", "refund")),
    "shopify": ("Shopify stores", ("order", "product", "inventory", "discount")),
    "postgres": ("PostgreSQL databases", ("query", "table", "index", "schema")),
    "redis": ("Redis instances", ("key", "stream", "hash", "channel")),
    "s3": ("Amazon S3 buckets", ("object", "bucket", "policy", "upload")),
    "kubernetes": ("Kubernetes clusters", ("pod", "deployment", "service", "namespace")),
    "docker": ("Docker hosts", ("container", "image", "volume", "network")),
    "sentry": ("Sentry projects", ("error_event", "issue", "release", "alert")),
    "datadog": ("Datadog monitoring", ("monitor", "dashboard", "metric", "log")),
    "pagerduty": ("PagerDuty services", ("incident", "schedule", "escalation", "on_call")),
    "weather": ("a weather service", ("forecast", "alert", "observation", "air_quality")),
    "maps": ("a maps service", ("route", "place", "geocode", "travel_time")),
    "spotify": ("Spotify accounts", ("playlist", "track", "album", "queue")),
}
VERBS = ("list", "create")
EXTRA = {"list": "Supports paging with limit and cursor, and filters by state and date.",
         "create": "Validates every field first and returns the new item's id and URL."}


def catalog(domain: str, count: int = 8) -> list[dict[str, Any]]:
    """The tools of `domain` as {name, description, params: [(name, type, description)]}."""
    product, nouns = DOMAINS[domain]
    tools = []
    for verb in VERBS:
        for noun in nouns:
            words = noun.replace("_", " ")
            params = [("workspace", "str", f"The {product} account or workspace to act in")]
            if verb == "list":
                params += [("query", "str", f"Words the {words}s must contain"),
                           ("limit", "int", "How many results at most (1-100)"),
                           ("state", "str", "Only items in this state: open, closed or all")]
            else:
                params += [("title", "str", f"Title of the new {words}"), ("body", "str", f"Text of the new {words}, Markdown allowed"),
                           ("labels", "str", "Comma-separated labels to attach"),
                           ("notify", "bool", "Whether to notify the people involved")]
            tools.append({
                "name": f"{domain}_{verb}_{noun}",
                "description": (f"{verb.capitalize()} {words}s in {product}. Use this when the user asks to "
                                f"{verb} {_article(words)} {words} in {domain}. {EXTRA[verb]}"),
                "params": params,
            })
    extra = [dict(t, name=t["name"] + f"_{i}") for i in range(2, 100) for t in tools]
    return (tools + extra)[:count]


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


TYPES = {"str": str, "int": int, "bool": bool}


def _tool_fn(name: str, params: list[tuple[str, str, str]], log: str | None) -> Any:
    def run(**kwargs: Any) -> str:
        line = f"{name} ran: {json.dumps(kwargs, sort_keys=True, ensure_ascii=False)}"
        if log:
            with open(log, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        return line

    run.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY,
                          annotation=Annotated[TYPES[t], Field(description=d)],
                          **({} if i < 2 else {"default": None}))
        for i, (p, t, d) in enumerate(params)])
    run.__annotations__ = {p: Annotated[TYPES[t], Field(description=d)] for p, t, d in params}
    return run


def build(domains: list[str], count: int, log: str | None) -> Any:
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("-".join(domains))
    for tool in (t for d in domains for t in catalog(d, count)):
        app.add_tool(_tool_fn(tool["name"], tool["params"], log), name=tool["name"],
                     description=tool["description"], structured_output=False)
    return app


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("domains", type=lambda v: [d for d in v.split(",") if d in DOMAINS or ap.error(d)])
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("--log")
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--gate")
    a = ap.parse_args()
    import os
    import time

    time.sleep(a.delay)
    while a.gate and not os.path.exists(a.gate):
        time.sleep(0.02)
    build(a.domains, a.count, a.log).run("stdio")
