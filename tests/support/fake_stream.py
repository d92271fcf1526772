"""The scripted streaming generator, from :mod:`judge.testing.fake_stream` (the benchmarks'
fault table runs it too)."""

from judge.testing.fake_stream import (
    StreamingGenerator,
    StreamReply,
    serve_streaming_generator,
    tokens,
)

__all__ = ["StreamReply", "StreamingGenerator", "serve_streaming_generator", "tokens"]
