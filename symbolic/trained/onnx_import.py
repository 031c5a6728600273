"""Read an ONNX graph into a ``TrainedNetwork`` and run onnxruntime on it as the reference forward pass.

Supported: a chain of Gemm, MatMul (+ Add), Conv, BatchNormalization (inference mode), Relu,
LeakyRelu, MaxPool, Flatten, Reshape to (batch, features) and Identity.  Anything else raises
``UnsupportedModel`` with one line naming it.
"""
from __future__ import annotations

import numpy as np

from symbolic.trained.network import Conv, Dense, Diagonal, Flatten, LeakyReLU, MaxPool, ReLU, TrainedNetwork

SUPPORTED = ("Gemm", "MatMul", "Add", "Conv", "BatchNormalization", "Relu", "LeakyRelu", "MaxPool",
             "Flatten", "Reshape", "Identity", "Constant")


class UnsupportedModel(ValueError):
    """A file that is not ONNX, or a graph this import does not read: one line, exit code 2."""


def load_model(path: str):
    import onnx
    try:
        model = onnx.load(path)
        onnx.checker.check_model(model)
    except FileNotFoundError:
        raise UnsupportedModel(f"{path}: no such file") from None
    except Exception as error:  # onnx raises DecodeError, ValidationError, OSError, ...
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise UnsupportedModel(f"{path} is not a valid ONNX model ({first[:120]})") from None
    return model


def _attributes(node) -> dict:
    import onnx
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _float_array(array: np.ndarray, what: str) -> np.ndarray:
    if array.dtype not in (np.float32, np.float64, np.float16):
        raise UnsupportedModel(f"{what} has element type {array.dtype}; only floating-point weights are read")
    values = array.astype(np.float64)   # float16/32 → float64 is exact
    if not np.all(np.isfinite(values)):
        raise UnsupportedModel(f"{what} holds a NaN or an infinity")
    return values


def _pads_2d(attributes: dict, node_name: str) -> tuple:
    if attributes.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise UnsupportedModel(f"{node_name}: auto_pad is not supported; export with explicit pads")
    return tuple(attributes.get("pads", (0, 0, 0, 0)))


class _Graph:
    """The graph as a chain: the node that reads each tensor, the constants by name."""

    def __init__(self, model):
        from onnx import numpy_helper
        graph = model.graph
        self.constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        for node in graph.node:
            if node.op_type == "Constant":
                self.constants[node.output[0]] = numpy_helper.to_array(_attributes(node)["value"])
        inputs = [i for i in graph.input if i.name not in self.constants]
        if len(inputs) != 1 or len(graph.output) != 1:
            raise UnsupportedModel(f"the graph has {len(inputs)} inputs and {len(graph.output)} outputs; "
                                   "one of each is read")
        self.input, self.output = inputs[0], graph.output[0].name
        self.nodes = [n for n in graph.node if n.op_type != "Constant"]
        for node in self.nodes:
            if node.op_type not in SUPPORTED:
                raise UnsupportedModel(f"unsupported ONNX operator {node.op_type} (node {node.name or node.output[0]})")

    def chain(self) -> list:
        """The nodes in the order the data flows through them; a branch is refused."""
        readers: dict[str, list] = {}
        for node in self.nodes:
            for name in node.input:
                if name and name not in self.constants:
                    readers.setdefault(name, []).append(node)
        order, current = [], self.input.name
        while current != self.output:
            following = readers.get(current, [])
            if len(following) != 1:
                raise UnsupportedModel(f"tensor {current} is read by {len(following)} nodes; "
                                       "only a chain of layers is read")
            node = following[0]
            order.append(node)
            current = node.output[0]
        return order

    def constant(self, name: str, node) -> np.ndarray:
        if name not in self.constants:
            raise UnsupportedModel(f"{node.op_type} node {node.name or node.output[0]}: input {name} "
                                   "is not a constant")
        return self.constants[name]


