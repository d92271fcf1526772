"""Find, assemble and verify a registry model's GGUF file.

A single-file model is used where its package installed it. A multi-part model is assembled
once into ``state_dir/models`` by streaming the parts into a temporary file while hashing
them, then renamed into place. A file is trusted only if its sha256 matches the registry; the
result of hashing is remembered by path, size, inode and mtime, so the 1.1 GB default model is
hashed once, not on every run.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Protocol

from judge.config import Settings
from judge.errors import LocalServerError
from judge.state import FILE_MODE, private_dir, private_file

from .files import file_lock, read_json, write_json_atomic
from .registry import Assembly, LocalModel, WeightSource

Progress = Callable[[str], None]


class _Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...


_CHUNK = 8 * 1024 * 1024
_LOCK_TIMEOUT_S = 900.0  # assembling 1.1 GB on a slow disk takes well under this
_VERIFIED_FILE = "verified.json"
_QUIET_BELOW = 256 * 1024 * 1024  # smaller files take under a second: no percentages


def models_dir(settings: Settings) -> Path:
    return settings.state_dir / "models"


def ensure_weights(settings: Settings, model: LocalModel, progress: Progress | None = None) -> Path:
    """Return the path of ``model``'s verified GGUF file, assembling it first if needed."""
    say = progress or _silent
    parts = locate_parts(model.source)
    directory = models_dir(settings)
    with file_lock(directory / ".lock", _LOCK_TIMEOUT_S, "the model weights"):
        verified = _VerifiedFiles(directory / _VERIFIED_FILE)
        if model.source.assembly is Assembly.SINGLE_FILE:
            path = parts[0]
            if not verified.matches(path, model):
                _check_size(path, model, model.source.install_hint)
                say(f"verifying {path.name} ({model.size_bytes / 1e6:.0f} MB)")
                digest = _hash_file(path, model.size_bytes, say)
                if digest != model.sha256:
                    raise _mismatch(path, model, digest)
                verified.record(path, model)
            return path

        target = directory / model.file_name
        if target.exists():
            private_file(target)  # assembled before the file was made owner-only
            if verified.matches(target, model):
                return target
            if target.stat().st_size == model.size_bytes:
                say(f"verifying {target.name} ({model.size_bytes / 1e6:.0f} MB)")
                if _hash_file(target, model.size_bytes, say) == model.sha256:
                    verified.record(target, model)
                    return target
            say(f"{target.name} does not match the registry; assembling it again")
            target.unlink()
        _assemble(parts, target, model, say)
        verified.record(target, model)
        return target


def locate_parts(source: WeightSource) -> list[Path]:
    """Paths of the installed part files, in assembly order; a clear error names what is missing."""
    missing: list[str] = []
    paths: list[Path] = []
    for part in source.parts:
        try:
            dist = importlib.metadata.distribution(part.distribution)
        except importlib.metadata.PackageNotFoundError:
            missing.append(part.distribution)
            continue
        path = Path(str(dist.locate_file(part.path)))
        if not path.is_file():
            raise LocalServerError(
                f"package {part.distribution} is installed but its file {path} is missing; "
                f"reinstall it: {source.install_hint}"
            )
        paths.append(path)
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        listed = ", ".join(missing[:3]) + more
        raise LocalServerError(
            f"the local judge model's weights are not installed (missing {listed}); "
            f"install them with: {source.install_hint}"
        )
    return paths


def _assemble(parts: list[Path], target: Path, model: LocalModel, say: Progress) -> None:
    private_dir(target.parent)
    free = shutil.disk_usage(target.parent).free
    if free < model.size_bytes + 64 * 1024 * 1024:
        raise LocalServerError(
            f"not enough disk space in {target.parent} to assemble {model.file_name}: "
            f"{model.size_bytes / 1e6:.0f} MB needed, {free / 1e6:.0f} MB free"
        )
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    say(f"assembling {model.file_name} from {len(parts)} packages into {target.parent}")
    digest = hashlib.sha256()
    meter = _Meter(model.size_bytes, f"assembling {model.file_name}", say)
    try:
        # Owner-only like everything in the state directory, whatever the umask.
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "wb") as out:
            private_file(partial)  # an older partial file of this pid keeps its mode
            for part in parts:
                with part.open("rb") as src:
                    _copy(src, out, digest, meter)
            out.flush()
            os.fsync(out.fileno())  # the verification record must never outlive lost bytes
        size = partial.stat().st_size
        if size != model.size_bytes or digest.hexdigest() != model.sha256:
            raise LocalServerError(
                f"assembled {model.file_name} does not match the registry "
                f"(size {size}, expected {model.size_bytes}; sha256 {digest.hexdigest()}, "
                f"expected {model.sha256}); the installed packages differ from the ones this "
                f"registry was written for: reinstall them with: {model.source.install_hint}"
            )
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    say(f"assembled and verified {target}")


def _copy(src: BinaryIO, out: BinaryIO | None, digest: _Digest, meter: _Meter) -> None:
    while chunk := src.read(_CHUNK):
        digest.update(chunk)
        if out is not None:
            out.write(chunk)
        meter.advance(len(chunk))


def _hash_file(path: Path, size: int, say: Progress) -> str:
    digest = hashlib.sha256()
    meter = _Meter(size, f"verifying {path.name}", say)
    with path.open("rb") as src:
        _copy(src, None, digest, meter)
    return digest.hexdigest()


def _check_size(path: Path, model: LocalModel, hint: str) -> None:
    size = path.stat().st_size
    if size != model.size_bytes:
        raise LocalServerError(
            f"{path} has {size} bytes, the registry expects {model.size_bytes} for {model.name}; "
            f"reinstall it: {hint}"
        )


def _mismatch(path: Path, model: LocalModel, digest: str) -> LocalServerError:
    return LocalServerError(
        f"sha256 mismatch for {model.name}: {path} hashes to {digest}, the registry expects "
        f"{model.sha256}; refusing to serve unverified weights; reinstall the package: "
        f"{model.source.install_hint}"
    )


def _silent(_: str) -> None:
    return None


class _Meter:
    """Reports progress in steps of 10 %, so a log gets ten lines, not thousands."""

    def __init__(self, total: int, label: str, say: Progress) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.label = label
        self.say = say
        self.next_step = 10

    def advance(self, n: int) -> None:
        self.done += n
        pct = self.done * 100 // self.total
        if pct >= self.next_step and self.total >= _QUIET_BELOW:
            self.say(f"{self.label}: {min(pct, 100)}% ({self.done / 1e6:.0f} MB)")
            self.next_step = (pct // 10 + 1) * 10


class _VerifiedFiles:
    """Hash results by path, invalidated by any change of size, inode or mtime."""

    def __init__(self, path: Path) -> None:
        self.path = path
        data = read_json(path)
        self.entries: dict[str, dict[str, object]] = data if isinstance(data, dict) else {}

    def matches(self, file: Path, model: LocalModel) -> bool:
        entry = self.entries.get(str(file))
        if entry is None:
            return False
        try:
            st = file.stat()
        except OSError:
            return False
        return entry == self._entry(st, model) and st.st_size == model.size_bytes

    def record(self, file: Path, model: LocalModel) -> None:
        self.entries[str(file)] = self._entry(file.stat(), model)
        write_json_atomic(self.path, self.entries)

    @staticmethod
    def _entry(st: os.stat_result, model: LocalModel) -> dict[str, object]:
        return {
            "size": st.st_size,
            "inode": st.st_ino,
            "mtime_ns": st.st_mtime_ns,
            "sha256": model.sha256,
        }
