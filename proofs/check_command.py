"""python -m proofs check LHS RHS: decide an identity typed as text (parsed without eval)."""
from __future__ import annotations

import json
import sys

from symbolic import check_identity
from symbolic.parsing import ParseError, parse_expression

from .arguments import EXIT_CODES, Parser, UsageError, positive_seconds


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def main(argv: list[str]) -> int:
    parser = Parser(prog="python -m proofs check",
                     description="Decide LHS = RHS for all real values of the symbols.")
    parser.add_argument("lhs")
    parser.add_argument("rhs")
    parser.add_argument("--positive", type=_names, default=[], metavar="A,B",
                        help="symbols assumed > 0")
    parser.add_argument("--nonnegative", type=_names, default=[], metavar="A,B",
                        help="symbols assumed >= 0")
    parser.add_argument("--timeout", type=positive_seconds, metavar="SECONDS")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    symbols: dict = {}
    try:
        lhs = parse_expression(args.lhs, positive=args.positive, nonnegative=args.nonnegative,
                               symbols=symbols)
        rhs = parse_expression(args.rhs, symbols=symbols)
    except ParseError as error:
        raise UsageError(f"cannot read the expression: {error}") from None
    try:
        verdict = check_identity(lhs, rhs, timeout=args.timeout, claim=f"{args.lhs} = {args.rhs}")
    except (TypeError, ValueError) as error:
        raise UsageError(f"cannot check this claim: {error}") from None
    if args.json:
        print(json.dumps({"claim": verdict.claim, "status": verdict.status.value,
                          "witness": {str(k): str(v) for k, v in (verdict.witness or {}).items()},
                          "reason": verdict.reason, "evidence": list(verdict.evidence)}))
    else:
        print(verdict.describe())
        for line in verdict.evidence:
            print(f"  evidence: {line}")
    return EXIT_CODES[verdict.status]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