def _input_shape(value_info) -> tuple:
    dims = value_info.type.tensor_type.shape.dim
    shape = tuple(d.dim_value if d.HasField("dim_value") else None for d in dims[1:])
    if any(d is None for d in shape):
        raise UnsupportedModel(f"input {value_info.name} has a symbolic dimension past the batch")
    return shape


def _input_dtype(value_info) -> np.dtype:
    from onnx import helper
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(value_info.type.tensor_type.elem_type))
    if dtype not in (np.float32, np.float64):
        raise UnsupportedModel(f"input {value_info.name} has element type {dtype}; float32 or float64 is read")
    return dtype


def import_network(model) -> TrainedNetwork:
    """The chain of layers of an ONNX model (already checked by ``load_model``)."""
    graph = _Graph(model)
    layers, pending_matmul = [], None
    for node in graph.chain():
        op, a, name = node.op_type, _attributes(node), node.name or node.output[0]
        if pending_matmul is not None and op != "Add":
            layers.append(pending_matmul)
            pending_matmul = None
        if op == "Gemm":
            if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0 or a.get("beta", 1.0) != 1.0:
                raise UnsupportedModel(f"Gemm {name}: transA, alpha ≠ 1 or beta ≠ 1 is not supported")
            b = _float_array(graph.constant(node.input[1], node), f"Gemm {name} weight")
            weight = b if a.get("transB", 0) else b.T
            bias = (_float_array(graph.constant(node.input[2], node), f"Gemm {name} bias")
                    if len(node.input) > 2 and node.input[2] else None)
            if bias is not None and bias.shape != (weight.shape[0],):
                raise UnsupportedModel(f"Gemm {name}: a bias of shape {bias.shape} is not one per unit")
            layers.append(Dense(weight, bias, {"weight": node.input[1], "transposed": not a.get("transB", 0),
                                               "bias": node.input[2] if bias is not None else None}))
        elif op == "MatMul":
            w = _float_array(graph.constant(node.input[1], node), f"MatMul {name} weight")
            if w.ndim != 2:
                raise UnsupportedModel(f"MatMul {name}: the weight must be a matrix")
            pending_matmul = Dense(w.T, None, {"weight": node.input[1], "transposed": True, "bias": None})
        elif op == "Add":
            if pending_matmul is None:
                raise UnsupportedModel(f"Add {name} does not follow a MatMul")
            bias_name = next(i for i in node.input if i in graph.constants)
            bias = _float_array(graph.constant(bias_name, node), f"Add {name} bias").reshape(-1)
            if bias.shape != (pending_matmul.weight.shape[0],):
                raise UnsupportedModel(f"Add {name}: a bias of shape {bias.shape} is not one per unit")
            pending_matmul.bias = bias
            pending_matmul.source["bias"] = bias_name
            layers.append(pending_matmul)
            pending_matmul = None
        elif op == "Conv":
            weight = _float_array(graph.constant(node.input[1], node), f"Conv {name} weight")
            if weight.ndim != 4 or a.get("group", 1) != 1:
                raise UnsupportedModel(f"Conv {name}: only 2-d convolutions with group = 1 are read")
            bias = (_float_array(graph.constant(node.input[2], node), f"Conv {name} bias")
                    if len(node.input) > 2 and node.input[2] else None)
            layers.append(Conv(weight, bias, tuple(a.get("strides", (1, 1))), _pads_2d(a, name),
                               tuple(a.get("dilations", (1, 1))),
                               {"weight": node.input[1], "bias": node.input[2] if bias is not None else None}))
        elif op == "BatchNormalization":
            if a.get("training_mode", 0):
                raise UnsupportedModel(f"BatchNormalization {name} is in training mode")
            gamma, beta, mean, var = (_float_array(graph.constant(i, node), f"BatchNormalization {name}")
                                      for i in node.input[1:5])
            scale = gamma / np.sqrt(var + np.float64(np.float32(a.get("epsilon", 1e-5))))
            layers.append(Diagonal(scale, beta - scale * mean,
                                   {"gamma": node.input[1], "beta": node.input[2], "mean": node.input[3]}))
        elif op == "Relu":
            layers.append(ReLU())
        elif op == "LeakyRelu":
            slope = float(np.float32(a.get("alpha", 0.01)))
            if not 0 <= slope < 1:
                raise UnsupportedModel(f"LeakyRelu {name}: slope {slope} is outside [0, 1)")
            layers.append(LeakyReLU(slope))
        elif op == "MaxPool":
            if a.get("ceil_mode", 0) or any(d != 1 for d in a.get("dilations", (1, 1))) \
                    or (len(node.output) > 1 and node.output[1]):
                raise UnsupportedModel(f"MaxPool {name}: ceil_mode, dilations or indices are not supported")
            kernel = tuple(a["kernel_shape"])
            layers.append(MaxPool(kernel, tuple(a.get("strides", (1,) * len(kernel))), _pads_2d(a, name)))
        elif op == "Flatten":
            if a.get("axis", 1) != 1:
                raise UnsupportedModel(f"Flatten {name}: only axis = 1 is read")
            layers.append(Flatten())
        elif op == "Reshape":
            shape = graph.constant(node.input[1], node).reshape(-1)
            if len(shape) != 2 or (shape[0] not in (0, -1) and shape[1] != -1):
                raise UnsupportedModel(f"Reshape {name}: only a reshape to (batch, features) is read")
            layers.append(Flatten())
    if pending_matmul is not None:
        layers.append(pending_matmul)
    network = TrainedNetwork(layers, _input_shape(graph.input), _input_dtype(graph.input))
    _check_shapes(network)
    return network


