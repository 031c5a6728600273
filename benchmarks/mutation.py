"""Mutation benchmark: would the tests notice an unsound change to the checking core?

    python benchmarks/mutation.py [--list] [--timeout SECONDS] [NAME ...]

Each mutant is a plausible bug written by hand: one exact snippet of a soundness-critical module
(symbolic/decision/*, the derivative witness's verdict, the every-size rules' validity checks and
the kernel's rules of proof)
replaced by another, each breaking one named check of the soundness arguments.  For each mutant the
benchmark copies the repository to a temporary directory, applies the mutant there, and runs the
mutant's chosen fast subset of the tests in a subprocess with a time limit (``pytest -x``: the first
failing test kills it).  A mutant whose snippet is not found (or found more than once) is reported
as such, never silently skipped: the code it was written against has changed and the entry needs
updating.  The unmutated copy is run first on every subset used: a subset that fails without a
mutant kills nothing.

The table gives per mutant the test that killed it (or SURVIVED, or the snippet problem) and the
time of its run, beside the baseline time of its test subset; then the kill rate.  A mutant listed
with ``equivalent`` is one shown to change no verdict (the reason is printed with it).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKS = "tests/test_soundness_checks.py"
ALONE = "tests/test_procedures_alone.py"
COPIED = ("symbolic", "proofs", "tests", "benchmarks", "coq", "docs", "pyproject.toml")


@dataclass(frozen=True)
class Mutant:
    """``original`` (exactly once in ``file``) replaced by ``replacement`` breaks ``check``."""

    name: str
    file: str
    original: str
    replacement: str
    check: str
    tests: tuple = (CHECKS, ALONE)
    equivalent: str = ""    # why the mutant changes no verdict, if it is known to survive


IDENTITY = "symbolic/decision/identity.py"
REGIONS = "symbolic/decision/regions.py"
CASES = "symbolic/decision/cases.py"
RESIDUES = "symbolic/decision/residues.py"
MAX_PLUS = "symbolic/decision/max_plus.py"
SPLIT_CASES = "tests/test_split_cases.py"
MAX_PLUS_TESTS = "tests/test_max_plus.py"
SMT = "symbolic/decision/smt.py"
DERIVATIONS = "tests/test_derivations.py"
WITNESS = "symbolic/decision/witness.py"
ASSUMPTIONS = "symbolic/decision/assumptions.py"
LINEAR = "symbolic/decision/linear.py"
QUADRATIC = "symbolic/decision/quadratic.py"
FAST_PATHS = "tests/test_exact_fast_paths.py"
REAL_NETWORK = "symbolic/numerics/real_network.py"
INDEX_RULES = "symbolic/trusted/axioms/index_rules.py"
KERNEL_TESTS = "tests/test_kernel.py"
KERNEL_ATTACKS = "tests/test_kernel_attacks.py"
RULES = "symbolic/kernel/rules.py"
PROVENANCE = "symbolic/kernel/provenance.py"
REDTEAM = "tests/test_kernel_redteam.py"
CONTROLS = "tests/test_oracle_negative_controls.py"
LOOPHOLES = "tests/test_decision_loopholes.py"
MATCHING = "tests/test_matching_attacks.py"
STATEMENT_ATTACKS = "tests/test_statement_attacks.py"
CLI_ASSUMPTIONS = "tests/test_cli_assumptions.py"
COQ_ANSWERS = "tests/test_coq_answers.py"
SCHEMES = "tests/test_scheme_side_conditions.py"
CHANGE_OF_VARIABLES = "symbolic/every_size/change_of_variables.py"
CONGRUENCE = "symbolic/every_size/congruence.py"
MEASURE_TESTS = "tests/test_measures_all_sizes.py"
ATTENTION_RULES = "symbolic/trusted/axioms/attention_rules.py"
MIXING_CONGRUENCE = "symbolic/every_size/mixing_congruence.py"
RANGE_TESTS = "tests/test_range_attacks.py"
ATTENTION_TESTS = ("tests/test_attention_all_sizes.py", "tests/test_attention_attacks.py")

MUTANTS = [
    # --- check_identity: the orchestration ---------------------------------------------------------
    Mutant("split-strict", IDENTITY,
           "                                                   facts=facts, closed=True,\n",
           "                                                   facts=facts, closed=False,\n",
           "step 6: the split is a closed partition (the kink belongs to a region)"),
    Mutant("outside-split-strict", IDENTITY,
           "                                                   facts=facts, closed=True,\n"
           "                                                   max_regions=SPLIT_REGIONS):",
           "                                                   facts=facts, closed=False,\n"
           "                                                   max_regions=SPLIT_REGIONS):",
           "step 6 outside the fragment: the closed partition"),
    Mutant("leaf-denominator-vacuous", IDENTITY,
           "    return is_rational_zero(denominator)",
           "    return not denominator.is_number",
           "step 6: a leaf asserts nothing only where its denominator vanishes on the whole region"),
    Mutant("compares-anything", IDENTITY,
           "            if value is not None and value != 0:\n                return True\n        return False\n",
           "            if value is not None and value != 0:\n                return True\n        return True\n",
           "step 8: the random points compared non-zero values"),
    Mutant("confirmation-by-zeros", IDENTITY,
           "if not (both or self.informative > 0 or (solver_everywhere and self.agreeing > 0)):",
           "if not (both or self.agreeing > 0 or solver_everywhere):",
           "step 8: points comparing 0 with 0 confirm only beside Z3's unsat on every part"),
    Mutant("z3-alone-as-both", IDENTITY,
           "both = all(o.solver_agrees and not o.trusted_solver for o in opinions)",
           "both = all(o.solver_agrees for o in opinions)",
           "step 8: Z3's unsat alone is not two independent procedures",
           equivalent="the domain point asked for just before (require_domain_point) makes at least "
                      "one point agree, and a solver's unsat on every part with an agreeing point "
                      "is accepted beside it anyway: the mutant admits nothing more"),
    Mutant("exact-zero-unconfirmed", IDENTITY,
           "        confirmed = self.informative > 0\n",
           "        confirmed = self.agreeing > 0\n",
           "step 4/8: the exact zero test needs a witness that compared something"),
    Mutant("constants-not-added", IDENTITY,
           "total = constant + sum(p.target for p in parts) if not whole else sp.S.Zero",
           "total = sp.S.Zero",
           "step 5: the parts' constants add up to 0"),
    Mutant("witness-out-of-range", IDENTITY,
           "        if not (point_in_ranges(full) and self.domain.admits(full)):\n            return None\n",
           "        if not self.domain.admits(full):\n            return None\n",
           "step 2/8: a REFUTED witness honours every symbol's facts"),
    Mutant("witness-not-separating", IDENTITY,
           "if not (separation.defined and separation.differ):",
           "if not separation.defined:",
           "step 8: a REFUTED witness separates the original sides"),
    Mutant("combined-unknown-as-unsat", IDENTITY,
           '    if solver.outcome == "zero":\n        if split_used:',
           '    if solver.outcome != "nonzero":\n        if split_used:',
           "step 7: only Z3's unsat is an exact answer"),
    Mutant("read-unknown-as-unsat", IDENTITY,
           '        if answer.result == "unsat":\n            return _Opinion("zero"',
           '        if answer.result in ("unsat", "unknown"):\n            return _Opinion("zero"',
           "step 7: Z3's unknown is no answer"),
    Mutant("model-not-reverified", IDENTITY,
           "    if value is not None:\n        return value != target\n",
           "    if value is not None:\n        return True\n",
           "step 7: a Z3 model counts only where it separates, re-verified exactly"),
    # --- regions: dropped only with a certificate ------------------------------------------------------
    Mutant("unknown-region-dropped", REGIONS,
           "        if fact.empty is True:\n            continue",
           "        if fact.empty is not False:\n            continue",
           "step 6: a region is dropped only with a certificate of emptiness"),
    Mutant("branches-strict", CASES,
           "        positive = sp.GreaterThan(argument, 0, evaluate=False) if closed else argument",
           "        positive = argument",
           "step 6: the closed split keeps the kink s = 0"),
    Mutant("nonlinear-unsat-untrusted", REGIONS,
           '    return RegionFact(True, "Z3 (real or integer arithmetic): unsat (trusted)")',
           '    return RegionFact(None, "Z3 (real or integer arithmetic): unsat (untrusted)")',
           "regions: a non-linear region is shown empty by Z3's unsat (completeness)"),
    Mutant("farkas-unchecked", REGIONS,
           "        if farkas_multipliers(strict, closed, variables) is not None:",
           "        if True:",
           "regions: a linear region dropped only with its Farkas certificate checked"),
    Mutant("integer-side-for-reals", CASES,
           "    if closed and integer_valued(argument):\n",
           "    if closed:\n",
           "regions: the integer sign split's s <= -1 only for an argument integral at every point"),
    Mutant("real-symbol-integer-valued", CASES,
           "    if expr.is_Symbol:\n        return expr.is_integer is True\n",
           "    if expr.is_Symbol:\n        return True\n",
           "regions: a real symbol is no integer-valued argument (the integer side s <= -1 is not its)"),
    Mutant("upper-bound-sign", REGIONS,
           "            (strict if facts.upper_strict else closed).append(-s)",
           "            (strict if facts.upper_strict else closed).append(s)",
           "regions: a non-positive symbol's bound has its sign"),
    Mutant("non-negative-as-positive", REGIONS,
           "            (strict if facts.lower_strict else closed).append(s)",
           "            strict.append(s)",
           "regions: a non-negative symbol may be 0"),
    Mutant("inside-strict-as-closed", REGIONS,
           "        if not (value.is_Rational and (value >= 0 if _is_closed(c) else value > 0)):",
           "        if not (value.is_Rational and value >= 0):",
           "regions: a point inside an open region satisfies its strict constraints"),
    Mutant("fraction-sign", REGIONS,
           "    return sp.expand(numerator * denominator)",
           "    return sp.expand(numerator)",
           "regions: p/q > 0 is read as p·q > 0"),
    Mutant("nonlinear-as-linear", REGIONS,
           "    return all(coefficient.is_Rational and (term is sp.S.One or term.is_Symbol)",
           "    return all(coefficient.is_Rational",
           "regions: a non-linear region is not given to the Farkas test (completeness)"),
    # --- Z3: the exact translation ---------------------------------------------------------------------
    Mutant("solve-unknown-as-unsat", SMT,
           "    if result == z3.unsat:\n        return Answer(\"unsat\")",
           "    if result != z3.sat:\n        return Answer(\"unsat\")",
           "smt: Z3's unknown (a time-out) is not unsat"),
    Mutant("integer-division", SMT,
           "            p.exp.is_negative for e in exprs for p in e.atoms(sp.Pow))",
           "            False for e in exprs for p in e.atoms(sp.Pow))",
           "smt: the integer translation only for parts without a division"),
    Mutant("rational-numerator-only", SMT,
           '    return z3.RealVal(f"{int(number.p)}/{int(number.q)}")',
           '    return z3.RealVal(f"{int(number.p)}")',
           "smt: a rational constant p/q is translated exactly"),
    Mutant("sign-at-zero", SMT,
           "            return z3.If(args[0] > 0, 1, z3.If(args[0] < 0, -1, 0))",
           "            return z3.If(args[0] >= 0, 1, -1)",
           "smt: sign(0) = 0"),
    Mutant("heaviside-at-zero", SMT,
           "            return z3.If(args[0] > 0, 1, z3.If(args[0] < 0, 0, at_zero))",
           "            return z3.If(args[0] >= 0, 1, 0)",
           "smt: Heaviside(0) is the value sympy stores"),
    Mutant("smt-upper-bound-sign", SMT,
           "                self.constraints.append(value < 0 if facts.upper_strict else value <= 0)",
           "                self.constraints.append(value > 0 if facts.upper_strict else value >= 0)",
           "smt: a non-positive symbol's bound has its sign"),
    Mutant("parity-dropped", SMT,
           "                    self.constraints.append(integer % 2 == facts.parity)",
           "                    pass",
           "smt: parity facts are constraints"),
    Mutant("abs-as-identity", SMT,
           "            return z3.If(args[0] >= 0, args[0], -args[0])",
           "            return z3.If(args[0] >= 0, args[0], args[0])",
           "smt: Abs translated exactly"),
    Mutant("min-as-max", SMT,
           "            better = (lambda a, b: a >= b) if isinstance(expr, sp.Max) else (lambda a, b: a <= b)",
           "            better = (lambda a, b: a >= b)",
           "smt: Max and Min translated exactly"),
    Mutant("relu-as-identity", SMT,
           "            return z3.If(args[0] > 0, args[0], 0)",
           "            return args[0]",
           "smt: ReLU translated exactly"),
    # --- exact zero tests ----------------------------------------------------------------------------------
    Mutant("zero-test-takes-floats", "symbolic/decision/zero.py",
           "    if expr.has(sp.Float):\n        return False", "",
           "zero: a floating-point constant is refused (its arithmetic rounds)"),
    Mutant("fraction-numerator-only", "symbolic/flint_fractions.py",
           "            result = (one * flint.fmpq(int(e.p), int(e.q)), one)",
           "            result = (one * flint.fmpq(int(e.p)), one)",
           "fraction field: a rational constant p/q is read as p/q"),
    Mutant("fraction-no-common-denominator", "symbolic/flint_fractions.py",
           "                if d2 == den:", "                if True:",
           "fraction field: fractions are added over a common denominator"),
    # --- the split's cases, the residue split, integer rounding, the max-plus normal form ----------
    Mutant("sign-zero-case-dropped", CASES,
           "        return [([positive_side(argument, closed)], sp.S.One), (_equal(argument), at_zero),\n"
           "                ([positive_side(-argument, closed)], below)]",
           "        return [([positive_side(argument, closed)], sp.S.One),\n"
           "                ([positive_side(-argument, closed)], below)]",
           "cases: sign and Heaviside have a case s = 0", tests=(SPLIT_CASES,)),
    Mutant("piecewise-earlier-conditions-ignored", CASES,
           "        here = _and(none_earlier, holds)", "        here = holds",
           "cases: a Piecewise's k-th value holds only where no earlier condition does",
           tests=(SPLIT_CASES,)),
    Mutant("residue-constant-dropped", RESIDUES,
           "    whole = rest + sp.floor(constant)", "    whole = rest",
           "residues: floor(a) = (a − c) + floor(c) keeps the constant's floor", tests=(SPLIT_CASES,)),
    Mutant("rounding-upward", REGIONS,
           "sp.floor(sp.Rational(constant, g))", "sp.ceiling(sp.Rational(constant, g))",
           "regions: a·x + b ≥ 0 over the integers is (a/g)·x + floor(b/g) ≥ 0", tests=(SPLIT_CASES,)),
    Mutant("piecewise-equality-read-as-at-least", WITNESS,
           "    sp.Equality: lambda d: not (d > 0 or d < 0),", "    sp.Equality: lambda d: not d < 0,",
           "witness: a Piecewise condition a = b is exact equality", tests=(SPLIT_CASES,)),
    Mutant("denominator-piece-dropped-uncertified", "symbolic/decision/domain.py",
           "        if examine(piece, symbols).empty is True:\n            continue",
           "        if True:\n            continue",
           "domain: a piece of a denominator's split is dropped only with a certificate of emptiness",
           tests=(SPLIT_CASES,)),
    Mutant("branch-restriction-required-everywhere", "symbolic/decision/domain.py",
           "            if not any(all(_guard_holds(g, point) for g in guards) for guards in places):\n"
           "                continue\n",
           "",
           "domain: a node inside a Piecewise branch is required to be defined only where it is taken",
           tests=(SPLIT_CASES,)),
    Mutant("branch-restriction-given-to-the-solvers", "symbolic/decision/fragment.py",
           "        if in_branch and (exponent < 0 or not exponent.is_Integer):",
           "        if False:",
           "fragment: a division or root inside a Piecewise branch is not given to the solvers",
           tests=(SPLIT_CASES,)),
    Mutant("max-plus-negative-multiple-keeps-kind", MAX_PLUS,
           "            kind = _MIN if kind == _MAX else _MAX", "            pass",
           "max-plus: a negative multiple of a max is a min", tests=(MAX_PLUS_TESTS,)),
    Mutant("max-plus-keeps-the-wrong-constant", MAX_PLUS,
           "(constant > kept if kind == _MAX else constant < kept)",
           "(constant < kept if kind == _MAX else constant > kept)",
           "max-plus: of forms with one linear part a max attains the largest constant",
           tests=(MAX_PLUS_TESTS,)),
    Mutant("max-plus-proof-compares-nothing", IDENTITY,
           "            if convex == other and self.informative:", "            if convex == other:",
           "step 3: the max-plus normal form proves only beside a point that compared non-zero values",
           tests=(MAX_PLUS_TESTS,)),
    # --- the exact fast paths: Fourier–Motzkin on linear regions, the quadratic field ----------------
    Mutant("elimination-multipliers-unchecked", REGIONS,
           "    if outcome is not None and outcome[0] == \"empty\" and \\\n"
           "            _certifies(outcome[1], strict, closed):",
           "    if outcome is not None and outcome[0] == \"empty\":",
           "regions: the elimination's multipliers are checked before a region is dropped",
           tests=(FAST_PATHS,)),
    Mutant("elimination-point-unchecked", REGIONS,
           "        if inside(region, symbols, full):\n            return RegionFact(False, \"a point inside (Fourier",
           "        if True:\n            return RegionFact(False, \"a point inside (Fourier",
           "regions: the elimination's point is checked inside the region", tests=(FAST_PATHS,)),
    Mutant("elimination-strictness-lost", LINEAR,
           "                upper.strict or lower.strict,", "                upper.strict and lower.strict,",
           "linear: a combination with a strict constraint is strict", tests=(FAST_PATHS,)),
    Mutant("quadratic-sign-of-a", QUADRATIC,
           "        return sa if self.a * self.a > self.b * self.b * self.d else sb",
           "        return sa",
           "quadratic: the sign of a + b√d compares a² with b²d", tests=(FAST_PATHS,)),
    Mutant("quadratic-floor-low", QUADRATIC,
           "        return n + 1 if self >= n + 1 else n", "        return n",
           "quadratic: the floor of a + b√d", tests=(FAST_PATHS,)),
    Mutant("field-value-drops-the-root", WITNESS,
           "            value = value.a if value.b == 0 else None", "            value = value.a",
           "witness: a value a + b√d with b ≠ 0 is no rational", tests=(FAST_PATHS,)),
    Mutant("no-point-between-kinks", "symbolic/decision/kinks.py",
           "    return between[:MAX_POINTS]", "    return []",
           "kinks: a point between neighbouring kinks is tried (a thin slab's middle)", tests=(FAST_PATHS,)),
    Mutant("no-centre-of-a-quadratic", "symbolic/decision/kinks.py",
           "        if point not in points:\n            points.append(point)\n    return points\n\n\ndef between",
           "    return points\n\n\ndef between",
           "kinks: the centre of a quadratic argument is tried (a small disc)", tests=(FAST_PATHS,)),
    Mutant("quadratic-root-sign", "symbolic/decision/kinks.py",
           "    return [centre] if discriminant == 0 else [centre - root, centre + root]",
           "    return [centre] if discriminant == 0 else [centre - root, root - centre]",
           "kinks: both roots of a quadratic argument", tests=(FAST_PATHS,)),
    # --- the canonical ReLU form in flint -------------------------------------------------------------------
    Mutant("relu-content-keeps-its-sign", "symbolic/relu.py",
           "    content = flint.fmpq(math.gcd(*(int(c.p) for c in coefficients)),",
           "    content = flint.fmpq(functools.reduce(math.gcd, (int(c.p) for c in coefficients)),",
           "relu: the content pulled out of a ReLU is positive (ReLU(−x²) is 0, not −x²)",
           tests=("tests/test_relu.py",)),
    Mutant("relu-denominator-sign-ignored", "symbolic/relu.py",
           "    numerator = -numerator if flip else numerator",
           "    numerator = numerator",
           "relu: a negative denominator turns the argument over (ReLU(x/n) for n < 0)",
           tests=("tests/test_relu.py",)),
    Mutant("relu-nonpositive-factor-ignored", "symbolic/relu.py",
           "        sign = -sign\n    return sign",
           "        pass\n    return sign",
           "relu: an odd power of a non-positive factor turns a term's sign",
           tests=("tests/test_relu.py",)),
    # --- witnesses -------------------------------------------------------------------------------------------
    Mutant("absolute-tolerance", WITNESS,
           "        differ = diff_low > mpmath.mpf(10) ** (-WITNESS_DPS // 2) * scale and \\\n"
           "            abs(diff_low - diff_high) < mpmath.mpf(10) ** (-WITNESS_DPS // 2) * diff_low",
           '        differ = diff_low > mpmath.mpf("1e-12")',
           "witness: a difference is told from rounding by two precisions, not a tolerance"),
    Mutant("adaptive-precision-dropped", WITNESS,
           "    return Separation(True, bool(differ) and _nonzero_by_adaptive_precision(lhs - rhs, point),",
           "    return Separation(True, bool(differ),",
           "witness: a cancellation lost at both precisions is told from 0 by sympy's evaluation"),
    Mutant("exact-by-form", WITNESS,
           "    return value if value.is_Rational else None",
           "    return value if value.is_number else None",
           "witness: only rational values are compared exactly (irrationals by their form differ)"),
    Mutant("complex-value-kept", WITNESS,
           "            if value.imag != 0:\n                return None\n", "",
           "witness: a value off the reals is no value"),
    # --- the symbols' ranges ---------------------------------------------------------------------------------
    Mutant("parity-not-checked", ASSUMPTIONS,
           "        if self.parity is not None and int(value) % 2 != self.parity:\n            return False\n", "",
           "assumptions: a witness honours parity"),
    Mutant("positive-admits-zero", ASSUMPTIONS,
           "        if self.lower and (value < 0 or (self.lower_strict and value == 0)):",
           "        if self.lower and value < 0:",
           "assumptions: a positive symbol is not 0",
           equivalent="sympy gives every positive symbol nonzero=True, and the nonzero check "
                      "still refuses 0"),
    Mutant("nonzero-admits-zero", ASSUMPTIONS,
           "        return not (self.nonzero and value == 0)",
           "        return True",
           "assumptions: a non-zero symbol is not 0"),
    Mutant("integer-not-checked", ASSUMPTIONS,
           "        if self.integral and not value.is_Integer:\n            return False\n", "",
           "assumptions: a witness honours integrality"),
    Mutant("unsupported-fact-ignored", ASSUMPTIONS,
           '    facts = symbol.assumptions0\n    if facts.get("real") is False:',
           '    facts = symbol.assumptions0\n    return None\n    if facts.get("real") is False:',
           "assumptions: a fact the checker does not honour makes the answer UNDECIDED"),
    Mutant("parts-not-grouped", "symbolic/decision/components.py",
           "        touching = [g for g in groups if g[0] & symbols]",
           "        touching = []",
           "step 5: parts share no symbol"),
    # --- the derivative witness's verdict --------------------------------------------------------------------
    Mutant("derivative-compared-nothing", REAL_NETWORK,
           "    if residual is None or informative == 0:",
           "    if residual is None:",
           "witness_answer: a witness that compared nothing decides nothing"),
    Mutant("derivative-proved-without-noise", REAL_NETWORK,
           "    if residual.noise:",
           "    if True:",
           "witness_answer: agreement needs the witness residual to be rounding noise"),
    Mutant("derivative-refuted-without-stability", "symbolic/checks.py",
           "    if (exact.status is Status.REFUTED or entry is not None) and agreement.details.get(\"stable\"):",
           "    if (exact.status is Status.REFUTED or entry is not None):",
           "derivative_identity: REFUTED needs a difference stable across precisions"),
    Mutant("stable-by-tolerance", REAL_NETWORK,
           "        return self.low > 0 and abs(self.low - self.high) <= self.low * mpmath.mpf(10) ** -10",
           '        return self.low > mpmath.mpf("1e-12")',
           "derivative witness: stability across precisions, not an absolute tolerance"),
    Mutant("noise-by-tolerance", REAL_NETWORK,
           "        return tiny and falls and not self.stable",
           '        return self.low <= mpmath.mpf("1e-12")',
           "derivative witness: noise falls with the precision, not an absolute tolerance"),
    Mutant("noise-need-not-fall", REAL_NETWORK,
           "        falls = (self.high <= self.low * mpmath.mpf(10) ** -20",
           "        falls = True or (self.high <= self.low * mpmath.mpf(10) ** -20",
           "derivative witness: rounding noise falls at the higher precision"),
    # --- the every-size rules' validity checks (to be replaced by the kernel) ------------------------------
    Mutant("induction-without-base", INDEX_RULES,
           "    if not is_rational_zero((lhs - rhs).doit()):\n        return False",
           "    if False:\n        return False",
           "index rules: the induction's base case"),
    Mutant("induction-without-step", INDEX_RULES,
           "    return is_rational_zero(step)",
           "    return True",
           "index rules: the induction's step"),
    Mutant("constant-of-own-family", INDEX_RULES,
           "    independent = DATA_FAMILIES | (PARAMETER_FAMILIES - {before.coordinate.family})",
           "    independent = DATA_FAMILIES | PARAMETER_FAMILIES",
           "index rules: the derivative of a constant is not taken of the coordinate's own family"),
    # --- the kernel of the every-size proofs: each rule of proof checked alone ----------------------
    Mutant("kernel-empty-chain", "symbolic/kernel/chains.py",
           "    if not chain.steps:\n",
           "    if False:\n",
           "kernel: a chain without steps proves nothing", tests=(KERNEL_TESTS,)),
    Mutant("kernel-unknown-rule", "symbolic/kernel/chains.py",
           "        if not known:\n",
           "        if False:\n",
           "kernel: a step's rule is an axiom, a kernel lemma or the induction's hypothesis", tests=(KERNEL_TESTS,)),
    Mutant("kernel-step-not-an-instance", "symbolic/kernel/chains.py",
           "        reason, assumed = rule.judged(current, term)\n",
           "        reason, assumed = None, {}\n",
           "kernel: each step is an instance of its rule", tests=(KERNEL_TESTS,)),
    Mutant("kernel-chain-without-validity", "symbolic/kernel/chains.py",
           "        if not is_certified(validity):\n",
           "        if False:\n",
           "kernel: a chain step counts only with its rule's certified validity", tests=(KERNEL_TESTS,)),
    Mutant("kernel-induction-base-statement", "symbolic/kernel/induction.py",
           "    if (base.start, base.end) != base_statement:\n",
           "    if False:\n",
           "kernel: the base chain proves S(0)", tests=(KERNEL_TESTS,)),
    Mutant("kernel-induction-without-base", "symbolic/kernel/induction.py",
           "    if base_verdict.status is not Status.PROVED:\n",
           "    if False:\n",
           "kernel: the induction's base case is proved", tests=(KERNEL_TESTS,)),
    Mutant("kernel-induction-step-statement", "symbolic/kernel/induction.py",
           "    if (step_chain.start, step_chain.end) != step_statement:\n",
           "    if False:\n",
           "kernel: the step chain proves S(k + 1)", tests=(KERNEL_TESTS,)),
    Mutant("kernel-induction-without-step", "symbolic/kernel/induction.py",
           "    if step_verdict.status is not Status.PROVED:\n",
           "    if False:\n",
           "kernel: the induction's step is proved", tests=(KERNEL_TESTS,)),
    Mutant("kernel-instance-captured", "symbolic/kernel/matching.py",
           "            if not {index_variable(value) for value in binding.values()} & (bound_indices(lhs) | bound_indices(rhs)):\n",
           "            if True:\n",
           "kernel: an instance never renames an index into a sum's bound index", tests=(KERNEL_TESTS,)),
    Mutant("kernel-scalar-not-renamed", "symbolic/kernel/matching.py",
           "    if not {index_variable(str(s)) for s in pattern.free_symbols} & names:\n        return pattern == term\n",
           "    if True:\n        return pattern == term\n",
           "kernel: an instance renames index variables in scalars as in entries", tests=(KERNEL_TESTS,)),
    # --- the theorem type, its rules and the guards on definitions ------------------------------------------
    Mutant("kernel-oracle-accepts-without-running", RULES,
           "    answer = oracle.decide(statement, **parameters)\n",
           "    answer = Holds()\n",
           "kernel: an oracle's word is the answer of the oracle run on the statement", tests=(KERNEL_ATTACKS,)),
    Mutant("kernel-conjunction-forgets-a-premise", RULES,
           "        bad = next((p for p in premises if p.status is status), None)\n",
           "        bad = None\n",
           "kernel: a conjunction is proved only when every premise is", tests=(KERNEL_ATTACKS,)),
    Mutant("kernel-conjunction-takes-a-forged-premise", RULES,
           "    forged = next((p for p in premises if not issued(p)), None)\n",
           "    forged = None\n",
           "kernel: a premise is a verdict the kernel issued", tests=(KERNEL_ATTACKS,)),
    Mutant("kernel-refutation-at-a-point-where-it-holds", RULES,
           "    if not fails:\n",
           "    if False:\n",
           "kernel: not S needs a point where S fails", tests=(KERNEL_ATTACKS,)),
    Mutant("verdict-proved-without-a-theorem", "symbolic/kernel/verdict.py",
           "            if not is_theorem(self.theorem):\n",
           "            if False:\n",
           "a PROVED verdict carries a theorem the kernel minted", tests=(KERNEL_ATTACKS,)),
    # --- the attacks from a user's side (tests/test_kernel_redteam.py) ------------------------------------
    Mutant("kernel-pickle-mints-a-hand-made-theorem", "symbolic/kernel/theorem.py",
           "        if not is_theorem(self):\n",
           "        if False:\n",
           "kernel: a copy or a pickle of a hand-made theorem is no theorem", tests=(REDTEAM,)),
    Mutant("kernel-statement-keeps-a-mutable-matrix", "symbolic/logic/statements.py",
           "        return sp.ImmutableMatrix(value)\n",
           "        return value\n",
           "kernel: a statement keeps its own immutable copy of a matrix", tests=(REDTEAM,)),
    Mutant("kernel-axiom-from-any-caller", "symbolic/kernel/chains.py",
           "        if not (code_in(part, AXIOMS) and called_from(AXIOMS)):\n",
           "        if not code_in(part, AXIOMS):\n",
           "kernel: an axiom is declared by the trusted modules' own code", tests=(REDTEAM,)),
    Mutant("kernel-code-by-its-module-name", PROVENANCE,
           "    return code is not None and _is_file_of(code.co_filename, module, places, getattr(function, \"__globals__\", None))\n",
           "    return any(module == p or module.startswith(p + \".\") for p in places)\n",
           "kernel: a function's code is read from its file, not its __module__", tests=(REDTEAM,),
           equivalent="a second guard: called_from already refuses an axiom or a scheme declared outside the "
                      "trusted modules, and their own code passes only their own functions"),
    Mutant("kernel-refutation-ignores-facts", RULES,
           "    if broken is not None:\n",
           "    if False:\n",
           "kernel: a refutation's point honours its symbols' facts", tests=(REDTEAM,)),
    Mutant("kernel-refutation-ignores-the-domain", RULES,
           "    if not all(_defined_at(side, point) for side in written):\n",
           "    if not all(side.is_real is True and side.is_finite is True for side in sides):\n",
           "kernel: a refutation's point lies in the domain of both sides as written", tests=(REDTEAM,)),
    Mutant("kernel-statement-hides-assumptions", "symbolic/logic/statements.py",
           "    ranges = _ranges(set().union(*[sp.sympify(side).free_symbols for side in sides]), latex)\n",
           "    ranges = \"\"\n",
           "kernel: a printed equation says what its symbols range over", tests=(REDTEAM,)),
    Mutant("kernel-symbol-printed-as-a-constant", "symbolic/logic/statements.py",
           "        if name in NOT_REAL_NAMES or not _READABLE_NAME.fullmatch(name) or misprinted_name(name):\n",
           "        if False:\n",
           "kernel: a symbol named I, oo, pi or x+1 is refused", tests=(REDTEAM,)),
    Mutant("rational-comparison-rounds-floats", "symbolic/decision/oracles.py",
           "    if isinstance(expr, float):\n        return None\n",
           "    if isinstance(expr, float):\n        return sp.nsimplify(expr, rational=True)\n",
           "oracles: a float is no exact rational", tests=(REDTEAM,)),
    Mutant("assumptions-oracle-reads-every-fact", "symbolic/decision/oracles.py",
           "    if fact is not None:\n        return Verdict(Status.UNDECIDED, statement.text, reason=f\"a symbol carries",
           "    if False:\n        return Verdict(Status.UNDECIDED, statement.text, reason=f\"a symbol carries",
           "oracles: sympy's assumptions are read for the honoured facts only", tests=(REDTEAM,)),
    Mutant("square-of-any-base", "symbolic/decision/positivity.py",
           "            # the square of a real number only: (I*x)**2 and z**2 for an imaginary z are negative\n"
           "            return is_real_where_defined(base)\n",
           "            return True\n",
           "manifest sign test: only the square of a real base is non-negative", tests=(REDTEAM,)),
    Mutant("kernel-a-name-defined-twice", "symbolic/kernel/definitions.py",
           "    if introduced in _INTRODUCED:\n",
           "    if False:\n",
           "kernel: a definition introduces a fresh name once", tests=(KERNEL_ATTACKS,)),
    Mutant("kernel-an-expression-defined", "symbolic/kernel/definitions.py",
           "    if None in names or not clauses:\n",
           "    if not clauses:\n",
           "kernel: only a bare name is defined", tests=(KERNEL_ATTACKS,)),
    Mutant("kernel-a-mapped-name-defined-in-a-chain", "symbolic/kernel/chains.py",
           "        if introduced[1] is rule and introduced[0] in transformed_names():\n",
           "        if False:\n",
           "kernel: a chain uses no definition of a name a transformation maps", tests=(KERNEL_ATTACKS,)),
    Mutant("kernel-guard-reads-process-history", "symbolic/kernel/chains.py",
           "        if introduced[1] is rule and introduced[0] in transformed_names():\n",
           "        if introduced[1] is rule and introduced[0] in transformed_names() and _THEOREMS:\n",
           "kernel: no guard depends on what ran before in the process", tests=(KERNEL_ATTACKS,)),
    # --- the kernel's combinators for the audit's every-size cells -------------------------------------
    Mutant("cov-any-theorem", CHANGE_OF_VARIABLES,
           "    if not (is_index_theorem(invariance) and invariance.lhs == transformation.apply(function.body)\n",
           "    if False and not (is_index_theorem(invariance) and invariance.lhs == transformation.apply(function.body)\n",
           "change of variables: L(T theta) = L(theta) is a kernel theorem for this T and L", tests=(MEASURE_TESTS,)),
    Mutant("cov-scales-not-checked", CHANGE_OF_VARIABLES,
           "        if covariance.status is not Status.PROVED:\n",
           "        if False:\n",
           "change of variables: s(t u) = t s(u) on every family", tests=(MEASURE_TESTS,)),
    Mutant("cov-normalizer-not-checked", CHANGE_OF_VARIABLES,
           "        if not value.free_symbols <= {loss}:\n",
           "        if False:\n",
           "change of variables: the normalizer reads the loss value only", tests=(MEASURE_TESTS,)),
    Mutant("pencil-any-theorem", CONGRUENCE,
           "            if not is_index_theorem(theorem):\n",
           "            if False:\n",
           "pencil: each entry law is a kernel theorem", tests=(MEASURE_TESTS,)),
    Mutant("pencil-scale-not-checked", CONGRUENCE,
           " or not is_rational_zero(rhs.factors[0].expr - factor):\n",
           ":\n",
           "pencil: each law's factor is t_a^-1 t_b^-1 read from T", tests=(MEASURE_TESTS,)),
    Mutant("similarity-any-scales", CONGRUENCE,
           "        if signs_only and not all(",
           "        if False and not all(",
           "sign similarity: every scale is a sign, so D is orthogonal", tests=(MEASURE_TESTS,)),
    # --- the attention head's map: its hypothesis, the chain rules, the new sum rules and the pencil -----
    Mutant("inverse-pair-any-bound", ATTENTION_RULES,
           "    if before.size != HEAD:\n",
           "    if False:\n",
           "hypothesis A B^T = I: the sum runs over the head's 1..k", tests=ATTENTION_TESTS),
    Mutant("inverse-pair-as-AB", ATTENTION_RULES,
           " or a.indices[1] != m or b.indices[1] != m:\n",
           ":\n",
           "hypothesis A B^T = I: the sum runs over the second index of both (not A B)", tests=ATTENTION_TESTS),
    Mutant("inverse-pair-rows-any-range", ATTENTION_RULES,
           "if row in scope and scope[row] != HEAD]\n",
           "if False]\n",
           "hypothesis A B^T = I: rows bound above run over 1..k", tests=ATTENTION_TESTS),
    Mutant("mixing-other-readers", ATTENTION_RULES,
           "    if [p for p in T.readers(c)] != [pattern]:\n",
           "    if False:\n",
           "chain rule through a mixing: no other image reads the family", tests=ATTENTION_TESTS),
    Mutant("mixing-any-range", ATTENTION_RULES,
           "    if not bounds or any(bound != size for bound in bounds):\n",
           "    if False:\n",
           "chain rule through a mixing: the function reads the mixed index over exactly 1..K", tests=ATTENTION_TESTS),
    Mutant("scaled-chain-other-readers", INDEX_RULES,
           "    if others:\n",
           "    if False:\n",
           "chain rule for a scaled coordinate: no other image reads the family", tests=ATTENTION_TESTS),
    Mutant("delta-any-range-above", INDEX_RULES,
           "        if index in scope and scope[index] != size:\n",
           "        if False:\n",
           "delta contraction: an index bound above runs over the sum's range", tests=ATTENTION_TESTS),
    Mutant("interchange-dependent-bound", INDEX_RULES,
           "    if any(_mentions(size, index) for size in (outer.size, inner.size) for index in (outer.index, inner.index)):\n",
           "    if False:\n",
           "interchange of sums: no bound names a summation index", tests=ATTENTION_TESTS),
    Mutant("renaming-captured-inside", INDEX_RULES,
           "    if new in bound_indices(before.body):\n",
           "    if False:\n",
           "renaming a summation index: the new name is bound nowhere in the summand", tests=ATTENTION_TESTS),
    Mutant("mixing-pencil-unmapped", MIXING_CONGRUENCE,
           "    if unmapped:\n",
           "    if False:\n",
           "pencil through a mixing: every family the function reads is mapped", tests=ATTENTION_TESTS),
    Mutant("mixing-pencil-no-inverse", MIXING_CONGRUENCE,
           "        reason = left_inverse(transformation, pattern, theorem)\n",
           "        reason = None\n",
           "pencil through a mixing: each mixing has a left inverse (M invertible)", tests=ATTENTION_TESTS),
    Mutant("mixing-pencil-any-law", MIXING_CONGRUENCE,
           "            if theorem.lhs != entry(a, b, \"theta\") or theorem.rhs != pulled_back(transformation, a, b, entry):\n",
           "            if False:\n",
           "pencil through a mixing: each law is X(theta) = M^T X(T theta) M read from T", tests=ATTENTION_TESTS),
    Mutant("cov-ranges-ignored", CHANGE_OF_VARIABLES,
           "    if invariance.ranges:\n",
           "    if False:\n",
           "change of variables: L(T theta) = L(theta) takes no free index over a range", tests=(RANGE_TESTS,)),
    Mutant("pencil-ranges-ignored", CONGRUENCE,
           "            if unread is not None:\n",
           "            if False:\n",
           "pencil: each law's ranges are those over which L reads the coordinates", tests=(RANGE_TESTS,)),
    Mutant("abs-any-factor", INDEX_RULES,
           "    if not isinstance(c, Const) or not is_sign(c.expr):\n",
           "    if not isinstance(c, Const):\n",
           "rule |c s| = |s|: the factor's square is 1", tests=(MEASURE_TESTS,)),
    # --- every side condition of the rules and combinators removed, one at a time (negative controls in
    # tests/test_side_conditions.py), and the rigorous numerics' budget and pivots -------------------------
    Mutant("cov-sign-evenness-at-u", CHANGE_OF_VARIABLES,
           'else (-u, 1, "s(-u) = s(u)")',
           'else (u, 1, "s(-u) = s(u)")',
           "change of variables: a sign's family needs s(-u) = s(u), tested at -u", tests=("tests/test_side_conditions.py",)),
    Mutant("cov-unmapped-family-read", CHANGE_OF_VARIABLES,
           "            and invariance.rhs == function.body and not unmapped_families(transformation, function.body)):",
           "            and invariance.rhs == function.body):",
           "change of variables: the loss reads no family T leaves alone", tests=("tests/test_side_conditions.py",)),
    Mutant("relu-homogeneity-any-factor", INDEX_RULES,
           '        return "the result is not c·ReLU(s)"\n    if not isinstance(c, Const) or c.expr.is_positive is not True:\n',
           '        return "the result is not c·ReLU(s)"\n    if not isinstance(c, Const):\n',
           "ReLU homogeneity: the factor is positive", tests=("tests/test_side_conditions.py",)),
    Mutant("activation-homogeneity-any-factor", INDEX_RULES,
           '        return "the result is not c·σ(s)"\n    if not isinstance(c, Const) or c.expr.is_positive is not True:\n',
           '        return "the result is not c·σ(s)"\n    if not isinstance(c, Const):\n',
           "activation homogeneity: the factor is positive", tests=("tests/test_side_conditions.py",)),
    Mutant("indicator-homogeneity-any-factor", INDEX_RULES,
           '        return "the result is not 1[s > 0]"\n    if not isinstance(c, Const) or c.expr.is_positive is not True:\n',
           '        return "the result is not 1[s > 0]"\n    if not isinstance(c, Const):\n',
           "indicator homogeneity: the factor is positive", tests=("tests/test_side_conditions.py",)),
    Mutant("root-negative-root", INDEX_RULES,
           "    if not (m.expr.is_positive is True and is_rational_zero(sp.expand(residual))):",
           "    if not is_rational_zero(sp.expand(residual)):",
           "root homogeneity: the factor taken out is the positive root", tests=("tests/test_side_conditions.py",)),
    Mutant("root-any-power", INDEX_RULES,
           "    if not (m.expr.is_positive is True and is_rational_zero(sp.expand(residual))):",
           "    if not m.expr.is_positive is True:",
           "root homogeneity: the factor taken out is k^p", tests=("tests/test_side_conditions.py",)),
    # killed by the refusal's reason only (the step is refused by another condition): equivalent in verdicts
    Mutant("root-factor-not-positive", INDEX_RULES,
           "    if not (isinstance(k, Const) and k.expr.is_positive is True):",
           "    if not isinstance(k, Const):",
           "root homogeneity: the factor inside is positive", tests=("tests/test_side_conditions.py",),
           equivalent="the factor taken out is checked to be m > 0 with m^2 = k (or m^2 k = 1), which makes k = m^2 "
                      "(or 1/m^2) > 0: no step that passes the other checks has k <= 0"),
    Mutant("chain-rule-scale-up-to-sign", INDEX_RULES,
           '    return None if scale == found[0] else f"the factor is not t_a read from {g.point.name}"',
           '    return None if scale in (found[0], Const(-found[0].expr)) else f"the factor is not t_a read from {g.point.name}"',
           "chain rule for a scaled coordinate: the factor is t_a, its sign included", tests=("tests/test_side_conditions.py",)),
    Mutant("chain-rule-other-coordinate", INDEX_RULES,
           "    if found[1] != c:\n",
           "    if False:\n",
           "chain rule for a scaled coordinate: T maps a to a multiple of the coordinate differentiated",
           tests=("tests/test_side_conditions.py",)),
    Mutant("constant-factor-any-factor", INDEX_RULES,
           '    if not isinstance(c, Const):\n        return "the factor is not a scalar free of the parameters"',
           '    if False:\n        return "the factor is not a scalar free of the parameters"',
           "constant factor: the factor is a scalar free of theta", tests=("tests/test_side_conditions.py",)),
    Mutant("derivative-of-sum-own-index", INDEX_RULES,
           "    if total.index in {index_variable(i) for i in before.coordinate.indices}:",
           "    if False:",
           "derivative of a sum: the summation index is no index of the coordinate", tests=("tests/test_side_conditions.py",)),
    Mutant("sum-factor-dependent", INDEX_RULES,
           "    if before.index in free_indices(c):",
           "    if False:",
           "sum factor: the factor is free of the summation index", tests=("tests/test_side_conditions.py",)),
    Mutant("arithmetic-divides-by-zero", INDEX_RULES,
           "            if denominator is not None and denominator != 1 and denominator.is_nonzero is not True:",
           "            if False:",
           "arithmetic: only scalars known to be non-zero are inverted", tests=("tests/test_side_conditions.py",)),
    Mutant("last-factor-any-layer", INDEX_RULES,
           "    if not (offset >= 1 and (rest == 0 or rest.is_Symbol)):",
           "    if False:",
           "last factor of a product over the layers: the last layer is at least 1", tests=("tests/test_side_conditions.py",)),
    Mutant("coordinate-other-family", INDEX_RULES,
           "    if a.family != b.family or len(a.indices) != len(b.indices):",
           "    if len(a.indices) != len(b.indices):",
           "coordinate derivative: a delta only within the coordinate's family", tests=("tests/test_side_conditions.py",)),
    # killed by the refusal's reason only: equivalent in verdicts
    Mutant("reindexing-scalar-in-index", INDEX_RULES,
           "    if any(j in c.indices for c in constants(after.body)):",
           "    if False:",
           "reindexing: no scalar depends on the permuted index", tests=("tests/test_side_conditions.py",),
           equivalent="the summand test renames the scalars' indices with the entries' (substitute_index), so a "
                      "scalar of j left unpermuted fails it, and one permuted with them is a true reordering"),
    Mutant("delta-other-range", INDEX_RULES,
           "                if ranges.get(target) != before.size:",
           "                if False:",
           "delta contraction: the index contracted onto runs over the sum's range", tests=("tests/test_side_conditions.py",)),
    Mutant("delta-captured", INDEX_RULES,
           "                if index_variable(target) in bound_indices(rest):",
           "                if False:",
           "delta contraction: no sum in the summand captures the index", tests=("tests/test_side_conditions.py",)),
    # the rule's validity check tries this very use too: with the condition removed the chain is still not proved
    # (the rule is not valid), and the test notices the refusal's reason changed
    Mutant("interchange-same-index", INDEX_RULES,
           "    if outer.index == inner.index:",
           "    if False:",
           "interchange of sums: the two sums bind different indices", tests=("tests/test_side_conditions.py",)),
    # as above: the validity check of the renaming tries a captured free name
    Mutant("renaming-free-captured", INDEX_RULES,
           "    if new in free_indices(before):",
           "    if False:",
           "renaming a summation index: the new name is free nowhere in the sum", tests=("tests/test_side_conditions.py",)),
    Mutant("renaming-size-names-index", INDEX_RULES,
           "    if any(_mentions(text, name) for text in _sizes_of(before.body) for name in (old, new)):",
           "    if False:",
           "renaming a summation index: no size inside names the old or the new index", tests=("tests/test_side_conditions.py",)),
    Mutant("spectral-homogeneity-any-factor", "symbolic/trusted/axioms/norm_rules.py",
           '    if not isinstance(c, Const) or c.expr.is_positive is not True:\n        return "the factor is not known to be a positive scalar"\n    reached',
           '    if not isinstance(c, Const):\n        return "the factor is not known to be a positive scalar"\n    reached',
           "spectral norm homogeneity: the factor is positive", tests=("tests/test_side_conditions.py",)),
    Mutant("spectral-homogeneity-bound-index", "symbolic/trusted/axioms/norm_rules.py",
           "    if reached:\n",
           "    if False:\n",
           "spectral norm homogeneity: the factor is free of the bound indices", tests=("tests/test_side_conditions.py",)),
    Mutant("spectral-sign-any-factor", "symbolic/trusted/axioms/norm_rules.py",
           "    if not isinstance(s, Const) or not is_sign(s.expr):",
           "    if not isinstance(s, Const):",
           "spectral norm of a sign: the factor's square is 1", tests=("tests/test_side_conditions.py",)),
    Mutant("spectral-sign-both-indices", "symbolic/trusted/axioms/norm_rules.py",
           "    if len(free_indices(s) & set(before.bound)) > 1:",
           "    if False:",
           "spectral norm of a sign: the sign depends on one bound index only", tests=("tests/test_side_conditions.py",)),
    Mutant("spectral-permutation-scalar", "symbolic/trusted/axioms/norm_rules.py",
           "            if any(index in c.indices for c in constants(after.body)):",
           "            if False:",
           "spectral norm of a permutation: no scalar depends on the permuted index", tests=("tests/test_side_conditions.py",),
           equivalent="the matrix test renames the scalars' indices with the entries' (substitute_index): a scalar of b "
                      "left unpermuted fails it, one permuted with the entries is the same matrix with its columns "
                      "permuted, whose norm is the same"),
    Mutant("pencil-of-one-matrix", "symbolic/every_size/congruence.py",
           '        return Verdict(Status.UNDECIDED, claim, reason="a pencil is two matrices")\n    laws = _congruence_laws',
           '        pass\n    laws = _congruence_laws',
           "pencil: the laws of both matrices H and G", tests=("tests/test_side_conditions.py",)),
    Mutant("enclosure-budget-reports-lower", "symbolic/numerics/enclosure.py",
           "        upper = -heap[0][0]\n",
           "        upper = -heap[0][0] if -heap[0][0] - best <= tolerance else best\n",
           "interval enclosure: a budget that runs out reports the boxes' upper end, not the best value found",
           tests=("tests/test_side_conditions.py",)),
    Mutant("interval-budget-reports-lower", "symbolic/numerics/interval.py",
           '    upper = -heap[0][0] if heap else float("-inf")\n',
           '    upper = -heap[0][0] if heap and boxes < budget else float(best.upper())\n',
           "branch and bound: a budget that runs out reports the boxes' upper end, not the best value found",
           tests=("tests/test_side_conditions.py",)),
    Mutant("rank-pivot-holds-zero", "symbolic/networks/log_scale_jacobian.py",
           "                    if c not in used_columns and _certainly_nonzero(value):",
           "                    if c not in used_columns and abs(value).mid() != 0:",
           "certified rank: a pivot's ball excludes 0", tests=("tests/test_side_conditions.py",)),
    # --- the oracles' loopholes, each closed with a negative control ------------------------------------
    Mutant("limit-two-sided-read-from-the-right", "symbolic/decision/limit_oracle.py",
           "    for asked in (side,) if side else tuple(SIDES):\n",
           "    for asked in (side,) if side else (\"+\",):\n",
           "sympy limits: a limit is two-sided unless the statement names a side", tests=(CONTROLS,)),
    Mutant("limit-sides-not-compared", "symbolic/decision/limit_oracle.py",
           "    if not all(_equal_values(values[0], other) for other in values[1:]):\n",
           "    if False:\n",
           "sympy limits: both one-sided limits exist and are equal", tests=(CONTROLS,)),
    Mutant("z3-domain-asserted-everywhere", "symbolic/decision/solver_oracle.py",
           "    translation.constraints = translation.ranges\n",
           "    translation.constraints = translation.ranges + translation.constraints\n",
           "z3 unsat: a denominator is asserted only inside the comparison that evaluates it", tests=(CONTROLS,)),
    Mutant("z3-negation-dropped", "symbolic/decision/solver_oracle.py",
           "        return self.comparison(condition, _COMPARISONS[kind][negated])\n",
           "        return self.comparison(condition, _COMPARISONS[kind][False])\n",
           "z3 unsat: a negation is pushed down to the comparisons", tests=(CONTROLS,)),
    Mutant("assumptions-side-not-real", "symbolic/decision/oracles.py",
           "    if not all(_fact(side, \"is_real\") is True for side in (lhs, rhs)):\n",
           "    if False:\n",
           "sympy assumptions: each side is a finite real as written", tests=(CONTROLS,)),
    Mutant("assumptions-nonnegative-as-nonzero", "symbolic/decision/oracles.py",
           "               \"!=\": \"is_nonzero\"}\n",
           "               \"!=\": \"is_nonnegative\"}\n",
           "sympy assumptions: x >= 0 gives no x != 0", tests=(CONTROLS,)),
    Mutant("exact-evaluation-unknown-as-true", "symbolic/decision/oracles.py",
           "    if holds is True:\n",
           "    if holds is not False:\n",
           "exact evaluation: a sign sympy cannot settle decides nothing", tests=(CONTROLS,)),
    Mutant("rational-comparison-strict-as-weak", "symbolic/decision/oracles.py",
           "_COMPARE = {\"<\": lambda a, b: a < b,",
           "_COMPARE = {\"<\": lambda a, b: a <= b,",
           "exact rational comparison: 1 < 1 fails", tests=(CONTROLS,)),
    Mutant("manifest-sign-decides-strict", "symbolic/decision/oracles.py",
           "    if getattr(statement, \"relation\", None) != \">=\":\n",
           "    if getattr(statement, \"relation\", None) not in (\">=\", \">\"):\n",
           "manifest sign test: it decides >= only, never > (x**2 > 0 fails at 0)", tests=(CONTROLS,)),
    Mutant("manifest-sign-unknown-symbol", "symbolic/decision/positivity.py",
           "        return bool(expr.is_nonnegative)\n",
           "        return expr.is_nonnegative is not False\n",
           "manifest sign test: a symbol of unknown sign is not >= 0", tests=(CONTROLS,)),
    Mutant("spectral-norm-within-the-separation", "symbolic/numerics/agreement.py",
           "        if high > target + noise:\n",
           "        if high >= target - noise:\n",
           "two-precision agreement: a norm within the separation of its bound is decided exactly",
           tests=(CONTROLS,)),
    Mutant("eigenpairs-reads-every-fact", "symbolic/numerics/eigenpairs.py",
           "    if unread is not None:\n",
           "    if False:\n",
           "exact eigenpairs: a symbol with a fact the checker does not honour is refused", tests=(CONTROLS,)),
    # --- the decision procedure's loopholes -------------------------------------------------------------
    Mutant("residue-zero-left-out", "symbolic/decision/residues.py",
           "        found.append(sp.GreaterThan(value - (1 if facts.lower_strict else 0), 0, evaluate=False))",
           "        found.append(sp.GreaterThan(value - 1, 0, evaluate=False))",
           "residue split: a non-negative integer includes 0", tests=(LOOPHOLES,)),
    Mutant("matcher-variable-bound-twice", "symbolic/kernel/matching.py",
           "        return binding.setdefault(pattern, index) == index",
           "        binding.setdefault(pattern, index)\n        return True",
           "matching: one index variable binds one index", tests=(MATCHING,)),
    Mutant("matcher-scalar-bound-twice", "symbolic/kernel/matching.py",
           "binding.setdefault(str(pattern), str(term)) == str(term)",
           "binding.setdefault(str(pattern), str(term)) is not None",
           "matching: one scalar variable binds one scalar", tests=(MATCHING,)),
    Mutant("invariance-agree-from-overlap", "symbolic/measures/invariance.py",
           "        return \"agree\" if narrow else \"unknown\"",
           "        return \"agree\"",
           "invariance: overlapping enclosures agree only when narrow", tests=(LOOPHOLES,)),
    Mutant("invariance-touching-differ", "symbolic/measures/invariance.py",
           "        if a.high < b.low or b.high < a.low:",
           "        if a.high <= b.low or b.high <= a.low:",
           "invariance: only disjoint enclosures differ", tests=(LOOPHOLES,)),
    Mutant("kinks-from-the-sides", IDENTITY,
           "for expr in (difference, self.lhs, self.rhs)]",
           "for expr in (self.lhs, self.rhs)]",
           "kink witnesses: read from the difference after cancellation (decoys take no budget)",
           tests=(LOOPHOLES,)),
    Mutant("derivative-of-a-kink-read", IDENTITY,
           "        rough = _not_smooth(node.expr, set(node.variables))",
           "        rough = None",
           "a derivative of a kink is not carried out", tests=(LOOPHOLES,)),
    Mutant("any-infinity-vacuous", IDENTITY,
           "    if remainder.has(*_INFINITIES) and _infinite_outside_branches(remainder):",
           "    if remainder.has(*_INFINITIES):",
           "an infinity inside an unsplit Piecewise makes no region vacuous", tests=(LOOPHOLES,)),
    # --- the kernel's entry points ----------------------------------------------------------------------
    Mutant("refutation-takes-a-transcendental-point", RULES,
           "    return value if value.is_algebraic is True and value.is_real is True else None\n",
           "    return value\n",
           "refutation: a point is an exact real algebraic number (pi, I, oo refute nothing)",
           tests=(STATEMENT_ATTACKS,)),
    Mutant("statement-of-a-subclass", "symbolic/logic/statements.py",
           "    if type(statement) not in STATEMENT_TYPES:\n",
           "    if not isinstance(statement, STATEMENT_TYPES):\n",
           "a statement is of the kernel's own types, never a subclass", tests=(STATEMENT_ATTACKS,)),
    Mutant("symbol-names-shared", "symbolic/logic/statements.py",
           "        if named.setdefault(name, symbol) != symbol:\n",
           "        if False:\n",
           "two symbols of one name are refused", tests=(STATEMENT_ATTACKS,)),
    Mutant("a-frozen-map-that-changes", "symbolic/logic/statements.py",
           "        return FrozenMap({key: frozen(item) for key, item in value.items()})\n",
           "        return {key: frozen(item) for key, item in value.items()}\n",
           "a mapping a theorem holds cannot be changed", tests=(STATEMENT_ATTACKS,)),
    Mutant("a-side-that-prints-otherwise", "symbolic/logic/statements.py",
           "        if not isinstance(side, sp.Basic):\n",
           "        if False:\n",
           "a statement's sides are the sympy expressions checked and printed", tests=(STATEMENT_ATTACKS,)),
    Mutant("a-statement-evaluated-on-its-way", "symbolic/logic/statements.py",
           "        return Equation, (AsWritten(self.lhs), AsWritten(self.rhs))\n",
           "        return Equation, (self.lhs, self.rhs)\n",
           "a statement sent to another process arrives as written", tests=(STATEMENT_ATTACKS,)),
    Mutant("a-theorem-changed-after-minting", "symbolic/kernel/theorem.py",
           "    return found is not None and found[0] is theorem and found[1] == _shape(theorem)\n",
           "    return found is not None and found[0] is theorem\n",
           "a theorem holds the very statement it was minted with", tests=(STATEMENT_ATTACKS,)),
    Mutant("declared-from-a-namespace-of-ones-own", PROVENANCE,
           "    if namespace is not vars(loaded):\n",
           "    if False:\n",
           "a declaration runs in the trusted module's own namespace", tests=(STATEMENT_ATTACKS,)),
    Mutant("declared-after-the-import", PROVENANCE,
           "    return not while_importing or getattr(",
           "    return True or getattr(",
           "an oracle or a scheme is declared while its module is imported", tests=(STATEMENT_ATTACKS,)),
    Mutant("a-fraction-printed-bare", "symbolic/printing/sympy_text.py",
           "            return \"(%s)\" % self._print(item)\n",
           "            return self._print(item)\n",
           "a fraction bound by an operator prints in parentheses", tests=(STATEMENT_ATTACKS,)),
    Mutant("a-symmetry-that-changes", "symbolic/networks/maps.py",
           "        raise AttributeError(f\"a symmetry cannot be changed once built (its {name!r} included)\")\n",
           "        object.__setattr__(self, name, value)\n",
           "a symmetry a theorem holds cannot be changed", tests=(STATEMENT_ATTACKS,)),
    # --- the command line keeps every assumption --------------------------------------------------------
    Mutant("accumulate-keeps-last", "proofs/commands/arguments.py",
           "setattr(namespace, self.dest, so_far + list(values))",
           "setattr(namespace, self.dest, list(values))",
           "a repeated list option accumulates", tests=(CLI_ASSUMPTIONS,)),
    Mutant("once-keeps-last", "proofs/commands/arguments.py",
           "given[self.dest] != values:",
           "given[self.dest] != values and False:",
           "a single-valued option given two values is refused", tests=(CLI_ASSUMPTIONS,)),
    Mutant("refuted-without-facts", "symbolic/kernel/verdict.py",
           "if self.claim and self.status is not Status.PROVED and self.facts:",
           "if self.claim and self.status is Status.UNDECIDED and self.facts:",
           "a REFUTED line prints the facts it was checked under", tests=(CLI_ASSUMPTIONS,)),
    Mutant("json-without-rests-on", "proofs/commands/check_command.py",
           "**({\"rests_on\": verdict.rests_on} if verdict.status is Status.PROVED else {}),",
           "",
           "check --json lists what a PROVED rests on", tests=(CLI_ASSUMPTIONS,)),
    # --- the inference schemes' side conditions ----------------------------------------------------------
    Mutant("linear-map-scheme-any-map", "symbolic/trusted/schemes/linear_maps.py",
           "    if monomial is None and not invertible_linear(symmetry):\n",
           "    if False:\n",
           "chain rule for a linear map: T theta = M theta with M invertible", tests=(SCHEMES,)),
    Mutant("linear-map-scheme-any-premise", "symbolic/trusted/schemes/linear_maps.py",
           "    if not (getattr(statement, \"lhs\", None) == sp.sympify(lhs).xreplace(plain)\n",
           "    if False and not (getattr(statement, \"lhs\", None) == sp.sympify(lhs).xreplace(plain)\n",
           "chain rule for a linear map: the premise is L(T theta) = L(theta) for this model, map, loss and N",
           tests=(SCHEMES,)),
    # --- Coq's answers in three kinds ----------------------------------------------------------------------
    Mutant("coq-nonzero-hypothesis-as-positive", "symbolic/coq/printer.py",
           "facts.append(f\"{text} <> 0\")",
           "facts.append(f\"0 < {text}\")",
           "Coq printer: a non-zero symbol's hypothesis is x <> 0", tests=(COQ_ANSWERS,)),
    Mutant("coq-not-checked-is-a-disagreement", "symbolic/coq/runner.py",
           "    if verdict.status is Status.PROVED and answer.refuted:",
           "    if verdict.status is Status.PROVED and not answer.checked:",
           "Coq: a failed proof is not checked, never a disagreement", tests=(COQ_ANSWERS,)),
    Mutant("coq-refutation-taken-on-the-projects-word", "symbolic/coq/runner.py",
           "if refuted and number in refuted.outcomes and refuted.outcomes[number].accepted:",
           "if refuted and number in refuted.outcomes:",
           "Coq: a refutation is a lemma Coq accepted, not the point the project proposed", tests=(COQ_ANSWERS,)),
    Mutant("coq-wall-clock-cap", "symbolic/coq/library.py",
           "over = \"cpu\" if group_cpu(group) >= cap else",
           "over = \"cpu\" if time.monotonic() - started >= cap else",
           "Coq: the cap counts CPU seconds, not the time coqc waits", tests=(COQ_ANSWERS,)),
    Mutant("coq-no-retry", "symbolic/coq/library.py",
           "    for cap in (seconds, RETRY * seconds):",
           "    for cap in (seconds,):",
           "Coq: a lemma out of time is retried alone with a longer cap", tests=(COQ_ANSWERS,)),
    Mutant("coq-chain-failure-called-refuted", "symbolic/coq/chains.py",
           "result.answers[export.name] = CHECKED if outcome.accepted else not_checked(export, outcome)",
           "result.answers[export.name] = CHECKED if outcome.accepted else \"refuted at step 1\"",
           "Coq chains: a step beyond the tactics is not checked", tests=(COQ_ANSWERS,)),
    Mutant("coq-statement-error-as-tactic-failure", "symbolic/coq/runner.py",
           "    if outcome.line <= STATEMENT_LINES or SYNTAX_ERROR.match(outcome.message):",
           "    if SYNTAX_ERROR.match(outcome.message):",
           "Coq: a printed lemma that does not compile says so, with Coq's message", tests=(COQ_ANSWERS,)),
    # the rule of transitivity, the reading of where an expression is defined, the decided relation
    Mutant("transitivity-steps-need-not-meet", "symbolic/kernel/transitivity.py",
           "        if not _meet(statements[number - 1], statements[number]):",
           "        if False:",
           "transitivity: each step starts where the one before ends, as written", tests=(DERIVATIONS,)),
    Mutant("transitivity-up-and-down", "symbolic/kernel/transitivity.py",
           "    if up and down:", "    if False:",
           "transitivity: a chain that goes up and down proves no relation of its ends", tests=(DERIVATIONS,)),
    Mutant("transitivity-strict-lost", "symbolic/kernel/transitivity.py",
           "    return (strict if any(len(r) == 1 for r in ordered) else strict + \"=\"), \"\"",
           "    return (strict if all(len(r) == 1 for r in ordered) else strict + \"=\"), \"\"",
           "transitivity: any strict step makes the conclusion strict", tests=(DERIVATIONS,)),
    Mutant("transitivity-ignores-intermediate-domain", "symbolic/kernel/transitivity.py",
           "    if missing:\n        return _undecided(", "    if False:\n        return _undecided(",
           "transitivity: an intermediate defined on less than the ends needs its side conditions proved",
           tests=(DERIVATIONS,)),
    Mutant("definedness-denominator-total", "symbolic/logic/definedness.py",
           "            return (NONZERO, node.base) if exponent < 0 else None", "            return None",
           "definedness: a denominator b needs b != 0", tests=(DERIVATIONS,)),
    Mutant("relation-failure-of-le-is-ge", "symbolic/decision/inequality.py",
           "FAILURE = {\"<\": sp.Ge, \"<=\": sp.Gt,", "FAILURE = {\"<\": sp.Gt, \"<=\": sp.Gt,",
           "decided relation: the failure of < is >=", tests=(DERIVATIONS,)),
    Mutant("relation-points-not-compared", "symbolic/decision/inequality.py",
           "        if not holds(*values):\n            return _refutation(statement, point, values, \"the relation fails at an exact point\")",
           "        if False:\n            return _refutation(statement, point, values, \"the relation fails at an exact point\")",
           "decided relation: an exact point where the relation fails refutes it", tests=(DERIVATIONS,)),
    # --- the exact exp-log identity test ----------------------------------------------------------------
    Mutant("exp-log-value-at-origin-unchecked", "symbolic/decision/exp_log.py",
           "    if not _zero_at_origin(F, x, t):",
           "    if False:",
           "exp-log: lhs - rhs = 0 at x = 0 exactly, beside a zero derivative (softplus(x) - softplus(-x) = x + "
           "10^-60)",
           tests=("tests/test_check_exp_log.py", "tests/test_oracle_negative_controls.py")),
    Mutant("exp-log-derivative-unchecked", "symbolic/decision/exp_log.py",
           "    if not is_rational_zero(derivative):",
           "    if False:",
           "exp-log: the derivative of lhs - rhs is the zero rational function (a difference of 10^-60 at every "
           "x but 0)",
           tests=("tests/test_check_exp_log.py", "tests/test_oracle_negative_controls.py")),
]


def copy_repository(target: Path) -> None:
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns(
                "__pycache__", ".pytest_cache", "results"))
        else:
            shutil.copy2(source, target / name)


def apply(mutant: Mutant, copy: Path) -> str | None:
    """Apply the mutant in the copy; None, or why it could not be applied."""
    path = copy / mutant.file
    if not path.exists():
        return f"file {mutant.file} not found"
    text = path.read_text()
    found = text.count(mutant.original)
    if found != 1:
        return "snippet not found" if found == 0 else f"snippet found {found} times"
    path.write_text(text.replace(mutant.original, mutant.replacement))
    return None


def run_tests(copy: Path, tests, timeout: float) -> tuple[str, float]:
    """('passed' | the first failing test | 'timeout' | 'error: ...', seconds)."""
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=copy, capture_output=True, text=True, timeout=timeout,
                              env=environment)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - start
    seconds = time.perf_counter() - start
    if done.returncode == 0:
        return "passed", seconds
    failed = re.search(r"^(?:FAILED|ERROR) (\S+)", done.stdout, re.MULTILINE)
    if done.returncode == 1 and failed:
        return failed.group(1).split("::", 1)[-1], seconds
    last = (done.stdout.strip().splitlines() or done.stderr.strip().splitlines() or ["?"])[-1]
    return f"error: {last[:60]}", seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="run only these mutants")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per test run")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    unknown = set(args.names) - {m.name for m in MUTANTS}
    if unknown:
        print(f"mutation.py: unknown mutant {sorted(unknown)[0]}", file=sys.stderr)
        return 2
    if args.list:
        for m in chosen:
            print(f"{m.name:40} {m.file:40} {m.check}")
        return 0
    print(f"{len(chosen)} mutants; python {sys.version.split()[0]}, {os.cpu_count()} cores")
    baseline = {}
    with tempfile.TemporaryDirectory(prefix="mutation-") as scratch:
        clean = Path(scratch) / "clean"
        copy_repository(clean)
        for tests in dict.fromkeys(m.tests for m in chosen):
            baseline[tests] = run_tests(clean, tests, args.timeout)
            outcome, seconds = baseline[tests]
            print(f"baseline {' '.join(tests)}: {outcome} in {seconds:.1f} s")
            if outcome != "passed":
                print("the tests fail without a mutant: no mutant can be judged", file=sys.stderr)
                return 1
        print()
        header = f"{'mutant':38} {'file':16} {'killed by':58} {'time s':>7} {'baseline s':>10}"
        print(header)
        print("-" * len(header))
        killed, judged, rows = 0, 0, []
        for number, mutant in enumerate(chosen):
            copy = Path(scratch) / f"mutant{number}"
            copy_repository(copy)
            problem = apply(mutant, copy)
            if problem is not None:
                outcome, seconds = f"NOT APPLIED: {problem}", 0.0
            else:
                outcome, seconds = run_tests(copy, mutant.tests, args.timeout)
                judged += 1
                if outcome == "passed":
                    outcome = "SURVIVED" + (f" (equivalent: {mutant.equivalent})"
                                            if mutant.equivalent else "")
                elif outcome.startswith("error"):
                    outcome = f"NOT KILLED BY A TEST ({outcome})"
                else:
                    killed += 1
            shutil.rmtree(copy, ignore_errors=True)
            rows.append((mutant, outcome))
            print(f"{mutant.name:38} {Path(mutant.file).name:16} {outcome:58} {seconds:7.1f} "
                  f"{baseline[mutant.tests][1]:10.1f}", flush=True)
    not_applied = len(chosen) - judged
    equivalent = sum(m.equivalent != "" and o.startswith("SURVIVED") for m, o in rows)
    print()
    print(f"kill rate: {killed}/{judged} = {100 * killed / max(judged, 1):.1f} % of the mutants applied; "
          f"{killed}/{judged - equivalent} = {100 * killed / max(judged - equivalent, 1):.1f} % of "
          f"those not shown equivalent ({equivalent} equivalent, {not_applied} not applied)")
    for mutant, outcome in rows:
        if not outcome.startswith(("SURVIVED", "NOT")):
            continue
        print(f"  {mutant.name}: {outcome} -- breaks: {mutant.check}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
