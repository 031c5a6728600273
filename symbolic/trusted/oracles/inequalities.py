"""A relation of two sides decided by two solvers, or a manifest sign, each confirmed independently."""
from symbolic.kernel.oracles import declare
from symbolic.decision.inequality import decide_relation

DECIDED_RELATION = declare(
    "decided relation", decide_relation,
    "lhs R rhs (R one of <, <=, >, >=, !=) wherever both sides as written are defined: Z3's or cvc5's unsat "
    "for the failure of R (or, for <= and >=, a manifestly non-negative difference), confirmed by the other "
    "solver's unsat or by R holding exactly at sampled points of the domain; a refutation only at an exact "
    "point, both sides evaluated there")
