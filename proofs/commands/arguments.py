"""What every command-line entry point shares: the usage error, the parser that raises it, the
argument types and the exit codes.  It sits below ``proofs.commands.cli`` and every subcommand module, so
that the dependencies run one way."""
from __future__ import annotations

import argparse
import os
import sys

from symbolic.errors import CheckerError
from symbolic.kernel.verdict import Status

EXIT_CODES = {Status.PROVED: 0, Status.REFUTED: 1, Status.UNDECIDED: 3}
EXIT_USAGE = 2
EXIT_INTERNAL_ERROR = 4       # a bug of the checker: never a verdict's code
EXIT_CLOSED_PIPE = 141        # the output's reader went away (| head): 128 + SIGPIPE, as any Unix tool
EXIT_INTERRUPTED = 130        # Ctrl-C: 128 + SIGINT, as any Unix tool

MAX_SECONDS = 10 ** 6         # a time budget beyond this (11 days) is a typo, not a budget


CONSOLE_SCRIPT = "sharpcheck"      # the command pip installs beside python -m proofs


def program() -> str:
    """How the command line was called: 'sharpcheck' (the console script) or 'python -m proofs'."""
    return CONSOLE_SCRIPT if os.path.basename(sys.argv[0] or "") == CONSOLE_SCRIPT else "python -m proofs"


def program_name() -> str:
    """The name its messages start with: 'sharpcheck: error: …' or 'proofs: error: …'."""
    return CONSOLE_SCRIPT if program() == CONSOLE_SCRIPT else "proofs"


class UsageError(CheckerError):
    """Bad arguments or bad input: reported in one line, exit code 2."""


def default_jobs() -> int:
    """The number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def names(text: str) -> list[str]:
    """A list option's value 'a,b' as ['a', 'b']; an empty value names nothing and is refused."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"expected one or more names separated by commas, got {text!r}")
    return items


class Accumulate(argparse.Action):
    """A list option: each use adds its items to those of the uses before it, so that
    ``--positive a --positive b`` is ``--positive a,b`` (argparse's own store keeps the last use only)."""

    def __call__(self, parser, namespace, values, option_string=None):
        so_far = list(getattr(namespace, self.dest, None) or [])     # never the default list itself
        setattr(namespace, self.dest, so_far + list(values))


class Once(argparse.Action):
    """A single-valued option (a seed, a size, a file): the same value given twice is that value;
    two different values are refused, since which one was meant is not for the parser to guess."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = parser.given_once
        if option_string is not None and self.dest in given and given[self.dest] != values:
            raise UsageError(f"{option_string} is given twice with different values, "
                             f"{_shown(given[self.dest])} and {_shown(values)}: give it once")
        if option_string is not None:
            given[self.dest] = values
        setattr(namespace, self.dest, values)


def _shown(value) -> str:
    """A parsed value as the user would type it: 1/10, layerwise, a whole number of seconds as 5."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are UsageErrors (one line, exit 2), never SystemExit.

    An argument that starts with a single '-' and is no option of the parser (``-relu(-x)``,
    ``-1/3``) is read as a value, an expression or a negative number: no ``--`` is needed.
    An option that stores one value stores it ``Once``: repeated with another value, it is refused
    rather than silently keeping the last; a list option is declared ``Accumulate``."""

    def __init__(self, *args, **kwargs):
        # the usage names the command as it was called (sharpcheck check …, python -m proofs check …)
        if str(kwargs.get("prog", "")).startswith("python -m proofs"):
            kwargs["prog"] = program() + kwargs["prog"][len("python -m proofs"):]
        if str(kwargs.get("usage", "")).startswith("python -m proofs"):
            kwargs["usage"] = kwargs["usage"].replace("python -m proofs", program())
        super().__init__(*args, **kwargs)
        # every option stored without an explicit action is single-valued
        self.register("action", None, Once)
        self.register("action", "store", Once)
        self.given_once: dict = {}

    def parse_known_args(self, args=None, namespace=None):
        # the values given so far belong to one parse of one command line
        self.given_once = {}
        return super().parse_known_args(args, namespace)

    def error(self, message):
        raise UsageError(message)

    def _parse_optional(self, arg_string):
        if arg_string.startswith("-") and not arg_string.startswith("--") and \
                arg_string not in self._option_string_actions:
            return None    # a value, not an option
        return super()._parse_optional(arg_string)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def size_triple(text: str) -> tuple[int, int, int]:
    parts = text.split(",")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"--size takes D,H,N (three whole numbers), got {text!r}")
    return tuple(positive_int(p.strip()) for p in parts)


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"the timeout must be a positive number, got {text!r}")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"the timeout must be at most {MAX_SECONDS} seconds, "
                                         f"got {text!r}")
    return value


def show_report(report, args) -> int:
    """Print a report (``--json`` or its table), write its LaTeX derivation (``--latex FILE``), and
    give the exit code of its overall status."""
    print(report.to_json() if args.json else report.table())
    write_latex(report, args.latex)
    return EXIT_CODES[report.status]


def write_latex(report, path) -> None:
    """Write the report's LaTeX derivation to ``path`` (nothing when it is None); a file that cannot
    be written is a usage error."""
    if not path:
        return
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(report.latex())
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None
