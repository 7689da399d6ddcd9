"""A small reader of the project's Markdown for the doc tests: sections by heading, tables as rows of
cells keyed by their header, links and images by target, commands named in code spans. The tests
compare these values, so a check fails for the thing it checks, never because a phrase moved."""
from __future__ import annotations

import re

_RULE = re.compile(r"\|(\s*:?-+:?\s*\|)+")


def headings(text: str, level: int = 2) -> list[str]:
    """The headings of `level` (## is 2), in order."""
    return re.findall(rf"^{'#' * level} (.+)$", text, re.M)


def section(text: str, head: str, level: int = 2) -> str:
    """The body of the section `head` of `level`, up to the next heading of that level or above."""
    lines, out, inside = text.splitlines(), [], False
    for line in lines:
        m = re.match(r"^(#+) (.+)$", line)
        if m and len(m[1]) <= level:
            if inside:
                break
            inside = len(m[1]) == level and m[2] == head
            continue
        if inside:
            out.append(line)
    if not inside:
        raise KeyError(head)
    return "\n".join(out)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]  # a `\|` inside a cell kept


def tables(text: str) -> list[list[dict[str, str]]]:
    """Every table in `text`: its body rows, each a dict of header -> cell."""
    out, lines = [], text.splitlines()
    for i in range(len(lines) - 1):
        if lines[i].startswith("|") and _RULE.fullmatch(lines[i + 1]) and (i == 0 or not lines[i - 1].startswith("|")):
            head, rows = _cells(lines[i]), []
            for line in lines[i + 2:]:
                if not line.startswith("|"):
                    break
                rows.append(dict(zip(head, _cells(line))))
            out.append(rows)
    return out


def links(text: str) -> list[str]:
    """The targets of the links `[text](target)` in `text`, in order (images not included)."""
    return re.findall(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)", text)


def images(text: str) -> list[str]:
    """The targets of the images `![alt](target)` in `text`, in order."""
    return re.findall(r"!\[[^\]\n]*\]\(([^)\s]+)\)", text)


def code_lines(text: str) -> list[str]:
    """The lines of the indented (4 spaces) and fenced code blocks of `text`, stripped."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            out.append(line.strip())
    return out


def code_spans(text: str) -> list[str]:
    """The inline code spans of `text`, in order."""
    return re.findall(r"`([^`\n]+)`", text)


def named(text: str) -> set[str]:
    """The commands a text names in code spans: `plcg NAME ...` gives NAME (`plcg --db X NAME` too)."""
    out = set()
    for span in code_spans(text):
        words = span.split()
        if words and words[0] == "plcg":
            words = words[1:]
            while words and words[0].startswith("--"):  # global options before the command
                words = words[2:] if words[0] in ("--db", "--key") else words[1:]
            if words:
                out.add(words[0])
    return out
