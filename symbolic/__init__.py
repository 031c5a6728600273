"""The engine's public face: the decision procedure, networks described by their layers, their
symmetries, and the invariance of measures under them.

    from symbolic import check_identity, ReLU, Model, Dense, ReLULayer, Symmetry, check_symmetry
    from symbolic import discover_symmetries

``ReLU`` is the rectifier max(s, 0) as a sympy function (for claims); the ReLU *layer* of a
``Model`` is ``ReLULayer`` here (``symbolic.networks.model.ReLU`` in its own module).
"""
import importlib

from symbolic.checks import check_identity
from symbolic.parsing import parse_expression      # also how a verdict reads a claim back for display
from symbolic.relu import ReLU, leaky_relu, to_relu_form
from symbolic.kernel.verdict import Status, Verdict

# the networks, their symmetries and the measures, imported on first use: a claim checked from the
# command line does not pay for them
_ON_FIRST_USE = {
    **dict.fromkeys(("MEASURES", "MeasurePoint"), "symbolic.measures.definitions"),
    "check_invariance": "symbolic.symmetries.invariance",
    **dict.fromkeys(("Abs", "AvgPool1d", "Conv1d", "Dense", "LeakyReLU", "Maxout", "MaxPool1d", "Model",
                     "ModelError", "Residual", "Tanh"), "symbolic.networks.model"),
    **dict.fromkeys(("AvgPool2d", "Conv2d", "Flatten", "MaxPool2d"), "symbolic.networks.grid_layers"),
    **dict.fromkeys(("BatchNorm", "BatchNormTrain", "LayerNorm"), "symbolic.networks.normalization"),
    "Attention": "symbolic.networks.attention_head",
    "discover_symmetries": "symbolic.symmetries.discovery",
    **dict.fromkeys(("Symmetry", "permutation_matrix", "positive_scales"), "symbolic.networks.maps"),
    "check_symmetry": "symbolic.symmetries.symmetry",
}


def __getattr__(name):
    if name == "ReLULayer":
        value = importlib.import_module("symbolic.networks.model").ReLU
    elif name in _ON_FIRST_USE:
        value = getattr(importlib.import_module(_ON_FIRST_USE[name]), name)
    else:
        raise AttributeError(f"module 'symbolic' has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    # the decision procedure and its answers
    "check_identity", "parse_expression", "Verdict", "Status", "ReLU", "leaky_relu", "to_relu_form",
    # networks by their layers
    "Model", "ModelError", "Dense", "Conv1d", "ReLULayer", "LeakyReLU", "Abs", "Tanh", "Maxout",
    "MaxPool1d", "AvgPool1d", "Residual", "Conv2d", "MaxPool2d", "AvgPool2d", "Flatten",
    "BatchNorm", "LayerNorm", "BatchNormTrain", "Attention",
    # symmetries
    "Symmetry", "check_symmetry", "positive_scales", "permutation_matrix", "discover_symmetries",
    # measures and their invariance
    "MEASURES", "MeasurePoint", "check_invariance",
]
