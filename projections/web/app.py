"""`plcg serve`: the campaign as a local web page (issue 34; cli-contract.md, fourth round).

An ASGI app (Starlette) that renders the read models the CLI prints, as of any seq of the log, and runs
a command from a form by the `run(argv)` the CLI hands it: the real command, in process, with its exit
code and its words. Every request carries the serve's token (403 without it); a write is a POST whose
Origin, when the browser sends one, is the page's own; all text is escaped by Jinja2's autoescape;
static files come from this package's `static/` folder only.
"""
from __future__ import annotations

import os
import secrets
import shlex
import threading
from collections import OrderedDict
from urllib.parse import parse_qs, quote_plus, urlencode

from jinja2 import Environment, PackageLoader
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from cg.app.history import History
from cg.specs import POSITIONAL, Choose, Item
from events.errors import PlcgError
from projections.maps import map_svg
from projections.roster import TYPE
from projections.web import forms, view

STATIC = os.path.join(os.path.dirname(__file__), "static")
MOVED_ON = ("the campaign moved on: another writer appended first, so nothing of this command was written;"
            " the page now shows the campaign as it stands (exit 4)")
_SAID = {2: "bad input: nothing written", 3: "refused: nothing written, no die rolled", 5: "internal error"}
HEADERS = {
    # no script but the package's own files, no frame, the token never sent on in a Referer
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
                               "frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}
DIR = Choose("DIR")  # the folder of bundles, the player's to name


class Site:
    """One campaign file served: its history (the checkpoints), the pages it rendered, its token."""

    def __init__(self, path: str, *, catalogue: dict, run, status_of, token: str | None = None, key=None,
                 pages: int = 8):
        self.path = path
        self.catalogue = catalogue
        self.run = run  # run(argv) -> (exit code, words): the CLI's own command, in process
        self.status_of = status_of  # the CLI's `status --json` of a state
        self.token = token or secrets.token_urlsafe(24)
        self._token_q = quote_plus(self.token)
        self.key = key
        self.history = History(path, key=key)
        self._pages: OrderedDict = OrderedDict()  # (seq, head seq, head hash) -> the page's parts
        self._svgs: OrderedDict = OrderedDict()  # what a map is drawn from -> its SVG (view.svg_key)
        self._keep = pages
        self._lock = threading.Lock()
        self.env = Environment(loader=PackageLoader("projections.web", "templates"), autoescape=True,
                               trim_blocks=True, lstrip_blocks=True)
        self.static = frozenset(os.listdir(STATIC))
        self._sync_where: dict = {}  # the folder or git clone the last `sync` from the page named

    def warm(self) -> threading.Thread:
        """Lay the history's checkpoints in the background (the slider's first moves then fold little)."""
        t = threading.Thread(target=self._warm, name="plcg-history", daemon=True)
        t.start()
        return t

    def _warm(self) -> None:
        try:
            self.history.warm()
        except PlcgError:  # a file the page cannot read says so on its first request
            pass

    # ---- reading ----
    def _head(self) -> tuple[int, str]:
        led = self.history.ledger()
        try:
            return led.store.head()
        finally:
            led.close()

    def state(self, at: int | None):
        return self.history.state(at)

    def parts(self, at: int | None, everything: bool = False) -> dict:
        head = self._head()
        seq = head[0] if at is None else at
        k = (seq, *head, everything)
        with self._lock:
            got = self._pages.get(k)
            if got is not None:
                self._pages.move_to_end(k)
                return got
        st = self.state(at)
        led = self.history.ledger()
        try:
            got = view.page(st, led, self.status_of, self.catalogue, self.key, svg=self._svg, everything=everything)
        finally:
            led.close()
        got["head"] = head[0]
        with self._lock:
            self._pages[k] = got
            while len(self._pages) > self._keep:
                self._pages.popitem(last=False)
        return got

    def _svg(self, st) -> str:
        """The map's SVG, drawn again only where what it shows changed (most slider moves keep it)."""
        st.load_all()
        k = view.svg_key(st)
        with self._lock:
            got = self._svgs.get(k)
            if got is not None:
                self._svgs.move_to_end(k)
                return got
        got = map_svg(st)
        with self._lock:
            self._svgs[k] = got
            while len(self._svgs) > 32:
                self._svgs.popitem(last=False)
        return got

    def api_state(self, at: int | None) -> dict:
        return view.api_state(self.state(at), self.status_of)

    def html(self, at: int | None, message: dict | None = None, frm: int | None = None,
             everything: bool = False) -> str:
        try:
            parts = self.parts(at, everything)
        except PlcgError as e:  # an `at` outside the log: the head, and why
            parts, message = self.parts(None), {"exit": e.exit_code, "words": f"plcg: {e}", "said": _SAID[2]}
        changed = None
        if frm is not None:
            try:
                changed = view.diff(self.state(frm), self.state(parts["status"]["seq"]), self.status_of)
            except PlcgError as e:
                message = {"exit": e.exit_code, "words": f"plcg: {e}", "said": _SAID[2]}
        at_shown = parts["status"]["seq"]
        return self.env.get_template("page.html").render(
            p=parts, at=at_shown, head=parts["head"], past=at_shown < parts["head"], types=TYPE, message=message, diff=changed, frm=frm, token=self.token,
            everything=everything, url=self.url, static=lambda name: f"/static/{name}?{urlencode({'token': self.token})}",
            sync=self._sync_forms(parts))

    def url(self, **q) -> str:
        """The page's URL with the token (a log line's link: one each, so built without urlencode)."""
        out = "/?token=" + self._token_q
        for k, v in q.items():
            if v is not None:
                out += f"&{k}={v}" if isinstance(v, int) else "&" + urlencode({k: v})
        return out

    def _sync_forms(self, parts) -> list:
        """Play by email served with a key: `sync` and `sync --send`, forms of the sync command."""
        if self.key is None or parts["status"].get("pbem") is None or "sync" not in self.catalogue:
            return []
        out = []
        for item in (Item.of("sync", "play by email", "take in the other player's bundles (plcg sync)", folder=DIR),
                     Item.of("sync", "play by email", "send this copy's moves (plcg sync --send)", folder=DIR,
                             send=True)):
            f = forms.form(item, self.catalogue, parts["choices"])
            f.update(other=False, runnable=True)
            for x in f["fields"] + f["more"]:  # where the bundles were last time
                x["value"] = self._sync_where.get(x["field"], x["value"])
            out.append(f)
        return out

    # ---- writing ----
    def run_argv(self, argv: list[str]) -> dict:
        code, words = self.run(argv)
        said = MOVED_ON if code == 4 else _SAID.get(code, "")
        return {"exit": code, "words": words.rstrip("\n"), "said": said, "argv": argv,
                "line": shlex.join(["plcg", *argv])}

    # ---- the ASGI app ----
    def app(self):
        return _Guard(Starlette(routes=[
            Route("/", self._page, methods=["GET"]),
            Route("/run", self._run_form, methods=["POST"]),
            Route("/api/state", self._api_state, methods=["GET"]),
            Route("/api/run", self._api_run, methods=["POST"]),
            Route("/static/{name}", self._static, methods=["GET"]),
        ]), self.token)

    async def _page(self, request: Request) -> Response:
        at, frm = _seq(request, "at"), _seq(request, "from")
        if at is False or frm is False:
            return PlainTextResponse("at/from: a seq of the log, a whole number", status_code=400)
        everything = request.query_params.get("all") == "1"
        body = await run_in_threadpool(self.html, at, None, frm, everything)
        return HTMLResponse(body)

    async def _api_state(self, request: Request) -> Response:
        at = _seq(request, "at")
        if at is False:
            return JSONResponse({"error": "at: a seq of the log, a whole number"}, status_code=400)
        try:
            d = await run_in_threadpool(self.api_state, at)
        except PlcgError as e:
            return JSONResponse({"exit": e.exit_code, "error": str(e)}, status_code=400)
        return JSONResponse(d)

    async def _run_form(self, request: Request) -> Response:
        # the page's forms are url-encoded (the browser's default, and htmx's): read here, no multipart
        if not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            return PlainTextResponse("a form, url-encoded", status_code=415)
        try:
            data = parse_qs((await request.body()).decode(), keep_blank_values=True)
        except UnicodeDecodeError:
            return PlainTextResponse("a form, in UTF-8", status_code=400)
        name = (data.pop("command", None) or [""])[-1]
        if name not in self.catalogue:
            return PlainTextResponse(f"no command {name!r}", status_code=400)
        argv = forms.argv_of_form(name, data, self.catalogue)
        message = await run_in_threadpool(self.run_argv, argv)
        if name == "sync" and message["exit"] == 0:
            self._sync_where = {k: v[-1] for k, v in data.items() if k in ("o:folder", "o:git") and v and v[-1]}
        body = await run_in_threadpool(self.html, None, message, None)
        return HTMLResponse(body, headers={"HX-Push-Url": self.url()})

    async def _api_run(self, request: Request) -> Response:
        try:
            d = await request.json()
        except ValueError:
            return JSONResponse({"exit": 2, "words": "plcg: the body is not JSON"}, status_code=400)
        name = d.get("command") if isinstance(d, dict) else None
        args = (d.get("args") or {"name": name}) if isinstance(d, dict) else None
        if name not in self.catalogue or not isinstance(args, dict):
            return JSONResponse({"exit": 2, "words": f"plcg: no command {name!r}"}, status_code=400)
        try:
            argv = forms.argv_of_args(name, args, self.catalogue, POSITIONAL)
        except ValueError as e:
            return JSONResponse({"exit": 2, "words": f"plcg: {e}"})
        m = await run_in_threadpool(self.run_argv, argv)
        return JSONResponse({"exit": m["exit"], "words": m["words"]})

    async def _static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self.static:  # the package's own files, by their names: no path reaches further
            return PlainTextResponse("not found", status_code=404)
        return FileResponse(os.path.join(STATIC, name))


def _seq(request: Request, name: str):
    v = request.query_params.get(name)
    if v in (None, ""):
        return None
    try:
        return int(v)
    except ValueError:
        return False


class _Guard:
    """Every request needs the token (query `token` or header X-PLCG-Token): 403 without it. A POST from a
    browser must come from the page itself: an Origin other than the page's, or a cross-site fetch, is 403."""

    def __init__(self, app, token: str):
        self.app, self.token = app, token.encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        req = Request(scope)
        given = (req.query_params.get("token") or req.headers.get("x-plcg-token") or "").encode()
        if not secrets.compare_digest(given, self.token):
            return await _refuse("403: this page needs the token plcg serve printed (?token=...)")(scope, receive, send)
        if scope["method"] == "POST":
            origin = req.headers.get("origin")
            own = f"{scope.get('scheme', 'http')}://{req.headers.get('host', '')}"
            if (origin is not None and origin != own) or req.headers.get("sec-fetch-site") == "cross-site":
                return await _refuse("403: a write from another site's page is refused")(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [(k.lower().encode(), v.encode())
                                                                 for k, v in HEADERS.items()]
            await send(message)

        return await self.app(scope, receive, send_with_headers)


def _refuse(text: str) -> Response:
    return PlainTextResponse(text, status_code=403, headers=HEADERS)
