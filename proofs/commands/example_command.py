"""python -m proofs example: the worked example's readings at one c, its plot, its interactive page.

    python -m proofs example --c 0.1 --perturbation 0.1 --probe 2 --html page.html
"""
from __future__ import annotations

import argparse
from fractions import Fraction

from proofs.commands import example_readings
from symbolic.networks.worked_example import derive
from proofs.commands.arguments import Parser, UsageError
from proofs.commands.example_page import write_page

EXAMPLE = "python -m proofs example --c 0.1 --perturbation -0.3 --probe 2 --html page.html"
PLOT_RANGE = 100     # the PNG is drawn with floats: |log10| of c, delta and x at most this


def _exact_number(text: str, name: str) -> Fraction:
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"--{name} must be a number such as 0.5 or 1/3, "
                                         f"got {text!r}") from None


def _check_plottable(c_value: Fraction, perturbation: Fraction, probe: Fraction) -> None:
    if abs(example_readings.log10(c_value)) > PLOT_RANGE:
        raise UsageError(f"--plot draws 1e-{PLOT_RANGE} <= c <= 1e{PLOT_RANGE}, "
                         f"got c = {example_readings.show(c_value)}")
    for name, value in (("perturbation", perturbation), ("probe", probe)):
        if value and example_readings.log10(abs(value)) > PLOT_RANGE:
            raise UsageError(f"--plot draws |{name}| <= 1e{PLOT_RANGE}, got {example_readings.show(value)}")


def main(argv: list[str]) -> int:
    parser = Parser(prog="python -m proofs example",
                    description="The worked example f(x) = b max(0, a x) at a = c, b = 1/c, with "
                                "data (1, 1), (2, 2): print its readings for one c, draw them, or "
                                "write an interactive page.  Numbers are exact: 0.1, 1/3, 1e-3.",
                    epilog=f"example: {EXAMPLE}")
    parser.add_argument("--c", type=lambda t: _exact_number(t, "c"), default=Fraction(1),
                        help="the rescaling c > 0 (default 1)")
    parser.add_argument("--perturbation", type=lambda t: _exact_number(t, "perturbation"),
                        default=Fraction(1, 10), help="the perturbation delta (default 0.1)")
    parser.add_argument("--probe", type=lambda t: _exact_number(t, "probe"), default=Fraction(3, 2),
                        help="the probe input x (default 1.5)")
    parser.add_argument("--plot", metavar="FILE",
                        help="write a PNG of sharpness against c, the chosen c marked")
    parser.add_argument("--html", metavar="FILE",
                        help="write one self-contained interactive page (controls for c, delta, x)")
    args = parser.parse_args(argv)
    if args.c <= 0:
        raise UsageError(f"--c must be positive, got {example_readings.show(args.c)}")
    if args.plot:
        _check_plottable(args.c, args.perturbation, args.probe)
    derived = derive()
    for line in example_readings.readings(args.c, args.perturbation, args.probe, derived):
        print(line)
    writers = {"plot": lambda path: example_readings.plot(path, args.c, args.perturbation, args.probe, derived),
               "page": lambda path: write_page(path, derived, (args.c, args.perturbation, args.probe))}
    for what, target in (("plot", args.plot), ("page", args.html)):
        if target:
            try:
                writers[what](target)
            except OSError as error:
                raise UsageError(f"cannot write {target}: {error.strerror}") from None
            print(f"{what} written to {target}")
    return 0
