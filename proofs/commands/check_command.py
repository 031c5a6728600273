"""python -m proofs check LHS RHS: decide an identity typed as text (parsed without eval)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import textwrap

import sympy as sp
from sympy.core.facts import InconsistentAssumptions

from symbolic import check_identity
from symbolic.checks import relation
from symbolic.display import verdict_text
from symbolic.decision.budget import BudgetExhausted, time_budget
from symbolic.decision.identity import PROCEDURES
from symbolic.parsing import CONTRADICTIONS, LIMITS, ParseError, parse_expression
from symbolic.kernel.verdict import Status, Verdict
from symbolic.logic.statements import RELATIONS
from symbolic.decision.witness import exact_value, mp_value, substitute_functions

from proofs.commands.arguments import EXIT_CODES, EXIT_INTERNAL_ERROR, Accumulate, Parser, UsageError, names, \
    positive_seconds, program_name, Once

DEFAULT_SECONDS = 60.0

LIMITS_TEXT = textwrap.fill(LIMITS, 96, initial_indent="  limits        ", subsequent_indent=" " * 16)

GRAMMAR = f"""\
expressions:
  numbers       2, 1/3, 0.25, 1e-3 (exact rationals)
  symbols       names such as x, a1, w_ij: real numbers unless --positive, --nonnegative,
                --negative, --integer or --rational says more (each repeatable:
                --positive a --positive b is --positive a,b); every verdict prints the
                facts it was checked under ('... for a, b > 0')
  operators     + - * / and ** or ^, parentheses; an expression
                may start with a minus: check '-relu(-x)' 'min(x, 0)'
  functions     relu(s), max(a, b, ...), min(a, b, ...), abs(s), leaky_relu(s, slope),
                sign(s), heaviside(s) (1/2 at 0),
                exp, log, sqrt, tanh, sin, cos, sigmoid, softplus (outside real arithmetic:
                decided only by the exact zero test and the sign split)
{LIMITS_TEXT}
The claim is LHS = RHS, as written (nothing is simplified before the check), at every point of
the symbols' ranges where both sides as written are defined: no denominator vanishes, no even
root or non-integer power of a negative number, no log of a non-positive one.

exit codes: 0 PROVED, 1 REFUTED, 3 UNDECIDED, 2 bad usage or input, 4 internal error,
  141 the reader of the output closed the pipe
examples:
  python -m proofs check 'relu(a*x)' 'a*relu(x)' --positive a
  python -m proofs check 'relu(n)*relu(1-n)' 0 --integer n
  python -m proofs check 'relu(a*x)/a' 'relu(x)' --positive a --certify coq
