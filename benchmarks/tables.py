"""The benchmarks' plain-text table: a header, a rule, the rows, each column as wide as its widest cell."""


def print_table(header, rows, numbers_right: bool = False) -> None:
    """``numbers_right``: every column but the first (the names) aligned on the right, as numbers are."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    for line in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(x).rjust(w) if numbers_right and k else str(x).ljust(w)
                        for k, (x, w) in enumerate(zip(line, widths))).rstrip())
