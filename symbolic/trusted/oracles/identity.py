"""The exact identity test: check_identity's decision, run by the kernel on an equation."""
from symbolic.kernel.oracles import declare
from symbolic.decision.exp_log import decide_exp_log_equation
from symbolic.decision.identity import decide_equation

EXACT_IDENTITY = declare(
    "exact identity test", decide_equation,
    "lhs = rhs for every admissible value: an exact zero test of a canonical form (sign split, pattern "
    "form), confirmed by exact evaluation at points that compared something, and Z3 where the claim lies "
    "in its fragment")
EXP_LOG_IDENTITY = declare(
    "exact exp-log identity test", decide_exp_log_equation,
    "lhs = rhs in one real symbol, exp and log (tanh, sigmoid, softplus through them), every denominator and "
    "log argument positive by construction: with t = exp(x/L), the derivative of lhs - rhs is the zero "
    "rational function of x and t and lhs - rhs is exactly 0 at x = 0, with a witness at 50 and 100 digits")
