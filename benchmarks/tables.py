"""The benchmarks' plain-text table: a header, a rule, the rows, each column as wide as its widest cell."""


def print_table(header, rows) -> None:
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    for line in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip())
