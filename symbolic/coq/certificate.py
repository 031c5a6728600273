"""A Coq lemma and its proof script for one identity claim lhs = rhs, and, when its proof fails,
a lemma that refutes it at a point.

Two strategies, tried in this order inside one ``first [...]`` (coqc runs under a cap on its CPU
time, ``symbolic.coq.library.timed_coqc``):

  guided   every Max, Min and Abs rewritten into ReLU atoms, every positive scale pulled out of
           each ReLU (ReLU(c z) = c ReLU(z) for c > 0, with ``field`` checking the argument is
           c z), each atom's argument put in one canonical form (sign-normalised with
           ReLU(-z) = -z + ReLU(z)), the arguments of each undefined function (a loss l) too
           (``f_equal``), then one ``field`` with the atoms opaque;
  split    a case split on the sign of every atom's argument, each region closed by
           ``field``/``ring``/``lra``, empty regions by ``nra`` or ``psatz`` (degree 3, then 4).

The guide is computed here with sympy, but it only *proposes* steps: each one is an ``assert`` that
Coq proves before it is used, so a wrong proposal makes the proof fail, never a false lemma pass.

A proof that fails refutes nothing.  The refutation is a lemma of its own (``refutation``): there is
a point where the hypotheses hold and the two sides as written differ.  The project proposes the
point (rational values, a polynomial for each undefined function) by exact evaluation; Coq proves
the lemma with every sign at the point decided by ``lra``, so a wrong proposal is not proved.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import sympy as sp
from sympy.core.function import AppliedUndef

from symbolic.coq.printer import OutsideFragment, Printer, Statement, statement
from symbolic.relu import ReLU, split_positive_factor

# The tactics of a refutation at a point (a certificate's or an exported chain's): Coq decides
# every comparison of numbers there.
AT_POINT = r"""
(* a refutation at a point: every negation written as a product by the literal -1 (lra reads an
   inverse of constants only without negations), each innermost Max, Min and Abs split on its
   argument's sign, the case the point contradicts closed by lra, then the hypotheses and the
   differing sides by lra (lia for a size) *)
Lemma opp_neg_one (a : R) : - a = IZR (-1) * a.
Proof. ring. Qed.
Ltac no_sign u := lazymatch u with context [Rle_dec _ _] => fail | context [Rcase_abs _] => fail | _ => idtac end.
Ltac signs_at_point := repeat match goal with
  | |- context [Rle_dec ?u ?v] => no_sign u; no_sign v; destruct (Rle_dec u v); try (exfalso; lra)
  | |- context [Rcase_abs ?u] => no_sign u; destruct (Rcase_abs u); try (exfalso; lra)
  end.
Ltac at_point := cbv beta; unfold Rmax, Rmin, Rabs; repeat rewrite opp_neg_one; signs_at_point;
                 repeat split; first [ lra | lia | intro; lra ].
"""

# What every batch of certificates starts with: the rewriting lemmas and the closing tactics.
HEADER = r"""Require Import Reals Lra Psatz Lia.
Open Scope R_scope.

(* ReLU(c z) = c ReLU(z) for c > 0 *)
Lemma relu_hom (c z : R) : 0 < c -> Rmax (c * z) 0 = c * Rmax z 0.
Proof. intros Hc. unfold Rmax. destruct (Rle_dec (c * z) 0), (Rle_dec z 0); nra. Qed.
(* ReLU(-z) = -z + ReLU(z): of z and -z one atom is kept *)
Lemma relu_flip (z : R) : Rmax (- z) 0 = - z + Rmax z 0.
Proof. unfold Rmax. destruct (Rle_dec (- z) 0), (Rle_dec z 0); lra. Qed.
(* Max, Min and Abs in ReLU form *)
Lemma max_relu (a b : R) : Rmax a b = b + Rmax (a - b) 0.
Proof. unfold Rmax. destruct (Rle_dec a b), (Rle_dec (a - b) 0); lra. Qed.
Lemma min_relu (a b : R) : Rmin a b = a - Rmax (a - b) 0.
Proof. unfold Rmin, Rmax. destruct (Rle_dec a b), (Rle_dec (a - b) 0); lra. Qed.
Lemma abs_relu (z : R) : Rabs z = Rmax z 0 + Rmax (- z) 0.
Proof. unfold Rabs, Rmax. destruct (Rcase_abs z), (Rle_dec z 0), (Rle_dec (- z) 0); lra. Qed.
(* the rectifier of a number is its value *)
Lemma relu_num (z v : R) : (z <= 0 /\ v = 0) \/ (0 < z /\ v = z) -> Rmax z 0 = v.
Proof. unfold Rmax. destruct (Rle_dec z 0); lra. Qed.

