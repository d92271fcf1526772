"""The HTTP server under the service: uvicorn with bounded header reads and redacted logs.

uvicorn bounds the idle time between requests (``timeout_keep_alive``) and the size of
incomplete headers (``h11_max_incomplete_event_size``), but not the time a client may take to
send its request headers: a client that opens a connection and sends a byte now and then holds
it for ever. :class:`HeaderDeadlineProtocol` closes a connection whose request headers are not
complete within ``header_timeout_s`` of the connection (or of the first byte of a later
request on a kept-alive connection), with a 408. The body's deadline is the guard's
(:mod:`judge.service.guard`).

On SIGTERM (or Ctrl-C) :class:`DrainingServer` tells the app at once, so that it stops its
open streams within its grace; uvicorn itself cancels whatever still runs a margin later.

Access-log lines carry the path without its query string: a URL can carry a secret, and the
service refuses credentials there but must not write them down first.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from types import FrameType
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
MAX_HEADER_BYTES = 16 * 1024
SHUTDOWN_GRACE_S = 10.0  # open streams may go on this long after SIGTERM (the app's option)
SHUTDOWN_MARGIN_S = 5.0  # then they are stopped; past this more, uvicorn cancels what is left

log = logging.getLogger("judge.service.transport")

_TIMEOUT_BODY = b'{"detail": "request headers not received in time"}'
_TIMEOUT_REPLY = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
    b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(_TIMEOUT_BODY), _TIMEOUT_BODY)
)


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's headers."""

    header_timeout_s: float = HEADER_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._cycle_at_arm: object = None
        self._between_requests = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def data_received(self, data: bytes) -> None:
        # Between requests the idle time is uvicorn's keep-alive bound; the next request's
        # header deadline runs from its first byte.
        if self._between_requests:
            self._between_requests = False
            self._arm_header_deadline()
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_deadline()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self._header_timer is not None and self.cycle is not self._cycle_at_arm:
            self._cancel_header_deadline()  # a new request's headers were parsed

    def on_response_complete(self) -> None:
        # Armed before the base class handles pipelined requests, which may parse the next
        # request's headers at once (and so cancel this deadline in handle_events).
        pipelined = bool(self.conn.trailing_data[0])
        if pipelined and not self.transport.is_closing():
            self._arm_header_deadline()
        else:
            self._between_requests = True
        super().on_response_complete()

    def _arm_header_deadline(self) -> None:
        self._cancel_header_deadline()
        self._cycle_at_arm = self.cycle
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_overdue)

    def _cancel_header_deadline(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_overdue(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            # Nothing of this request was answered yet: say why before closing.
            self.transport.write(_TIMEOUT_REPLY)
        log.info("closed a connection whose request headers took over %g s", self.header_timeout_s)
        self.transport.close()


def header_deadline_protocol(timeout_s: float) -> type[HeaderDeadlineProtocol]:
    """:class:`HeaderDeadlineProtocol` with its deadline set (uvicorn builds the protocol)."""
    return type(
        "HeaderDeadlineProtocol", (HeaderDeadlineProtocol,), {"header_timeout_s": timeout_s}
    )


class DrainingServer(uvicorn.Server):
    """uvicorn's server that tells the app when a signal asks it to stop (``on_exit``), before
    uvicorn starts waiting for the open connections: the app then winds its streams down
    within its grace, instead of uvicorn waiting for them without end."""

    def __init__(self, config: uvicorn.Config, *, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_exit = on_exit

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        self.on_exit()


class RedactQuery(logging.Filter):
    """Drops the query string from uvicorn's access-log lines (args: client, method, path,
    HTTP version, status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            path, mark, _ = args[2].partition("?")
            if mark:
                record.args = (*args[:2], f"{path}?[redacted]", *args[3:])
        return True


def server_config(
    app: Any,
    *,
    host: str,
    port: int,
    header_timeout_s: float = HEADER_TIMEOUT_S,
    shutdown_grace_s: float = SHUTDOWN_GRACE_S,
) -> uvicorn.Config:
    """The uvicorn configuration of ``judge serve``; installs the access-log redaction. On
    SIGTERM uvicorn cancels what still runs ``SHUTDOWN_MARGIN_S`` after the app's grace."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="info",
        http=header_deadline_protocol(header_timeout_s),
        timeout_keep_alive=KEEP_ALIVE_S,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        timeout_graceful_shutdown=math.ceil(shutdown_grace_s + SHUTDOWN_MARGIN_S),
    )
    # uvicorn configures logging when the config is built: the filter goes on after that.
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactQuery) for f in access.filters):
        access.addFilter(RedactQuery())
    return config