def _check_shapes(network: TrainedNetwork) -> None:
    """Every layer gets the shape it expects (a Reshape to (batch, k) must flatten all features)."""
    shape = network.input_shape
    for layer in network.layers:
        shape = output_shape(layer, shape)


def output_shape(layer, shape: tuple) -> tuple:
    """The shape (without the batch) of a layer's output on inputs of the given shape."""
    def fail(expected):
        raise UnsupportedModel(f"{type(layer).__name__} layer expects {expected}, gets inputs of shape {shape}")
    if isinstance(layer, Dense):
        return (layer.weight.shape[0],) if shape == (layer.weight.shape[1],) else fail(f"({layer.weight.shape[1]},)")
    if isinstance(layer, Diagonal):
        return shape if shape[:1] == layer.scale.shape else fail(f"{layer.scale.shape[0]} channels")
    if isinstance(layer, Conv):
        if len(shape) != 3 or shape[0] != layer.weight.shape[1]:
            fail(f"({layer.weight.shape[1]}, H, W)")
        out = [(size + layer.pads[i] + layer.pads[i + 2] - layer.dilations[i] * (layer.weight.shape[2 + i] - 1) - 1)
               // layer.strides[i] + 1 for i, size in enumerate(shape[1:])]
        return (layer.weight.shape[0], *out)
    if isinstance(layer, MaxPool):
        if len(shape) != 3:
            fail("(C, H, W)")
        out = [(size + layer.pads[i] + layer.pads[i + 2] - layer.kernel[i]) // layer.strides[i] + 1
               for i, size in enumerate(shape[1:])]
        return (shape[0], *out)
    if isinstance(layer, Flatten):
        return (int(np.prod(shape)),)
    return shape


def onnxruntime_outputs(model, inputs: np.ndarray) -> np.ndarray:
    """The reference forward pass: onnxruntime's outputs on the inputs, as float64."""
    import onnxruntime
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = onnxruntime.InferenceSession(model.SerializeToString(), options,
                                               providers=["CPUExecutionProvider"])
        outputs = session.run(None, {session.get_inputs()[0].name: inputs})[0]
    except Exception as error:  # onnxruntime's own exception types
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise UnsupportedModel(f"onnxruntime cannot run the model: {first[:160]}") from None
    return np.asarray(outputs, dtype=np.float64)
