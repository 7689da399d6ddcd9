"""Serving the page with uvicorn: on a socket bound before the URL is printed (port 0: a free one),
until Ctrl-C, which ends it cleanly (uvicorn's own handling would raise the signal again once stopped)."""
from __future__ import annotations

import secrets
import socket
import sys
import webbrowser

import uvicorn

from events.errors import BadInput


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


def start(site_of, host: str | None, port: int, no_open: bool, say) -> None:
    """`plcg serve`: a token, the page `site_of(token)` on `host` (default loopback) and `port` (0: a free
    one), its URL said (and opened in the browser), served until Ctrl-C."""
    token = secrets.token_urlsafe(24)
    site = site_of(token)
    addr = host or "127.0.0.1"
    try:
        sock = bind(addr, port)
    except OSError as e:
        raise BadInput(f"serve: cannot listen on {addr}:{port} ({e.strerror or e})") from None
    bound = sock.getsockname()[1]
    shown_host = f"[{addr}]" if ":" in addr else addr
    url = f"http://{shown_host}:{bound}/?token={token}"
    if host is not None:
        say(f"plcg serve: listening on {addr}, not loopback only: whoever reaches it and has the token"
            " can act on the campaign", err=True)
    try:
        say(url)
        sys.stdout.flush()
        if not no_open:
            webbrowser.open(url)
        site.warm()
        serve(site.app(), sock)
    except KeyboardInterrupt:  # Ctrl-C, even before the server took the signal over: a clean end (exit 0)
        sock.close()
