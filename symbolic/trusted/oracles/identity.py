"""The exact identity test: check_identity's decision, run by the kernel on an equation."""
from symbolic.kernel.oracles import declare
from symbolic.decision.identity import decide_equation

EXACT_IDENTITY = declare(
    "exact identity test", decide_equation,
    "lhs = rhs for every admissible value: an exact zero test of a canonical form (sign split, pattern "
    "form), confirmed by exact evaluation at points that compared something, and Z3 where the claim lies "
    "in its fragment")
