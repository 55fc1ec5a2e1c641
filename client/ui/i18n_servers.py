"""UI strings of the MCP servers' lifecycle at a terminal (issues 41, 48): /mcp, the status line of the
servers still starting, a message that waits for them or goes without them, a saved list ignored. Merged into the main tables in client/ui/i18n.py."""

KO: dict[str, str] = {
    "mcp_state_off": "꺼 둠 (이 세션)",
    "mcp_usage": "사용법: /mcp, /mcp enable 이름, /mcp disable 이름",
    "mcp_unknown": "설정에 없는 MCP 서버입니다: {name}",
    "mcp_disabled_now": "MCP 서버 '{name}'을(를) 껐습니다. 다음 요청부터 그 도구 {n}개는 빠집니다.",
    "mcp_already_off": "MCP 서버 '{name}'은(는) 이미 꺼져 있습니다.",
    "mcp_already_on": "MCP 서버 '{name}'은(는) 이미 연결되어 있습니다.",
    "mcp_enabling": "MCP 서버 '{name}'을(를) 시작합니다. 연결되면 다음 요청부터 그 도구가 함께 갑니다.",
    "mcp_enabled_now": "MCP 서버 '{name}' 연결됨 · 도구 {n}개 (다음 요청부터)",
    "mcp_starting": "MCP 서버 시작 중: {names}",
    "mcp_starting_timer": "MCP 서버 시작 중 ({secs}초): {names}",
    "spin_mcp_wait": "MCP 서버를 기다리는 중: {names}",
    "mcp_sent_without": "이 메시지는 아직 시작 중인 MCP 서버의 도구 없이 보냅니다: {names} (연결되면 다음 메시지부터 함께 갑니다)",
    "tools_cache_bad": "저장된 도구 목록 파일을 읽을 수 없어 무시합니다: {path}",
}

EN: dict[str, str] = {
    "mcp_state_off": "off for this session",
    "mcp_usage": "Usage: /mcp, /mcp enable NAME, /mcp disable NAME",
    "mcp_unknown": "No such MCP server in the configuration: {name}",
    "mcp_disabled_now": "MCP server '{name}' is off. Its {n:# tool leaves|# tools leave} the next request.",
    "mcp_already_off": "MCP server '{name}' is off already.",
    "mcp_already_on": "MCP server '{name}' is connected already.",
    "mcp_enabling": "Starting MCP server '{name}'. Once it is up, its tools join the next request.",
    "mcp_enabled_now": "MCP server '{name}' connected · {n:# tool|# tools} (from the next request)",
    "mcp_starting": "MCP servers starting: {names}",
    "mcp_starting_timer": "MCP servers starting ({secs}s): {names}",
    "spin_mcp_wait": "Waiting for MCP servers: {names}",
    "mcp_sent_without": "This message goes without the tools of MCP servers still starting: {names} (they join the next message once up)",
    "tools_cache_bad": "Ignoring a saved tool list that cannot be read: {path}",
}
