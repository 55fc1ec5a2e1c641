"""client.engine.mcp.results: every MCP content kind becomes usable, non-empty text."""

from __future__ import annotations

import base64
import json

from mcp import types

from client.engine.mcp.results import EMPTY, block_text, result_text

PNG = base64.b64encode(b"\x89PNG" + b"\0" * 2044).decode()  # 2048 bytes


def _result(*blocks: object, structured: dict | None = None, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=list(blocks), structuredContent=structured, isError=error)  # type: ignore[arg-type]


def text(s: str, **kw: object) -> types.TextContent:
    return types.TextContent(type="text", text=s, **kw)  # type: ignore[arg-type]


def test_text_blocks_joined_annotations_ignored():
    ann = types.Annotations(audience=["user"], priority=0.9)
    assert result_text(_result(text("첫째"), text("둘째", annotations=ann))) == "첫째\n둘째"


def test_image_and_audio_become_notes_with_type_and_size():
    img = types.ImageContent(type="image", data=PNG, mimeType="image/png")
    audio = types.AudioContent(type="audio", data=base64.b64encode(b"x" * 10).decode(), mimeType="audio/wav")
    assert block_text(img) == "[image: image/png, 2.0 KB]"
    assert block_text(audio) == "[audio: audio/wav, 10 bytes]"
    out = result_text(_result(text("before"), img, text("after")))
    assert out.splitlines() == ["before", "[image: image/png, 2.0 KB]", "after"]
    assert PNG[:40] not in out  # no base64 reaches the model


def test_resource_link_names_uri_and_type():
    link = types.ResourceLink(type="resource_link", name="Doc 1", uri="demo://doc/1", mimeType="text/plain",
                              description="first doc")
    assert block_text(link) == "[resource link: Doc 1 <demo://doc/1> text/plain - first doc]"
    bare = types.ResourceLink(type="resource_link", name="x", uri="file:///x")
    assert block_text(bare) == "[resource link: x <file:///x>]"


def test_embedded_resources_text_textual_blob_and_binary_blob():
    txt = types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
        uri="demo://t/1", mimeType="text/plain", text="hello there"))
    assert block_text(txt) == "[resource <demo://t/1> text/plain]\nhello there"
    tblob = types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
        uri="demo://b/2", mimeType="application/json", blob=base64.b64encode(b'{"a": 1}').decode()))
    assert block_text(tblob).endswith('\n{"a": 1}')
    gz = types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
        uri="demo://b/3", mimeType="application/gzip", blob=base64.b64encode(b"\x1f\x8b" * 20).decode()))
    assert block_text(gz) == "[resource <demo://b/3>: application/gzip, 40 bytes binary, not shown]"
    bad_utf8 = types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
        uri="demo://b/4", mimeType="text/plain", blob=base64.b64encode(b"\xff\xfe\xfd").decode()))
    assert "binary, not shown" in block_text(bad_utf8)


def test_structured_content_added_once():
    data = {"temperature": 21, "도시": "서울"}
    only = result_text(_result(structured=data))
    assert json.loads(only) == data and "서울" in only  # readable, not \\u escapes
    dup = result_text(_result(text(json.dumps(data)), structured=data))
    assert dup == json.dumps(data)  # the text block already carries it
    both = result_text(_result(text("weather:"), structured=data))
    assert both.splitlines()[0] == "weather:" and json.loads(both.splitlines()[1]) == data


def test_structured_content_the_text_already_says_is_not_sent_twice():
    """@modelcontextprotocol/server-filesystem: a file's text, and {"content": <the same text>}."""
    body = "오늘 회의는 오후 3시에 3층 회의실에서 열린다.\n"
    assert result_text(_result(text(body), structured={"content": body})) == body.strip()
    listing = {"files": [{"name": "a.txt", "size": 12}, {"name": "b.txt", "size": 7, "dir": None}]}
    assert result_text(_result(text("a.txt 12\nb.txt 7"), structured=listing)) == "a.txt 12\nb.txt 7"
    more = {"content": body, "modified": "2026-12-05T19:00:00Z"}  # a value the text lacks: all of it goes
    assert json.loads(result_text(_result(text(body), structured=more)).splitlines()[-1]) == more


def test_empty_result_is_never_empty_text():
    assert result_text(_result()) == EMPTY
    assert result_text(_result(text("   "))) == EMPTY


def test_error_result_text_is_kept():
    assert result_text(_result(text("bad arguments"), error=True)) == "bad arguments"


def test_long_result_capped_with_note():
    out = result_text(_result(text("x" * 50)), limit=20)
    assert out.startswith("x" * 20) and "30 more characters" in out


def test_unknown_block_kinds_get_a_note():
    class Future:
        type = "hologram"

    assert block_text(Future()) == "[hologram content]"
    assert block_text({"type": "text", "text": "dict text"}) == "dict text"
