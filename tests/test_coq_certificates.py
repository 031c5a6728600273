"""Coq certificates of identity claims: the printer evaluated back against sympy, true claims
checked, false claims forced through the printer refuted, and the verdicts that carry Coq's answer."""
import dataclasses
import random
import re
from fractions import Fraction

import pytest
import sympy as sp

from proofs.commands import check_command
from symbolic import ReLU, check_identity, leaky_relu
from symbolic.coq import library
from symbolic.coq import runner
from symbolic.coq.certificate import HEADER, certificate, proof_script, refutation
from symbolic.coq.printer import OutsideFragment, Printer, statement
from symbolic.coq.runner import Answer, certify, combine, with_coq
from symbolic.testing import assert_proved
from symbolic.kernel.verdict import Holds, Status, Verdict

needs_coq = pytest.mark.skipif(library.coqc() is None,
                               reason="coqc is not installed (Debian: apt-get install coq); no certificate "
                                      "can be checked here")

x, y, r = sp.symbols("x y r", real=True)
a, c = sp.symbols("a c", positive=True)
f = sp.Function("f")


def F(t):
    """The concrete function that stands for the undefined f in both evaluations."""
    return t * t - 3 * t + Fraction(1, 2)


# --- the printer, evaluated back ---------------------------------------------------------------

class CoqTerm:
    """A reader of the printer's Coq terms (fully parenthesised), independent of the printer."""

    def __init__(self, text: str):
        self.tokens = re.findall(r"\d+|[A-Za-z_][A-Za-z0-9_]*|[()+*/^-]", text)
        self.at = 0

    def next(self):
        self.at += 1
        return self.tokens[self.at - 1]

    def value(self, point: dict):
        token = self.next()
        if token.isdigit():
            return Fraction(int(token))
        if token != "(":
            return point[token]
        head = self.tokens[self.at]
        if head in ("-", "/", "Rmax", "Rmin", "Rabs") or head in point and callable(point[head]):
            self.next()
            args = []
            while self.tokens[self.at] != ")":
                args.append(self.value(point))
            self.next()
            if head == "-" and len(args) == 1:
                return -args[0]
            if head == "/" and len(args) == 1:
                return 1 / args[0]
            if head == "-":
                return args[0] - args[1]
            if head == "/":
                return args[0] / args[1]
            operation = {"Rmax": max, "Rmin": min, "Rabs": abs}.get(head, point.get(head))
            return operation(*args)
        # an infix chain: a op b op c ... with one operator
        left = self.value(point)
        values, operator = [left], None
        while self.tokens[self.at] != ")":
            operator = self.next()
            if operator == "^":
                return self._power(left, int(self.next()))
            values.append(self.value(point))
        self.next()
        if operator in ("+", None):
            return sum(values, Fraction(0))
        if operator == "*":
            product = Fraction(1)
            for v in values:
                product *= v
            return product
        if operator == "/":
            return values[0] / values[1]
        if operator == "-":
            return values[0] - values[1]
        raise ValueError(operator)

    def _power(self, base, exponent):
        self.next()                                  # the closing parenthesis
        return base ** exponent


def random_term(rng, depth):
    leaves = [x, y, a, c, sp.Rational(rng.choice([-1, 1]) * rng.randint(1, 5), rng.randint(1, 4))]
    if depth == 0:
        return rng.choice(leaves)
    u, v = random_term(rng, depth - 1), random_term(rng, depth - 1)
    return rng.choice([
        lambda: sp.Add(u, v, evaluate=False), lambda: sp.Mul(u, v, evaluate=False),
        lambda: sp.Mul(u, sp.Pow(v, -1, evaluate=False), evaluate=False),
        lambda: sp.Pow(u, rng.randint(0, 3), evaluate=False), lambda: sp.Pow(u, -2, evaluate=False),
        lambda: ReLU(u), lambda: sp.Max(u, v, x, evaluate=False),
        lambda: sp.Min(u, v, evaluate=False), lambda: sp.Abs(u, evaluate=False),
        lambda: leaky_relu(u, sp.Rational(1, 10)), lambda: f(u), lambda: sp.Mul(-1, u, evaluate=False),
    ])()


def sympy_value(term, point):
    """sympy's own value of the term at the point, f replaced by F (None where a denominator as
    written vanishes or is undefined)."""
    for power in term.atoms(sp.Pow):
        if power.exp.is_negative and sympy_value(power.base, point) in (None, 0):
            return None
    t = sp.Symbol("t")
    value = term.replace(f, sp.Lambda(t, t * t - 3 * t + sp.Rational(1, 2)))
    try:
        value = value.xreplace({s: sp.Rational(v.numerator, v.denominator) for s, v in point.items()})
        value = sp.sympify(value).doit()
    except (ValueError, ZeroDivisionError):
        return None                                  # Max or Min of an undefined value
    return None if value.has(sp.zoo, sp.nan, sp.oo) or not value.is_Rational else Fraction(int(value.p), int(value.q))


