"""Tables of text that fit a width: the terminal's, or ``PLAIN_WIDTH`` when the reader is not a
terminal.  The columns that are short by nature keep their width and the long ones are cut to the
room left, with an ellipsis."""
from __future__ import annotations

import shutil
import sys

PLAIN_WIDTH = 100         # the width of a table whose reader is not a terminal
ELLIPSIS = "…"


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """'1 box', '3 boxes': a count with its noun in the right number."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def output_width(stream=None) -> int:
    """The terminal's width when ``stream`` (default stdout) is one, else PLAIN_WIDTH."""
    stream = sys.stdout if stream is None else stream
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    return shutil.get_terminal_size((PLAIN_WIDTH, 24)).columns if terminal else PLAIN_WIDTH


def cut(text: str, width: int, middle: bool = False) -> str:
    """text, or width - 1 of its characters and an ellipsis: its beginning, or (``middle``) its
    beginning and its end, where a claim often says which case it is."""
    if len(text) <= width:
        return text
    if not middle or width < 12:
        return text[:max(width - 1, 0)] + ELLIPSIS
    tail = (width - 1) * 2 // 5
    return text[:width - 1 - tail].rstrip() + ELLIPSIS + text[len(text) - tail:]


def table(header: tuple, rows: list[tuple], width: int, flexible: tuple[int, ...],
          middle: tuple[int, ...] = ()) -> list[str]:
    """Rows under a header and a rule, columns two spaces apart, at most ``width`` characters a
    line: the columns numbered in ``flexible`` share what the others leave (the widest first
    given up), each cut with an ellipsis (in the middle for the columns in ``middle``)."""
    cells = [tuple(str(x) for x in row) for row in [header, *rows]]
    widths = [max(len(row[k]) for row in cells) for k in range(len(header))]
    room = width - 2 * (len(header) - 1) - sum(w for k, w in enumerate(widths) if k not in flexible)
    # shrink the widest flexible column until they fit, none below its header
    while sum(widths[k] for k in flexible) > max(room, 0):
        widest = max(flexible, key=lambda k: widths[k])
        if widths[widest] <= len(header[widest]):
            break
        widths[widest] -= 1
    lines = []
    for number, row in enumerate(cells):
        lines.append("  ".join(cut(x, w, k in middle).ljust(w)
                               for k, (x, w) in enumerate(zip(row, widths))).rstrip())
        if number == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines
