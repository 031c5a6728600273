"""The engine: ReLU networks, the rescaling T_α, exact zero tests, witnesses and verdicts."""
from .identity import check_identity as check_identity
from .relu import ReLU as ReLU, leaky_relu as leaky_relu, to_relu_form as to_relu_form
from .verdict import Status as Status, Verdict as Verdict