def test_the_printed_terms_evaluate_to_sympys_values_at_random_rational_points():
    rng = random.Random(7)
    compared = 0
    for _ in range(150):
        term = random_term(rng, 3)
        printer = Printer()
        printed = statement(term, sp.Integer(0), printer)
        names = {s: printer.names[s] for s in (x, y, a, c) if s in printer.names}
        for _ in range(3):
            point = {x: Fraction(rng.randint(-9, 9), rng.randint(1, 5)), y: Fraction(rng.randint(-9, 9), 3),
                     a: Fraction(rng.randint(1, 9), rng.randint(1, 4)), c: Fraction(rng.randint(1, 7), 2)}
            expected = sympy_value(term, point)
            if expected is None:
                continue                             # a denominator vanishes: both sides undefined
            coq_point = {names[s]: v for s, v in point.items() if s in names}
            coq_point.update({name: F for name in printed.functions})
            assert CoqTerm(printed.lhs).value(coq_point) == expected, (term, printed.lhs)
            compared += 1
    assert compared > 200


def test_every_denominator_and_sign_fact_becomes_a_hypothesis():
    printed = statement(sp.Mul(x, sp.Pow(sp.Add(y, 1, evaluate=False), -1, evaluate=False), evaluate=False),
                        ReLU(a * x) / a)
    assert "0 < a" in printed.hypotheses
    assert "(y + 1) <> 0" in printed.hypotheses and "a <> 0" in printed.hypotheses


@pytest.mark.parametrize("term, reason", [
    (sp.sqrt(x), "square root"), (x ** sp.Rational(3, 2), "non-integer power"), (sp.sin(x), "outside"),
    (1 / sp.sqrt(x ** 2 + y), "square root"),
    (sp.Float(0.5) * x, "not rational"), (sp.Symbol("n", integer=True) * x, "integers"), (sp.E * x, "not rational"),
    (sp.Heaviside(x), "outside"), (sp.sign(x), "outside"),
])
def test_constructs_outside_the_fragment_are_named(term, reason):
    with pytest.raises(OutsideFragment, match=reason):
        statement(term, x)


def test_square_roots_of_what_is_never_negative_exp_and_pi_are_printed():
    # a root whose argument is >= 0 at every value (a sum of squares), or > 0 under a reciprocal
    assert Printer().term(sp.sqrt(x ** 2 + y ** 2)) == "(sqrt ((x ^ 2) + (y ^ 2)))"
    assert Printer().term(1 / sp.sqrt(x ** 2 + 1)) == "(/ sqrt (1 + (x ^ 2)))"
    assert Printer().term(sp.exp(x) * sp.pi) == "(PI * (exp x))"


# --- Coq's answers ----------------------------------------------------------------------------

def theorem1(d, h, scale_v_too=False):
    """Theorem 1 at d, h: the network at T_alpha theta, and at theta."""
    xs = sp.symbols(f"x1:{d + 1}", real=True)
    W = [[sp.Symbol(f"W{i}{j}", real=True) for j in range(h)] for i in range(d)]
    v = sp.symbols(f"v1:{h + 1}", real=True)
    scaled = sum(ReLU(sum(xs[i] * a * W[i][j] for i in range(d))) * (a if scale_v_too else 1 / a) * v[j]
                 for j in range(h))
    return scaled, sum(ReLU(sum(xs[i] * W[i][j] for i in range(d))) * v[j] for j in range(h))


TRUE = [
    (ReLU(a * x), a * ReLU(x)), (ReLU(a * x) / a, ReLU(x)), (sp.Max(x, y) + sp.Min(x, y), x + y),
    (sp.Abs(x), ReLU(x) + ReLU(-x)), (sp.Mul(x, sp.Pow(x, -1, evaluate=False), evaluate=False), sp.Integer(1)),
    (leaky_relu(a * x, sp.Rational(1, 10)), a * leaky_relu(x, sp.Rational(1, 10))),
    (f(ReLU(a * x) / a), f(ReLU(x))), (sp.Max(a * x, a * y, 0) / a, sp.Max(x, y, 0)),
    theorem1(2, 2), theorem1(3, 2),
    (ReLU(c * ReLU(a * x) * y), c * a * ReLU(ReLU(x) * y)),
    (sp.sqrt(x ** 2 + y ** 2) * (x + 1), x * sp.sqrt(x ** 2 + y ** 2) + sp.sqrt(y ** 2 + x ** 2)),
    (sp.exp(x) / sp.sqrt(sp.pi), sp.exp(x) / sp.sqrt(sp.pi)), (sp.exp(x * (x + 1)), sp.exp(x ** 2 + x)),
    # a Max whose arguments differ by a number: the rectifier of that number decided by lra
    (sp.Max(sp.Add(x, -3, evaluate=False), sp.Add(x, sp.Rational(1, 2), evaluate=False), evaluate=False),
     sp.Add(x, sp.Rational(1, 2), evaluate=False)),
]
FALSE = [
    (ReLU(r * x), r * ReLU(x)), (ReLU(x), x), (sp.Max(x, y), x), (sp.Abs(x), x), (f(2 * x), 2 * f(x)),
    theorem1(2, 2, scale_v_too=True),
]


