"""`plcg serve`'s page for the browser tests: the app `plcg serve` builds (cli.py's catalogue, its
in-process run, status --json), served by uvicorn in a thread on a free loopback port."""
from __future__ import annotations

import threading
import time

import httpx
import uvicorn

import cli
from projections.web import server


class Served:
    def __init__(self, path: str, key_path: str | None = None):
        key = None
        if key_path:
            from cg.app.keys import load_private

            key = load_private(key_path)
        self.site = cli.web_site(str(path), key_path, key)
        self.token = self.site.token
        sock = server.bind("127.0.0.1", 0)
        self.port = sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(self.site.app(), log_level="warning", access_log=False,
                                                    lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        for _ in range(3000):  # up to a minute: a loaded machine starts it late, not never
            if self.server.started:
                break
            assert self.thread.is_alive(), "the page's server stopped before it started"
            time.sleep(0.02)
        else:
            raise AssertionError("the page's server did not start")

    def url(self, **q) -> str:
        return self.base + self.site.url(**q)

    def get(self, path: str, **params) -> httpx.Response:
        return httpx.get(self.base + path, params={"token": self.token, **params}, timeout=30)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
