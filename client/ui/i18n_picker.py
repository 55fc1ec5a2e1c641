"""Strings of the first screen (client/ui/picker.py), the small-model note and the habits options.

Kept apart from client/ui/i18n.py so parallel work on the main tables merges cleanly; merged into them there.
"""

KO: dict[str, str] = {
    "pick_intro": "세션은 저장된 대화 하나입니다. 번호나 ID(앞부분)로 이어가거나 Enter로 새 세션을 시작하세요.",
    "pick_more": "... 외 {n}개 (/threads 로 전체 목록)",
    "pick_help": "번호나 세션 ID(앞부분): 그 세션 이어가기 · 새 ID: 그 이름의 새 세션 · Enter: 새 세션 · /threads: 전체 목록 · /exit: 종료",
    "pick_commands": "여기서는 /threads, /help, /exit 만 됩니다 ({cmd} 은(는) 세션을 고른 뒤에 쓰세요).",
    "pick_bad_number": "목록에 없는 번호입니다: {n}",
    "pick_none": "이어갈 세션이 없어 새 세션을 시작합니다.",
    "col_no": "#",
    "age_now": "방금",
    "age_min": "{n}분 전",
    "age_hour": "{n}시간 전",
    "age_day": "{n}일 전",
    "resume_needs_tty": "-r 만으로는 터미널에서 세션을 고릅니다. 스크립트에서는 -r ID, -c 또는 --thread ID 를 쓰세요.",
    "local_note": "로컬 {model}: 이 컴퓨터에서 실행하는 소형 모델이라 품질이 낮고 한국어가 서툽니다.",
    "provider_local_help": "로컬 {model} (이 컴퓨터에서 실행하는 소형 모델: 품질이 낮고 한국어가 서툽니다)",
}

EN: dict[str, str] = {
    "pick_intro": "A session is one stored conversation. Resume one by number or id (prefix), or press Enter for a new one.",
    "pick_more": "... and {n} more (/threads lists them all)",
    "pick_help": "A number or session ID (prefix): resume it · a new ID: a new session by that name · Enter: a new session · /threads: all of them · /exit: quit",
    "pick_commands": "Here only /threads, /help and /exit work ({cmd} works once a session is chosen).",
    "pick_bad_number": "Not a number from the list: {n}",
    "pick_none": "No session to resume: starting a new one.",
    "col_no": "#",
    "age_now": "just now",
    "age_min": "{n} min ago",
    "age_hour": "{n} h ago",
    "age_day": "{n:# day|# days} ago",
    "resume_needs_tty": "-r alone picks a session at a terminal. In scripts use -r ID, -c or --thread ID.",
    "local_note": "local {model}: a small model on this machine, lower quality, weak Korean.",
    "provider_local_help": "local {model} (a small model on this machine: lower quality, weak Korean)",
}