(* a denominator is non-zero by a premise or by a sign fact *)
Ltac nonzero := first [ assumption | intro; lra | intro; nra ].
(* one field (or ring, lra) with every non-arithmetic subterm an atom *)
Ltac close := first [ field; repeat split; nonzero | ring | lra ].
(* 0 < c for a product of positive factors *)
Ltac pos := repeat first [ apply Rmult_lt_0_compat | apply Rinv_0_lt_compat | apply pow_lt ];
            first [ assumption | lra ].
(* the sign split: a case on the argument of every Max, Min and Abs *)
Ltac split_signs := unfold Rmax, Rmin, Rabs; repeat match goal with
  | |- context [Rle_dec ?u ?v] => destruct (Rle_dec u v)
  | |- context [Rcase_abs ?u] => destruct (Rcase_abs u)
  end.
Ltac leaf := first [ close | nra | (exfalso; nra) | psatz R 3 | (exfalso; psatz R 3) | psatz R 4 ].
""" + AT_POINT


class Guide:
    """The guided strategy's steps: each rewrites every occurrence of one subterm in the goal."""

    def __init__(self, printer: Printer):
        self.printer = printer
        self.steps: list[str] = []
        self.done: dict[str, sp.Expr] = {}     # printed old subterm -> its replacement

    def text(self, e: sp.Expr) -> str:
        return self.printer.term(e)

    def step(self, old: str, new: sp.Expr, proof: str) -> sp.Expr:
        """Coq proves old = new, then rewrites every occurrence of old in the goal."""
        number = len(self.steps)
        self.steps.append(f"assert (E{number} : {old} = {self.text(new)}) by ({proof}); rewrite E{number}")
        self.done[old] = new
        return new

    def rewrite(self, e: sp.Expr) -> sp.Expr:
        """e with its ReLU, Max, Min and Abs nodes in canonical ReLU form, bottom-up; the rebuilt
        nodes keep their structure (evaluate=False), so their text is the goal's text."""
        if e.is_Atom:
            return e
        args = [self.rewrite(a) for a in e.args]
        if isinstance(e, (sp.Max, sp.Min)):
            # max(a, b, c) is printed max(a, max(b, c)): pair by pair, the inner pair first
            return self.extremum(isinstance(e, sp.Max), args)
        node = e if all(a is b for a, b in zip(args, e.args)) else e.func(*args, evaluate=False)
        if self.text(node) in self.done:
            return self.done[self.text(node)]
        if isinstance(node, ReLU):
            return self.relu(node)
        if isinstance(node, sp.Abs):
            return self.absolute(node)
        if isinstance(node, AppliedUndef):
            return self.application(node)
        if isinstance(node, sp.Pow) and node.exp == sp.S.Half:
            return self.root(node)
        if isinstance(node, sp.exp):
            return self.exponential(node)
        return node

    def relu(self, node: ReLU) -> sp.Expr:
        """ReLU(A) -> c ReLU(z) (or c (-z + ReLU(z)) when A = -c z), z canonical, c > 0."""
        argument = node.args[0]
        scale, rest = split_positive_factor(sp.expand(argument))
        rest = sp.expand(rest)
        if rest.is_Number:
            return node                 # a constant rectifier: left to the split
        flip = rest.could_extract_minus_sign()
        z = sp.expand(-rest) if flip else rest
        atom = ReLU(z)
        body = sp.Add(sp.Mul(-1, z, evaluate=False), atom, evaluate=False) if flip else atom
        new = body if scale == 1 else sp.Mul(scale, body, evaluate=False)
        if self.text(new) == self.text(node):
            return node
        a, c, zt = self.text(argument), self.text(scale), self.text(z)
        inner = f"(- {zt})" if flip else zt
        if scale == 1:
            proof = f"replace {a} with {inner} by close"
        else:
            proof = f"replace {a} with ({c} * {inner}) by close; rewrite (relu_hom {c} {inner}) by pos"
        proof += f"; rewrite (relu_flip {zt}); close" if flip else "; close"
        return self.step(self.text(node), new, proof)

    def extremum(self, is_max: bool, args: list) -> sp.Expr:
        if len(args) == 1:
            return args[0]
        a, b = args[0], self.extremum(is_max, args[1:])
        old = f"({'Rmax' if is_max else 'Rmin'} {self.text(a)} {self.text(b)})"
        if old in self.done:
            return self.done[old]
        x = sp.expand(a - b)
        lemma = "max_relu" if is_max else "min_relu"
        proof = (f"rewrite ({lemma} {self.text(a)} {self.text(b)}); "
                 f"replace ({self.text(a)} - {self.text(b)}) with {self.text(x)} by close; ")
        if x.is_Number:
            # the rectifier of a number: its value, decided by lra
            proof += f"rewrite (relu_num {self.text(x)} {self.text(ReLU(x))}) by lra; "
        proof += "close"
        if is_max:
            # max(a, b) = b + ReLU(a - b)
            self.step(old, sp.Add(b, ReLU(x), evaluate=False), proof)
            new = sp.Add(b, self.rewrite(ReLU(x)), evaluate=False)
        else:
            # min(a, b) = a - ReLU(a - b)
            self.step(old, sp.Add(a, sp.Mul(-1, ReLU(x), evaluate=False), evaluate=False), proof)
            new = sp.Add(a, sp.Mul(-1, self.rewrite(ReLU(x)), evaluate=False), evaluate=False)
        self.done[old] = new
        return new

    def absolute(self, node: sp.Abs) -> sp.Expr:
        # |z| = ReLU(z) + ReLU(-z)
        (z,) = node.args
        positive, negative = sp.expand(z), sp.expand(-z)
        new = sp.Add(ReLU(positive), ReLU(negative), evaluate=False)
        self.step(self.text(node), new, f"rewrite (abs_relu {self.text(z)}); "
                  f"replace (- {self.text(z)}) with {self.text(negative)} by close; "
                  f"replace {self.text(z)} with {self.text(positive)} by close; close")
        result = sp.Add(self.rewrite(ReLU(positive)), self.rewrite(ReLU(negative)), evaluate=False)
        self.done[self.text(node)] = result
        return result

    def application(self, node: AppliedUndef) -> sp.Expr:
        """f(A, ...) -> f(z, ...), each argument z canonical: equal arguments, equal values."""
        new = node.func(*[sp.expand(a) for a in node.args])
        if self.text(new) == self.text(node):
            return node
        return self.step(self.text(node), new, "f_equal; close")


    def exponential(self, node: sp.exp) -> sp.Expr:
        """exp(A) -> exp(z), z canonical: equal arguments, equal values."""
        new = sp.exp(sp.expand(node.args[0]), evaluate=False)
        if self.text(new) == self.text(node):
            return node
        return self.step(self.text(node), new, "f_equal; close")

    def root(self, node: sp.Pow) -> sp.Expr:
        """sqrt(A) -> sqrt(z), z canonical: equal arguments, equal roots."""
        new = sp.Pow(sp.expand(node.base), sp.S.Half, evaluate=False)
        if self.text(new) == self.text(node):
            return node
        return self.step(self.text(node), new, "f_equal; close")


