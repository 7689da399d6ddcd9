"""Text as plcg prints it: control characters escaped (issue 25 item 12)."""
from __future__ import annotations

import re

SHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # C0, DEL, C1, and the two Unicode line breaks


def shown(text: str) -> str:
    """Text as printed: control characters escaped (\\x1b, \\n), so that text from the other copy,
    a bundle or a file forges no line and sends no escape code to the terminal (issue 25 item 12)."""
    return SHOWN.sub(lambda m: m.group().encode("unicode_escape").decode(), text)
