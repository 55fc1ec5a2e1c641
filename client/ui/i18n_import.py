"""UI strings of `mcp-chat import FILE`. Merged into client/ui/i18n.py."""

KO: dict[str, str] = {
    "imported": "가져왔습니다: {title} ({turns}턴) → 세션 {id}",
    "import_failed": "가져오지 못했습니다 ({file}): {why}. 아무것도 저장하지 않았습니다.",
    "import_unreadable": "파일을 읽을 수 없음 ({err})",
    "import_too_large": "너무 큼: {detail}",
    "import_not_json": "JSON 이 아님: {detail}",
    "import_unknown_format": "mcp-chat 의 JSON 내보내기도 LoCoMo 형식도 아님",
    "import_bad_field": "잘못된 항목: {detail}",
    "import_bad_value": "잘못된 값: {detail}",
    "import_empty": "사용자 메시지가 없음 {detail}",
    "import_no_conversation": "그런 대화가 없음: {detail}",
    "thread_exists": "이미 있는 세션입니다: {id}",
}

EN: dict[str, str] = {
    "imported": "Imported: {title} ({turns:# turn|# turns}) -> session {id}",
    "import_failed": "Could not import {file}: {why}. Nothing was stored.",
    "import_unreadable": "the file cannot be read ({err})",
    "import_too_large": "too large: {detail}",
    "import_not_json": "not JSON: {detail}",
    "import_unknown_format": "neither an mcp-chat JSON export nor the LoCoMo format",
    "import_bad_field": "bad field: {detail}",
    "import_bad_value": "bad value: {detail}",
    "import_empty": "no user message {detail}",
    "import_no_conversation": "no such conversation: {detail}",
    "thread_exists": "The session already exists: {id}",
}
