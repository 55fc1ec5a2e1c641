"""The chat template served with the local model (`--jinja --chat-template-file`).

Qwen2.5-Coder answers a tool request with a fenced JSON block
```json
{"name": "web_search", "arguments": {"query": "..."}}
```
so the template asks for exactly that, and replays earlier calls the same way. llama-server
picks its "Hermes 2 Pro" parser for any template whose text contains the tag `<tool_call>`
(see the comment below); that parser, and its lazy grammar, accept the fenced block.

Tools are listed compactly (name, signature, first line of the description) instead of full
JSON schemas: on a 4,096-token window every token of the system prompt counts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TOOLS_RULES = (
    "\nCall a function only when the user asks you to search or needs current or outside information; "
    "otherwise answer directly.\n"
    "To call a function, reply with only this block and nothing else:\n"
    '```json\n{"name": "<function-name>", "arguments": {<arguments>}}\n```\n'
    "The result comes back as <tool_response>. Then answer the user from it, in the language of the user."
)
TOOLS_RULES_JINJA = TOOLS_RULES.replace("\\", "\\\\").replace("\n", "\\n").replace("'", "\\'")

CHAT_TEMPLATE = r"""{#- llama-server: Hermes-style tool calls (<tool_call>), fenced JSON accepted -#}
{%- set sys_text = messages[0]['content'] if messages and messages[0]['role'] == 'system' else 'You are a helpful assistant.' -%}
{{- '<|im_start|>system\n' + sys_text }}
{%- if tools %}
{{- '\n\n# Tools\nYou can call these functions:\n' }}
{%- for tool in tools %}
{%- set fn = tool.function if tool.function is defined else tool %}
{%- set props = fn.parameters.properties if fn.parameters is defined and fn.parameters.properties is defined else {} %}
{{- '- ' + fn.name + '(' }}
{%- for pname, prop in props.items() %}
{{- pname + ': ' + (prop.type if prop.type is defined else 'string') }}
{%- if prop.default is defined %}{{- ' = ' + (prop.default | tojson) }}{%- endif %}
{%- if not loop.last %}{{- ', ' }}{%- endif %}
{%- endfor %}
{{- '): ' + ((fn.description or '').split('\n')[0] | trim) + '\n' }}
{%- endfor %}
{{- '@@TOOLS_RULES@@' }}
{%- endif %}
{{- '<|im_end|>\n' }}
{%- for message in messages %}
{%- if message.role == 'system' %}
{%- if not loop.first %}{{- '<|im_start|>system\n' + message.content + '<|im_end|>\n' }}{%- endif %}
{%- elif message.role == 'user' %}
{{- '<|im_start|>user\n' + message.content + '<|im_end|>\n' }}
{%- elif message.role == 'assistant' %}
{{- '<|im_start|>assistant\n' }}
{%- if message.content %}{{- message.content }}{%- endif %}
{%- if message.tool_calls %}
{%- for call in message.tool_calls %}
{%- set f = call.function if call.function is defined else call %}
{%- if message.content or not loop.first %}{{- '\n' }}{%- endif %}
{{- '```json\n{"name": "' + f.name + '", "arguments": ' }}
{%- if f.arguments is string %}{{- f.arguments }}{%- else %}{{- f.arguments | tojson }}{%- endif %}
{{- '}\n```' }}
{%- endfor %}
{%- endif %}
{{- '<|im_end|>\n' }}
{%- elif message.role == 'tool' %}
{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}
{{- '\n<tool_response>\n' + message.content + '\n</tool_response>' }}
{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}{{- '<|im_end|>\n' }}{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}
""".replace("@@TOOLS_RULES@@", TOOLS_RULES_JINJA)


def write_template(directory: Path) -> Path:
    """Write the template next to the cached server (rewritten only when it changed)."""
    path = directory / "qwen2.5-coder-tools.jinja"
    if not path.exists() or path.read_text() != CHAT_TEMPLATE:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(CHAT_TEMPLATE)
        tmp.replace(path)
    return path


def render_tools(schemas: list[dict[str, Any]]) -> str:
    """The tools section as CHAT_TEMPLATE renders it (for the token estimate; tested against the server)."""
    out = ["\n\n# Tools\nYou can call these functions:\n"]
    for tool in schemas:
        fn = tool.get("function", tool)
        props = (fn.get("parameters") or {}).get("properties") or {}
        args = []
        for name, prop in props.items():
            arg = f"{name}: {prop.get('type', 'string')}"
            if "default" in prop:
                arg += " = " + json.dumps(prop["default"], ensure_ascii=False)
            args.append(arg)
        desc = (fn.get("description") or "").split("\n")[0].strip()
        out.append(f"- {fn['name']}({', '.join(args)}): {desc}\n")
    out.append(TOOLS_RULES)
    return "".join(out)