"""


FACT_OPTIONS = ("positive", "nonnegative", "negative", "integer", "rational")


def build_parser() -> Parser:
    parser = Parser(prog="python -m proofs check",
                    description="Decide LHS = RHS for all real values of the symbols.",
                    epilog=GRAMMAR, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lhs", help="the left-hand side, as text (see expressions below)")
    parser.add_argument("rhs", help="the right-hand side")
    # a fact option may be repeated: --positive a --positive b is --positive a,b
    parser.add_argument("--positive", type=names, action=Accumulate, default=[], metavar="A,B",
                        help="symbols assumed > 0 (repeatable)")
    parser.add_argument("--nonnegative", type=names, action=Accumulate, default=[], metavar="A,B",
                        help="symbols assumed >= 0 (repeatable)")
    parser.add_argument("--negative", type=names, action=Accumulate, default=[], metavar="A,B",
                        help="symbols assumed < 0 (repeatable)")
    parser.add_argument("--integer", type=names, action=Accumulate, default=[], metavar="N,M",
                        help="symbols that range over the integers (repeatable)")
    parser.add_argument("--rational", type=names, action=Accumulate, default=[], metavar="Q,R",
                        help="symbols that range over the rationals (decided over the reals by "
                             "density, for continuous sides only; repeatable)")
    parser.add_argument("--timeout", type=positive_seconds, default=DEFAULT_SECONDS,
                        metavar="SECONDS", help="time budget for reading and deciding the claim "
                                                f"(default {DEFAULT_SECONDS:g}); past it the "
                                                "answer is UNDECIDED")
    parser.add_argument("--procedure", choices=PROCEDURES, default="all",
                        help="all (default): the sign split and Z3, each confirming the other; "
                             "split or z3: that procedure's verdict alone")
    parser.add_argument("--relation", choices=("=", *RELATIONS), default="=", action=Once,
                        help="decide LHS R RHS for this relation instead of = (default =): Z3 and cvc5 on "
                             "its failure, confirmed independently, refuted only at an exact point")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.add_argument("--certify", choices=["coq"], help="re-check a PROVED claim with Coq (coqc): a "
                        "refutation (Coq proves the claim false) makes the verdict UNDECIDED, exit 4; a proof "
                        "Coq does not find leaves it, with the reason")
    return parser


def _parse_claim(args, symbols: dict) -> tuple:
    """The two sides as written; ``symbols`` receives the claim's symbols, those named by a fact
    option first (before the text is read), each with every fact given to it."""
    side = "left-hand side (LHS)"
    try:
        lhs = parse_expression(args.lhs, positive=args.positive, nonnegative=args.nonnegative,
                               integer=args.integer, negative=args.negative,
                               rational=args.rational, symbols=symbols)
        side = "right-hand side (RHS)"
        rhs = parse_expression(args.rhs, symbols=symbols)
    except ParseError as error:
        # which side is wrong, then where in it
        raise UsageError(f"cannot read the {side}: {error}") from None
    except InconsistentAssumptions:
        raise UsageError(_contradiction(args)) from None
    present = {str(s) for s in lhs.free_symbols | rhs.free_symbols}
    for option in FACT_OPTIONS:
        for name in getattr(args, option):
            if name not in present:
                raise UsageError(f"--{option} names {name!r}, which does not occur in the claim")
    return lhs, rhs


# facts no real number has at once
def _contradiction(args) -> str:
    """The message for assumptions no value satisfies (--positive x --negative x)."""
    for first, second in CONTRADICTIONS:
        for name in getattr(args, first):
            if name in getattr(args, second):
                return f"the assumptions on {name!r} contradict each other: --{first} and --{second}"
    return "the assumptions on the symbols contradict each other"


COMPACT_DIGITS = 40      # an exact value longer than this prints compactly
PRINTABLE_BITS = 13_000  # below Python's limit of 4,300 digits on an integer printed as text
LOG10_2 = 0.30102999566398120


def _compact_integer(n: int) -> str:
    """An integer as m·10^k when its trailing zeros make that short (10^300), else as it is."""
    digits = str(abs(n))
    zeros = len(digits) - len(digits.rstrip("0"))
    if zeros < 6:
        return str(n)
    mantissa = n // 10 ** zeros
    return f"10^{zeros}" if mantissa == 1 else f"-10^{zeros}" if mantissa == -1 else f"{mantissa}*10^{zeros}"


def _exact_text(value) -> str:
    """An exact rational as text; a long one compactly: exactly as m*10^k where its zeros allow
    (10^300), else its 30 leading digits and its length (a value past Python's limit on printed
    integers never printed whole)."""
    p, q = int(value.p), int(value.q)
    digits = max(len(str(abs(n))) if n.bit_length() < PRINTABLE_BITS else int(n.bit_length() * LOG10_2) + 1
                 for n in (p, q))
    if digits >= PRINTABLE_BITS * LOG10_2:
        return f"{sp.Float(value, 30)} (exact value of about {digits:,} digits, not shown)"
    text = str(value)
    if len(text) <= COMPACT_DIGITS:
        return text
    exact = _compact_integer(p) if q == 1 else f"{_compact_integer(p)}/{_compact_integer(q)}"
    if len(exact) <= COMPACT_DIGITS:
        return exact
    return f"{sp.Float(value, 30)} (exact value of {len(text)} characters, not shown)"


def _value_text(expr, point) -> str:
    value = exact_value(expr, point)
    if value is not None:
        return _exact_text(value)
    value = mp_value(expr, point, 30)
    return "undefined" if value is None else f"{value} (30 digits)"


def _assumptions(args) -> dict:
    """Each symbol named by a fact option, with the facts given to it: {"a": ["positive"]}."""
    facts: dict = {}
    for option in FACT_OPTIONS:
        for name in getattr(args, option):
            facts.setdefault(name, [])
            if option not in facts[name]:
                facts[name].append(option)
    return facts


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    claim = f"{args.lhs} {args.relation} {args.rhs}"
    symbols: dict = {}
    try:
        # the budget covers reading the claim too: nothing the user types can make it hang
        with time_budget(args.timeout):
            lhs, rhs = _parse_claim(args, symbols)
    except BudgetExhausted:
        verdict = Verdict(Status.UNDECIDED, claim,
                          reason=f"time budget of {args.timeout:g} s ran out while reading the claim")
        lhs = rhs = None
    else:
        try:
            verdict = check_identity(lhs, rhs, timeout=args.timeout, claim=claim, procedure=args.procedure) \
                if args.relation == "=" else relation(lhs, args.relation, rhs, label=claim, seconds=args.timeout)
        except (TypeError, ValueError) as error:
            raise UsageError(f"cannot check this claim: {error}") from None
        if args.certify == "coq":
            from symbolic.coq.runner import with_coq     # Coq's runner, only when it is asked for
            verdict = with_coq(verdict)
    # the verdict carries the symbols with their facts: every verdict prints what it was checked under
    verdict = dataclasses.replace(verdict, symbols=tuple(symbols.values()))
    if verdict.details.get("internal_error"):
        print(f"{program_name()} check: internal error while checking {claim}: {verdict.reason}",
              file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    values = {}
    if verdict.status is Status.REFUTED and lhs is not None:
        point = {k: v for k, v in verdict.witness.items() if isinstance(k, sp.Symbol)}
        functions = {k: v for k, v in verdict.witness.items() if k not in point}
        values = {side: _value_text(substitute_functions(expr, functions), point)
                  for side, expr in (("lhs", lhs), ("rhs", rhs))}
    if args.json:
        print(json.dumps({"claim": verdict.claim, "status": verdict.status.value,
                          "facts": verdict.facts, "assumptions": _assumptions(args),
                          "domain": verdict.details.get("domain", ""),
                          **({"warning": verdict.details["as_built"]} if verdict.details.get("as_built") else {}),
                          "witness": {str(k): str(v) for k, v in (verdict.witness or {}).items()},
                          "values": values, "reason": verdict.reason,
                          "evidence": list(verdict.evidence),
                          **({"rests_on": verdict.rests_on} if verdict.status is Status.PROVED else {}),
                          **({"coq": verdict.details["coq"]} if "coq" in verdict.details else {})}))
    else:
        print(verdict_text(verdict, values))        # print(verdict) shows the same
    if verdict.details.get("disagreement"):
        print(f"{program_name()} check: the kernel and Coq disagree on {claim}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    return EXIT_CODES[verdict.status]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