def guided_script(lhs: sp.Expr, rhs: sp.Expr, printer: Printer) -> str:
    """The guided strategy as one tactic: the rewriting steps, then one field."""
    guide = Guide(printer)
    guide.rewrite(lhs)
    guide.rewrite(rhs)
    return "; ".join(guide.steps + ["close"])


def proof_script(lhs: sp.Expr, rhs: sp.Expr, printer: Printer) -> str:
    """Guided first, then the sign split (the time cap is coqc's, on its CPU time)."""
    printer.record_premises = False      # the script's terms are not part of the claim
    guided = guided_script(lhs, rhs, printer)
    return f"first [ ({guided}) | (split_signs; leaf) ]."


def roots_and_exps_as_atoms(lhs: sp.Expr, rhs: sp.Expr) -> None:
    """The strategies read a square root and an exp as atoms, their arguments in canonical form: a
    claim that holds only through what they are (sqrt(a^2) = a for a > 0, exp(2 f) = exp(f)^2) is
    outside what they prove, and is said to be (OutsideFragment), rather than sent to Coq to be
    refused for the tactics' sake."""
    opaque = [p for p in lhs.atoms(sp.Pow) | rhs.atoms(sp.Pow) if abs(p.exp) == sp.S.Half] \
        + list(lhs.atoms(sp.exp) | rhs.atoms(sp.exp))
    if not opaque:
        return

    def key(atom):
        # an atom with its argument in canonical form, as the guided strategy writes it
        return (type(atom), sp.expand(atom.args[0]), atom.exp if isinstance(atom, sp.Pow) else None)
    atoms = {key(atom): sp.Dummy("atom") for atom in opaque}
    replaced = [side.xreplace({atom: atoms[key(atom)] for atom in opaque}) for side in (lhs, rhs)]
    if sp.expand(sp.together(replaced[0] - replaced[1])) != 0:
        raise OutsideFragment("a square root or an exp that is no atom of the claim: the claim holds, if it does, "
                              "through what a root or exp is, which the certificates do not prove")


