"""Text as plcg prints it: control characters escaped (issue 25 item 12)."""
from __future__ import annotations

import re

SHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # C0, DEL, C1, and the two Unicode line breaks


def shown(text: str) -> str:
    """Text as printed: control characters escaped (\\x1b, \\n), so that text from the other copy,
    a bundle or a file forges no line and sends no escape code to the terminal (issue 25 item 12)."""
    return SHOWN.sub(lambda m: m.group().encode("unicode_escape").decode(), text)


CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # what the command line refuses in a command's text


def typed_text(v) -> bool:
    """Whether a command value holds a control character (what the command line refuses)."""
    if isinstance(v, str):
        return CONTROL.search(v) is not None
    if isinstance(v, list):
        return any(typed_text(x) for x in v)
    if isinstance(v, dict):
        return any(typed_text(k) or typed_text(x) for k, x in v.items())
    return False
