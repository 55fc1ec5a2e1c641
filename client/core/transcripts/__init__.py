"""Transcripts from files (`mcp-chat import`, bench/locomo.py): strict parsing into messages.

A file is untrusted input. `parse_document` reads our own JSON export (client/ui/export.py) or
the LoCoMo format (../shared/data/locomo/README.md) and returns the conversations it holds, or
raises `ImportFormatError` naming the first thing wrong (one line; nothing is stored). Pure:
no I/O; the caller reads the file and the engine stores the result
(client/engine/importer.py).
"""

from __future__ import annotations

from client.core.transcripts.model import MAX_FILE_BYTES, Imported, ImportFormatError, participants_of
from client.core.transcripts.parse import parse_document, parse_text

__all__ = ["MAX_FILE_BYTES", "ImportFormatError", "Imported", "parse_document", "parse_text", "participants_of"]
