"""The suite's own guards hold: state is private to each test and the network is loopback only."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from judge.config import load_settings


def test_each_test_has_its_own_state_directory(isolated_state: Path) -> None:
    assert os.environ["JUDGE_STATE_DIR"] == str(isolated_state)
    assert load_settings().state_dir == isolated_state
    assert not any(n.startswith("JUDGE_") and n != "JUDGE_STATE_DIR" for n in os.environ)


def test_connections_are_guarded_to_loopback() -> None:
    # pytest-socket replaces connect(); the allowed hosts come from pyproject.toml's addopts.
    assert socket.socket.connect.__name__ == "guarded_connect"
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname(), timeout=5):
            pass
