"""Serving the page with uvicorn: on a socket bound before the URL is printed (port 0: a free one),
until Ctrl-C, which ends it cleanly (uvicorn's own handling would raise the signal again once stopped)."""
from __future__ import annotations

import socket

import uvicorn


class _Server(uvicorn.Server):
    def handle_exit(self, sig, frame) -> None:  # Ctrl-C or SIGTERM: stop serving, and say nothing more
        if self.should_exit:
            self.force_exit = True
        self.should_exit = True


def bind(host: str, port: int) -> socket.socket:
    """The listening socket (OSError when the address cannot be had)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def serve(app, sock: socket.socket) -> None:
    """Serve `app` on `sock` until Ctrl-C (or a server's `should_exit`)."""
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = _Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C before uvicorn took the signal over: it ends as cleanly
        pass
    finally:
        sock.close()