@needs_coq
def test_true_claims_are_checked_and_false_ones_forced_through_the_printer_are_refuted():
    batch = certify(TRUE + FALSE, seconds=5)
    answers = batch.answers
    assert [answer.result for answer in answers[:len(TRUE)]] == ["checked"] * len(TRUE)
    for (lhs, rhs), answer in zip(FALSE, answers[len(TRUE):]):
        assert answer.refuted and answer.kind == "refuted", (lhs, rhs, answer.result)
        assert "Coq proves the sides differ at " in answer.result and "_refuted :" in answer.lemma
    assert batch.cpu_seconds > 0


@needs_coq
def test_a_proved_verdict_keeps_its_fields_and_gains_coqs_answer():
    verdict = dataclasses.replace(check_identity(ReLU(a * x) / a, ReLU(x)), details={"k": 1})
    checked = with_coq(verdict)
    assert checked.status is Status.PROVED and checked.evidence == verdict.evidence
    assert checked.details == {"k": 1, "coq": "checked", "coq_theorem": "claim_0",
                               "coq_statement": "forall a x : R, 0 < a -> a <> 0 -> / a * Rmax (x * a) 0 = Rmax x 0"}
    assert checked.theorem is verdict.theorem


def test_a_proved_verdict_that_coq_refutes_becomes_undecided_naming_both():
    verdict = check_identity(ReLU(x) + x, x + ReLU(x))
    disagreement = combine(verdict, Answer("refuted (Coq proves the sides differ at x = -1: lhs = 0, rhs = -1)"))
    assert disagreement.status is Status.UNDECIDED and disagreement.details["disagreement"] is True
    assert "PROVED" in disagreement.reason and "refuted" in disagreement.reason
    # a proof that failed refutes nothing: the verdict stays PROVED, with Coq's reason
    failed = combine(verdict, Answer("not checked (the tactics failed: Error: No applicable tactic.)"))
    assert failed.status is Status.PROVED and "disagreement" not in failed.details
    assert failed.details["coq"] == "not checked (the tactics failed: Error: No applicable tactic.)"
    outside = combine(verdict, Answer("outside the fragment (a square root)"))
    assert outside.status is Status.PROVED and outside.details["coq"].startswith("outside")
    refuted = with_coq(Verdict(Status.REFUTED, "ReLU(x) = x"))
    assert refuted.details["coq"].startswith("not attempted")


@needs_coq
def test_the_command_line_certifies_and_exits_4_on_a_disagreement(cli, monkeypatch, capsys):
    done = cli("check", "relu(a*x)/a", "relu(x)", "--positive", "a", "--certify", "coq")
    assert done.returncode == 0 and "coq: checked" in done.stdout
    # an oracle that says the claim holds of a false claim (a bug of the procedure): the kernel
    # mints PROVED on its word, Coq refuses, the command exits 4
    import symbolic.decision.identity as procedure
    monkeypatch.setattr(procedure, "check_identity", lambda lhs, rhs, **_: Holds(evidence=("wrong",)))
    assert check_command.main(["relu(x)", "x", "--certify", "coq"]) == 4
    assert "disagree" in capsys.readouterr().err


@needs_coq
def test_a_false_claim_with_roots_forced_through_the_printer_is_not_checked(tmp_path):
    lhs, rhs = sp.sqrt(x ** 2 + 1) + 1, sp.sqrt(x ** 2 + 1)
    # what the certificates do not prove of roots is said to be outside, before any coqc call
    with pytest.raises(OutsideFragment, match="square root"):
        certificate(lhs, rhs, "false_root")
    # a true claim that holds through what exp is, not with exp as an atom: outside, never sent to Coq
    with pytest.raises(OutsideFragment, match="no atom of the claim"):
        certificate(sp.exp(x) * sp.exp(y), sp.exp(x + y), "exp_sum")
    printer = Printer()
    lemma = statement(lhs, rhs, printer).lemma("false_root", proof_script(lhs, rhs, printer))
    outcome = library.check_items(tmp_path, HEADER, {0: lemma}, 5).outcomes[0]
    assert not outcome.accepted and runner.not_checked(outcome).startswith("not checked (the tactics failed: ")
    # its values are no rational numbers: no refutation is proposed
    assert refutation(lhs, rhs, "false_root") is None


@needs_coq
def test_the_pytest_helper_demands_coq():
    verdict = assert_proved(ReLU(a * x), a * ReLU(x), certify="coq")
    assert verdict.details["coq"] == "checked"
    with pytest.raises(AssertionError, match="not re-checked by Coq"):
        assert_proved(sp.Pow(sp.Pow(a, 2, evaluate=False), sp.S.Half, evaluate=False), a, certify="coq")


@needs_coq
def test_a_run_with_certify_coq_rechecks_the_identities_it_proves(cli):
    done = cli("worked_example", "--certify", "coq")
    assert done.returncode == 0, done.stderr
    summary = [line for line in done.stderr.splitlines() if line.startswith("coq: ")]
    assert summary and " 0 refuted" in summary[0] and re.search(r": [1-9]\d* checked", summary[0]), done.stderr
