"""The engine's public face: the decision procedure, networks described by their layers, their
symmetries, and the invariance of measures under them.

    from symbolic import check_identity, ReLU, Model, Dense, ReLULayer, Symmetry, check_symmetry
    from symbolic import discover_symmetries

``ReLU`` is the rectifier max(s, 0) as a sympy function (for claims); the ReLU *layer* of a
``Model`` is ``ReLULayer`` here (``symbolic.networks.model.ReLU`` in its own module).
"""
from symbolic.kernel import check_identity
from symbolic.measures.definitions import MEASURES, MeasurePoint
from symbolic.measures.invariance import check_invariance
from symbolic.networks.model import (Abs, AvgPool1d, Conv1d, Dense, LeakyReLU, Maxout, MaxPool1d, Model,
                                     ModelError, Residual, Tanh)
from symbolic.networks.model import ReLU as ReLULayer
from symbolic.networks.discovery import discover_symmetries
from symbolic.networks.symmetry import Symmetry, check_symmetry, permutation_matrix, positive_scales
from symbolic.parsing import parse_expression      # also how a verdict reads a claim back for display
from symbolic.relu import ReLU, leaky_relu, to_relu_form
from symbolic.verdict import Status, Verdict

__all__ = [
    # the decision procedure and its answers
    "check_identity", "parse_expression", "Verdict", "Status", "ReLU", "leaky_relu", "to_relu_form",
    # networks by their layers
    "Model", "ModelError", "Dense", "Conv1d", "ReLULayer", "LeakyReLU", "Abs", "Tanh", "Maxout",
    "MaxPool1d", "AvgPool1d", "Residual",
    # symmetries
    "Symmetry", "check_symmetry", "positive_scales", "permutation_matrix", "discover_symmetries",
    # measures and their invariance
    "MEASURES", "MeasurePoint", "check_invariance",
]