def certificate(lhs, rhs, name: str) -> str:
    """The Coq lemma for lhs = rhs with its proof; raises OutsideFragment outside the fragment."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    roots_and_exps_as_atoms(lhs, rhs)
    printer = Printer()
    claim: Statement = statement(lhs, rhs, printer)
    if any(lhs.has(kind) or rhs.has(kind) for kind in (sp.Derivative, sp.Heaviside, sp.KroneckerDelta)):
        # derivatives, steps and deltas as written: each one replaced by its value, which Coq proves
        if "Derive" not in printer.uses:
            return claim.lemma(name, EVALUATED)
        # Coquelicot loaded on the lemma's first line (its coercion warning silenced: a warning's
        # line would be read as the line of an error)
        return ('Set Warnings "-ambiguous-paths,-notation-overridden". From Coquelicot Require Import Coquelicot. '
                + claim.lemma(name, DERIVATIVES + EVALUATED))
    return claim.lemma(name, proof_script(lhs, rhs, printer))


# The proof of a lemma with derivatives, Heaviside steps or Kronecker deltas as written: each closed
# derivative Derive f x replaced by the value Coquelicot's auto_derive proves it has (is_derive f x l,
# so Derive f x = l), each step and delta decided by cases, then the arithmetic closes the goal.
_CLOSED_DERIVATIVES = ("repeat match goal with |- context [Derive ?f ?x] => let l := fresh \"l\" in evar (l : R); "
                       "rewrite (is_derive_unique f x l) by (subst l; auto_derive; [repeat split | reflexivity]); "
                       "subst l end")
# a derivative of a derivative: the inner one, a function of the outer variable, replaced by its
# value at every point (Derive_ext), innermost first; then every closed derivative by its value
DERIVATIVES = ("repeat match goal with |- context [Derive (fun y : R => @?F y) ?y0] =>\n"
               "    lazymatch F with context [Derive] => idtac end;\n"
               "    let HG := fresh \"HG\" in eassert (HG : forall y, F y = _);\n"
               f"    [ let z := fresh \"z\" in intro z; cbv beta; {_CLOSED_DERIVATIVES}; reflexivity\n"
               "    | rewrite (Derive_ext _ _ y0 HG); clear HG ] end.\n"
               f"  {_CLOSED_DERIVATIVES}.\n  ")
EVALUATED = ("repeat match goal with |- context [Rlt_dec ?a ?b] => destruct (Rlt_dec a b) end; cbn [Nat.eqb].\n"
             "  all: first [ field; repeat split; nonzero | ring | lra | nra | exfalso; nra ].")


# --- a refutation: the claim false at a point ---------------------------------------------------

ATTEMPTS = 40                    # points tried before the project gives up proposing one
VALUES = tuple(sp.Rational(p, q) for p, q in [(1, 1), (-1, 1), (2, 1), (-2, 1), (1, 2), (-1, 2), (3, 2), (-3, 2),
                                              (3, 1), (-3, 1), (2, 3), (-2, 3), (5, 4), (-5, 4), (0, 1), (7, 3),
                                              (-7, 3), (1, 3), (-1, 3), (4, 1), (-4, 1)])


@dataclass(frozen=True)
class Refutation:
    """The lemma that lhs = rhs fails at a point, with its proof, and the point and values as text."""

    lemma: str
    point: str


def refutation(lhs, rhs, name: str) -> Refutation | None:
    """The lemma "there is a point where the hypotheses hold and lhs <> rhs" with a proof at a point
    the project found (exact values: the sides as written defined and different there); None when
    the values are not rational (a root, exp or π) or no point of ATTEMPTS separates the sides.
    Raises OutsideFragment outside the fragment."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    if any(lhs.has(kind) or rhs.has(kind) for kind in (sp.Derivative, sp.Heaviside, sp.KroneckerDelta)):
        return None               # a derivative, step or delta is not evaluated at a point here
    claim = statement(lhs, rhs, printer := Printer())
    if any(lhs.has(kind) or rhs.has(kind) for kind in (sp.exp, sp.pi)) or \
            any(not p.exp.is_Integer for p in lhs.atoms(sp.Pow) | rhs.atoms(sp.Pow)):
        return None
    symbols = [thing for thing in printer.names if isinstance(thing, sp.Symbol)]
    functions = [thing for thing in printer.names if not isinstance(thing, sp.Symbol)]
    rng = random.Random(0)
    for attempt in range(ATTEMPTS):
        point = {}
        for symbol in symbols:
            # a value that honours every assumption sympy holds of the symbol
            candidates = [v for v in VALUES if _honours(v, symbol)]
            if not candidates:
                return None
            point[symbol] = candidates[0] if attempt == 0 else rng.choice(candidates)
        bodies = {function: _polynomial(printer.arity[printer.names[function]], attempt) for function in functions}
        values = [_value(side, point, bodies) for side in (lhs, rhs)]
        if None in values or values[0] == values[1]:
            continue
        witnesses = [Printer().term(point[symbol]) for symbol in symbols]
        for function in functions:
            body = bodies[function]
            witnesses.append(f"(fun {' '.join(str(v) for v in body.variables)} : R => {Printer().term(body.expr)})")
        described = ", ".join([f"{symbol} = {point[symbol]}" for symbol in symbols]
                              + [f"{function}({', '.join(map(str, bodies[function].variables))}) = "
                                 f"{bodies[function].expr}" for function in functions])
        return Refutation(claim.negation(f"{name}_refuted", witnesses),
                          f"{described}: lhs = {values[0]}, rhs = {values[1]}")
    return None


def _honours(value: sp.Rational, symbol: sp.Symbol) -> bool:
    return all(getattr(value, f"is_{fact}") == holds for fact, holds in symbol.assumptions0.items())


def _polynomial(arity: int, attempt: int) -> sp.Lambda:
    """An undefined function's stand-in: a cubic polynomial in its arguments, no two alike."""
    variables = sp.symbols(f"t0:{arity}", real=True)
    square = 3 + attempt % 3
    return sp.Lambda(variables, sp.Rational(1, 2) + sum((k + 2) * t - square * t ** 2 + t ** 3
                                                          for k, t in enumerate(variables)))


def _value(e: sp.Expr, point: dict, bodies: dict):
    """The exact value of e as written at the point (each undefined function its body); None where a
    denominator as written is 0."""
    def at(term):
        if bodies:
            term = term.replace(lambda node: isinstance(node, AppliedUndef) and node.func in bodies,
                                lambda node: bodies[node.func](*node.args))
        return term.xreplace(point)
    # the denominators as written, read before anything is evaluated
    if any(power.exp.is_negative and at(power.base) == 0 for power in e.atoms(sp.Pow)):
        return None
    value = at(e)
    return value if value.is_Rational else None
