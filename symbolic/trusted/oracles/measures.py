"""The measure invariance procedure of the audit."""
from symbolic.kernel.oracles import declare
from symbolic.measures.invariance import decide_invariance

INVARIANCE_PROCEDURE = declare(
    "measure invariance procedure", decide_invariance,
    "M(T theta) = M(theta) at the group's sizes: each step of the symbolic argument an exact test, and a "
    "witness recomputed from scratch on a concrete network that compared non-zero values")
