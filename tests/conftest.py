"""Shared test setup: every test gets its own state directory and none of the caller's judge
settings, and connections go to loopback only (pytest-socket, configured in pyproject.toml)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh ``JUDGE_STATE_DIR`` (cache, audit log, local server state) and no ``JUDGE_*``
    variable from the environment the suite was started in."""
    with pytest.MonkeyPatch.context() as patch:
        for name in [n for n in os.environ if n.startswith("JUDGE_")]:
            patch.delenv(name)
        state = tmp_path_factory.mktemp("state")
        patch.setenv("JUDGE_STATE_DIR", str(state))
        yield state
