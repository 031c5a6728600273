"""The procedures on concrete networks: a model's derivative laws, the dimension bounds and flat
directions of discovery, the deep pattern-form congruence, the one-hidden-layer pattern-form test."""
from symbolic.kernel.oracles import declare
from symbolic.networks.deep_congruence import decide_deep_congruence
from symbolic.networks.derivative_laws import decide_derivative_law
from symbolic.networks.dimension_bounds import decide_dimension_bound, decide_flat_directions, \
    decide_linear_dimension_bound
from symbolic.networks.pattern_form import decide_pattern_form

DERIVATIVE_LAW = declare(
    "exact derivative law of a model", decide_derivative_law,
    "the gradient or Hessian law of a concrete model's map at N points off the kink set: regularity "
    "transport, an exact Laurent-polynomial identity of every entry on the pattern form, and mpmath.diff "
    "on the real loss at two precisions")
LOG_SCALE_RANK_BOUND = declare(
    "log-scale Jacobian rank bound", decide_dimension_bound,
    "the dimension of the Lie algebra of positive diagonal rescalings leaving f unchanged is at most n - "
    "rank J, J the log-scale derivative at rational points (exact rank, or certified by arb pivots)")
LINEAR_SYMMETRY_RANK_BOUND = declare(
    "linear-symmetry Jacobian rank bound", decide_linear_dimension_bound,
    "the dimension of the Lie algebra of the linear symmetries spanned by the positive diagonal "
    "rescalings and the right multiplications of an attention head's W_Q and W_K is at most dim - rank J, "
    "J the derivative along that family at rational points (rank certified by arb pivots)")
FLAT_DIRECTIONS = declare(
    "exact flat directions", decide_flat_directions,
    "H (G theta) = 0 and dim ker H >= rank{G theta} at a random interpolating minimum, by the exact "
    "rational Hessian")
DEEP_CONGRUENCE = declare(
    "deep pattern-form congruence", decide_deep_congruence,
    "the gradient and Hessian congruence of a deep ReLU network with biases under the layer-wise map: "
    "every entry an exact Laurent-polynomial identity on the pattern form, and mpmath.diff on the real "
    "network at two precisions")
PATTERN_FORM = declare(
    "pattern-form exact test", decide_pattern_form,
    "an identity of the one-hidden-layer ReLU loss, gradient or Hessian for every activation pattern, "
    "exact on the pattern form (alpha-weights read off exponents; composition cross-check)")
