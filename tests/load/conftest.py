import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "load: loopback load and fault tests of the service (small, run by default)"
    )
