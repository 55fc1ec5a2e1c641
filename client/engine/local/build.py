"""Build llama.cpp's `llama-server` once, from the llama.cpp vendored in the llama-cpp-python sdist.

Release, static, CPU (-march=native; the cache key includes the CPU), no tests, no examples,
no SSL, no curl. The binary and a `build.json` recording what was built go to the user cache.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from client.engine.frontend import SetupNote, SetupSink, ignore
from client.engine.local.progress import Progress
from client.engine.local.spec import LLAMA_CPP_PYTHON, LLAMA_CPP_PYTHON_VERSION, machine_tag, server_binary, server_dir
from client.engine.local.weights import SetupError
from plumbing.locks import Lock

CMAKE_FLAGS = [
    "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_TOOLS=ON", "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_CURL=OFF", "-DLLAMA_SERVER_SSL=OFF", "-DGGML_CCACHE=OFF",
]
_NINJA_STEP = re.compile(r"^\[(\d+)/(\d+)\]")
_MAKE_STEP = re.compile(r"^\[\s*(\d+)%\]")
_CHANGELOG_COMMIT = re.compile(r"llama\.cpp@([0-9a-f]{40})")


def server_ready(cache: Path) -> bool:
    binary = server_binary(cache)
    try:
        info = json.loads((server_dir(cache) / "build.json").read_text())
    except (OSError, ValueError):
        return False
    return binary.is_file() and os.access(binary, os.X_OK) and info.get("llama_cpp_python") == LLAMA_CPP_PYTHON_VERSION


def _tool(name: str) -> str | None:
    """A build tool from PATH, or from the venv (pip's cmake/ninja wheels) next to Python."""
    return shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))


def _sdist(cache: Path, report: SetupSink) -> Path:
    """The pinned sdist, downloaded with pip once and kept in the cache."""
    src = cache / "src"
    src.mkdir(parents=True, exist_ok=True)
    found = sorted(src.glob(f"llama_cpp_python-{LLAMA_CPP_PYTHON_VERSION}.tar.gz"))
    if found:
        return found[0]
    report(SetupNote("local_src_fetch", {"pkg": LLAMA_CPP_PYTHON, "version": LLAMA_CPP_PYTHON_VERSION}))
    with tempfile.TemporaryDirectory(dir=src) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--disable-pip-version-check", "-q", f"{LLAMA_CPP_PYTHON}=={LLAMA_CPP_PYTHON_VERSION}", "-d", tmp]
        p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        got = sorted(Path(tmp).glob("*.tar.gz"))
        if p.returncode != 0 or not got:
            raise SetupError("local_pip_failed", what=LLAMA_CPP_PYTHON, err=(p.stderr.strip().splitlines() or ["failed"])[-1])
        final = src / got[0].name
        os.replace(got[0], final)
    return final


def _extract(sdist: Path, dest: Path) -> tuple[Path, str | None]:
    """Unpack only vendor/llama.cpp (and read which llama.cpp commit the sdist pins)."""
    commit = None
    with tarfile.open(sdist) as tf:
        members = [m for m in tf.getmembers() if "/vendor/llama.cpp/" in m.name or m.name.endswith("/CHANGELOG.md")]
        tf.extractall(dest, members=members, filter="data")
    root = next(dest.iterdir())
    log = root / "CHANGELOG.md"
    if log.exists():
        m = _CHANGELOG_COMMIT.search(log.read_text(errors="replace"))
        commit = m.group(1) if m else None
    return root / "vendor" / "llama.cpp", commit


def _run_build(cmd: list[str], bar: Progress, log: Path) -> None:
    with open(log, "a") as lf:
        lf.write("$ " + " ".join(cmd) + "\n")
        lf.flush()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                stdin=subprocess.DEVNULL)
        assert proc.stdout is not None
        for line in proc.stdout:
            lf.write(line)
            m = _NINJA_STEP.match(line)
            if m:
                bar.total = int(m.group(2))
                bar.advance(int(m.group(1)) - bar.done)
            elif (m := _MAKE_STEP.match(line)):
                bar.total = 100
                bar.advance(int(m.group(1)) - bar.done)
        if proc.wait() != 0:
            raise SetupError("local_build_failed", log=str(log))


def build_server(cache: Path, *, force: bool = False, jobs: int | None = None, report: SetupSink = ignore) -> Path:
    """The llama-server binary in `cache`, building it first when needed (a few minutes, once);
    `report` gets the notes and the build's progress."""
    out_dir, binary = server_dir(cache), server_binary(cache)
    with Lock(cache / "llama-server" / ".build.lock", parents=True):  # one build at a time on a cache
        if not force and server_ready(cache):
            return binary
        cmake = _tool("cmake")
        if cmake is None:
            raise SetupError("local_no_cmake")
        ninja = _tool("ninja")
        sdist = _sdist(cache, report)
        report(SetupNote("local_build_start", {"pkg": LLAMA_CPP_PYTHON, "version": LLAMA_CPP_PYTHON_VERSION}))
        started = time.monotonic()
        out_dir.mkdir(parents=True, exist_ok=True)
        log = out_dir / "build.log"
        log.write_text("")
        with tempfile.TemporaryDirectory(prefix="llama-build-", dir=out_dir.parent) as tmp:
            source, commit = _extract(sdist, Path(tmp) / "src")
            build = Path(tmp) / "build"
            gen = ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"] if ninja else ["-G", "Unix Makefiles"]
            with Progress("local_build_label", total=100, unit="steps", report=report) as bar:
                _run_build([cmake, "-S", str(source), "-B", str(build), *gen, *CMAKE_FLAGS], bar, log)
                n = str(jobs or os.cpu_count() or 2)
                _run_build([cmake, "--build", str(build), "--target", "llama-server", "-j", n], bar, log)
            built = build / "bin" / "llama-server"
            if not built.is_file():
                raise SetupError("local_build_missing", log=str(log))
            tmp_bin = out_dir / "llama-server.tmp"
            shutil.copy2(built, tmp_bin)
            os.replace(tmp_bin, binary)
        info = {
            "llama_cpp_python": LLAMA_CPP_PYTHON_VERSION, "llama_cpp_commit": commit, "machine": machine_tag(),
            "cmake_flags": CMAKE_FLAGS, "generator": "ninja" if ninja else "make",
            "seconds": round(time.monotonic() - started, 1), "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        (out_dir / "build.json").write_text(json.dumps(info, indent=1))
        report(SetupNote("local_build_done", {"seconds": f"{info['seconds']:.0f}", "path": str(binary)}))
        return binary
