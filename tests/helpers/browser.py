"""Headless Chromium for the picture tests: a screenshot of a page at 1x, read back as pixels with a
small PNG reader (the standard library's zlib; Chromium writes 8-bit RGB or RGBA, not interlaced), and a
page's height measured by a script the page runs."""
from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from html import unescape

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--hide-scrollbars", "--force-device-scale-factor=1"]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None and os.path.exists("/usr/bin/chromium"):
        path = "/usr/bin/chromium"
    if path is None:
        pytest.fail("headless Chromium is needed for the picture tests and was not found: "
                    "install it (apt-get install -y chromium; .ci/run does this)")
    return path


class Picture:
    def __init__(self, width: int, height: int, rows: list[bytes], channels: int):
        self.width, self.height, self._rows, self._n = width, height, rows, channels

    def pixel(self, x: float, y: float) -> tuple[int, int, int]:
        row = self._rows[int(round(y))]
        i = int(round(x)) * self._n
        return row[i], row[i + 1], row[i + 2]

    def count(self, x0, y0, x1, y1, test) -> int:
        return sum(1 for y in range(int(y0), int(y1)) for x in range(int(x0), int(x1)) if test(self.pixel(x, y)))

    def rows_where(self, x0, y0, x1, y1, test) -> list[int]:
        return [y for y in range(int(y0), int(y1)) if any(test(self.pixel(x, y)) for x in range(int(x0), int(x1)))]

    def last_row_not(self, colour=(255, 255, 255)) -> int:
        for y in range(self.height - 1, -1, -1):
            if any(self._rows[y][i:i + 3] != bytes(colour) for i in range(0, self.width * self._n, self._n)):
                return y
        return -1


def read_png(data: bytes) -> Picture:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    n = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * n
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - n] if i >= n else 0
            b = prev[i]
            c = prev[i - n] if i >= n else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return Picture(width, height, rows, n)


def screenshot(path, out_png, width: int, height: int) -> Picture:
    """Open `path` (an .svg or .html file) at width x height, 1x, and read the screenshot back."""
    profile = os.path.join(os.path.dirname(str(out_png)), "chromium-profile")
    cmd = [chromium(), *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
           f"--screenshot={out_png}", "--virtual-time-budget=2000", f"file://{os.path.abspath(path)}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and os.path.exists(out_png), r.stderr[-2000:]
    with open(out_png, "rb") as fh:
        return read_png(fh.read())


MEASURE = """<script>
window.addEventListener('load', () => {
  const result = (function () { %s })();
  const pre = document.createElement('pre'); pre.id = 'measure';
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
});
</script>"""

PAGE_SIZE = "return {height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth};"


def measure(html: str, tmp_dir, script: str = PAGE_SIZE, width: int = 1280):
    """What `script` (a function body returning JSON-able data) returns once the page has loaded in a
    `width`-pixel window; by default the laid-out page's scrollHeight and scrollWidth."""
    f = os.path.join(str(tmp_dir), "measure.html")
    with open(f, "w", encoding="utf-8") as fh:
        fh.write(html.replace("</body>", MEASURE % script + "</body>", 1))
    profile = os.path.join(str(tmp_dir), "chromium-profile")
    cmd = [chromium(), *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},1000",
           "--virtual-time-budget=2000", "--dump-dom", f"file://{os.path.abspath(f)}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r'<pre id="measure">(.*?)</pre>', r.stdout, re.S)
    assert m, "the page did not run its measuring script"
    return json.loads(unescape(m.group(1)))


def page_size(html: str, tmp_dir, width: int = 1280) -> dict:
    """The laid-out page's height and width at a `width`-pixel window (taken before the script adds
    its own line)."""
    return measure(html, tmp_dir, PAGE_SIZE, width)


def close(colour, want, tolerance: int = 24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour, want))


def hex_rgb(text: str) -> tuple[int, int, int]:
    text = text.lstrip("#")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)
