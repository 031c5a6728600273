"""Read an ONNX graph, as torch, Keras and skl2onnx write it, into a ``TrainedNetwork``; run onnxruntime
on the tensor read as the reference forward pass.

What is read (anything else raises ``UnsupportedModel``, one line naming the node):
    layers      Gemm, MatMul (+ Add of a bias), Conv in 1-d or 2-d, dilated, grouped (+ Add of a bias,
                also after the Transpose back to channels-last, as Keras 3 writes it), BatchNormalization
                (inference), Relu, LeakyRelu, PRelu (a slope per channel or one), MaxPool and AveragePool
                in 1-d or 2-d (padded), GlobalAveragePool, ReduceMean or ReduceSum over the spatial axes
                (a global average pool, keepdims or not), Flatten, Reshape to (batch, features) checked
                against the real shapes, Add of two tensors of one shape (a skip connection), Transpose
                of the data that keeps the batch first (the NHWC ↔ NCHW of a channels-last export)
    not positively homogeneous
                Sigmoid, Tanh, Erf, Gelu, Clip (ReLU6), Mul of two tensors of one shape (SiLU's and
                GELU's gate), and Add, Sub, Mul, Div by constants anywhere (GELU's 1/√2, + 1, ½): read,
                and named when no positive rescaling passes them
    no-ops      Identity, Dropout (inference), Cast to the same or a wider float type
    constants   what depends only on constants and shapes is folded here: Constant, Shape, Gather,
                Unsqueeze, Squeeze, Concat, Slice, Cast, Identity, Reshape, and Transpose (a weight
                stored in another layout)
    the input   Sub, Div, Mul, Add by constants before any layer: a normalisation, not parameters
    the end     the output the loss needs (never an integer label; ZipMap's input); a trailing
                Softmax or LogSoftmax, read as part of the cross-entropy loss of the logits before it;
                a trailing Reshape [-1, 1] (skl2onnx's regressor) read as the outputs before it
Attention (a Softmax or a LayerNormalization inside the graph, as a transformer encoder layer is
exported) is refused in one line that says so, before any other operator is looked at.
A fixed batch dimension is read as well: onnxruntime then runs on the data in batches of that size.
"""
from __future__ import annotations

import numpy as np

from symbolic.errors import CheckerError
from symbolic.trained.network import (Activation, AveragePool, Conv, Dense, Diagonal, Flatten, LeakyReLU, MaxPool,
                                      Permute, PReLU, Product, ReLU, Standardize, Sum, TrainedNetwork, View)

FOLDED = ("Constant", "Shape", "Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Cast", "Identity",
          "Reshape", "Transpose")
LAYERS = ("Gemm", "MatMul", "Add", "Conv", "BatchNormalization", "Relu", "LeakyRelu", "MaxPool", "AveragePool",
          "GlobalAveragePool", "Flatten", "PRelu", "ReduceMean", "ReduceSum", "Sigmoid", "Tanh", "Erf", "Gelu", "Clip",
          "Reshape", "Transpose", "Identity", "Dropout", "Cast", "Sub", "Div", "Mul", "Shape", "Constant")
ENDINGS = ("Softmax", "LogSoftmax")
ATTENTION = ("Softmax", "LogSoftmax", "LayerNormalization")     # inside the graph: a transformer layer
PASS_THROUGH = ("Identity", "Dropout", "Cast")
FLOAT_TYPES = {1: 32, 10: 16, 11: 64, 16: 16}       # ONNX element types read as floats, and their bits


class UnsupportedModel(CheckerError, ValueError):
    """A file that is not ONNX, or a graph this import does not read: one line, exit code 2."""


class _Batch:
    """The batch size inside a folded shape: known only when the data are."""

    def __repr__(self):
        return "N"


BATCH = _Batch()


def load_model(path: str):
    import onnx
    try:
        model = onnx.load(path)
        onnx.checker.check_model(model)
    except FileNotFoundError as error:
        missing = error.filename or path
        raise UnsupportedModel(f"{missing}: no such file" + ("" if missing == path else
                                                          " (the model's external weights)")) from None
    except Exception as error:  # onnx raises DecodeError, ValidationError, OSError, ...
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise UnsupportedModel(f"{path} is not a valid ONNX model ({first[:120]})") from None
    return model


def _attributes(node) -> dict:
    import onnx
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _name(node) -> str:
    return f"{node.op_type} node {node.name or node.output[0]}"


def _float_array(array: np.ndarray, what: str) -> np.ndarray:
    if array.dtype not in (np.float32, np.float64, np.float16):
        raise UnsupportedModel(f"{what} has element type {array.dtype}; only floating-point weights are read")
    values = array.astype(np.float64)   # float16/32 → float64 is exact
    if not np.all(np.isfinite(values)):
        raise UnsupportedModel(f"{what} holds a NaN or an infinity")
    return values


def _pads_2d(attributes: dict, node, spatial: int = 2) -> tuple:
    """(top, left, bottom, right); a 1-d layer's (begin, end) as those of an image of height 1."""
    if attributes.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET", b"VALID", "VALID"):
        raise UnsupportedModel(f"{_name(node)}: auto_pad SAME is not read; export with explicit pads")
    pads = tuple(attributes.get("pads", (0,) * 2 * spatial))
    return pads if spatial == 2 else (0, pads[0], 0, pads[1])


def _in_2d(values, spatial: int, fill) -> tuple:
    """A 1-d layer's strides, kernel or dilations as those of an image of height 1."""
    values = tuple(values)
    return values if spatial == 2 else (fill, *values)


def _producers(graph) -> dict:
    return {output: node for node in graph.node for output in node.output if output}


def _opset(model) -> int:
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)


def choose_output(model, requested: str | None = None) -> dict:
    """The output read and the tensor behind it: the first floating-point output (ZipMap's input for
    a map of probabilities), or the one requested; then back through Identity, Dropout and Cast, a
    trailing Softmax/LogSoftmax (the logits are read) and a trailing Reshape [-1, 1]."""
    from onnx import numpy_helper
    graph, producers = model.graph, _producers(model.graph)
    names = [o.name for o in graph.output]
    candidates = []
    for output in graph.output:
        producer = producers.get(output.name)
        if producer is not None and producer.op_type == "ZipMap":
            candidates.append((output.name, producer.input[0], ["ZipMap's input (the probabilities)"]))
        elif output.type.HasField("tensor_type") and output.type.tensor_type.elem_type in FLOAT_TYPES:
            candidates.append((output.name, output.name, []))
    if requested is not None:
        chosen = [c for c in candidates if c[0] == requested]
        if not chosen:
            raise UnsupportedModel(f"--output {requested}: " + (
                "not an output of the graph" if requested not in names else
                "it holds no floating-point scores (a label?)") + f"; the outputs: {', '.join(names)}")
    else:
        chosen = candidates[:1]
        if not chosen:
            raise UnsupportedModel(f"no output holds floating-point scores (the outputs: {', '.join(names)})")
    output, tensor, notes = chosen[0]
    ending = reshaped = None
    initializers = {t.name: t for t in graph.initializer}
    while tensor in producers:
        node = producers[tensor]
        if node.op_type in ("Identity", "Dropout") or (node.op_type == "Cast" and
                                                       _attributes(node).get("to") in (1, 11)):
            tensor = node.input[0]
        elif node.op_type in ENDINGS and ending is None and reshaped is None:
            axis = _attributes(node).get("axis", -1 if _opset(model) >= 13 else 1)
            if axis not in (1, -1):
                raise UnsupportedModel(f"{_name(node)} on axis {axis}: a Softmax over the classes (axis 1) is read")
            ending, tensor = node.op_type, node.input[0]
        elif (node.op_type == "Reshape" and ending is None and reshaped is None and node.input[1] in initializers
              and numpy_helper.to_array(initializers[node.input[1]]).tolist() == [-1, 1]):
            reshaped, tensor = node, node.input[0]
            notes.append(f"the trailing Reshape [-1, 1] ({node.name or node.output[0]}) left out: each example's "
                         "outputs are read as one row, as scikit-learn's predict returns them")
        else:
            break
    others = [n for n in names if n != output]
    return {"output": output, "tensor": tensor, "ending": ending, "notes": notes, "other_outputs": others}


def ancestors(graph, tensor: str) -> list:
    """The nodes the tensor is computed from, in graph order."""
    producers, needed, stack = _producers(graph), set(), [tensor]
    while stack:
        node = producers.get(stack.pop())
        if node is not None and id(node) not in needed:
            needed.add(id(node))
            stack.extend(name for name in node.input if name)
    return [node for node in graph.node if id(node) in needed]


class _Reader:
    """One pass over the nodes the read tensor needs, in graph order: constants folded, layers built."""

    def __init__(self, model, requested: str | None):
        from onnx import numpy_helper
        self.model, self.opset = model, _opset(model)
        graph = model.graph
        self.constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        self.origin = {name: (name, False) for name in self.constants}    # initializer, transposed?
        inputs = [i for i in graph.input if i.name not in self.constants]
        if len(inputs) != 1:
            raise UnsupportedModel(f"the graph has {len(inputs)} data inputs; one is read")
        self.input = inputs[0]
        self.reading = choose_output(model, requested)
        self.nodes = ancestors(graph, self.reading["tensor"])
        attention = [n for n in self.nodes if n.op_type in ATTENTION]
        if attention:
            raise UnsupportedModel(f"attention is not read: {_name(attention[0])} inside the graph (a transformer "
                                   "layer's Softmax over the keys or its LayerNormalization); the layers read are "
                                   "dense, convolutional, pooling and elementwise ones")
        for node in self.nodes:
            if node.domain not in ("", "ai.onnx") or node.op_type not in LAYERS + FOLDED:
                raise UnsupportedModel(f"unsupported ONNX operator {node.op_type} ({_name(node)}), "
                                       f"on the way to output {self.reading['output']}")
        self.readers: dict[str, int] = {}
        for node in self.nodes:
            for name in node.input:
                self.readers[name] = self.readers.get(name, 0) + 1
        dims = self.input.type.tensor_type.shape.dim
        self.batch = dims[0].dim_value if dims and dims[0].HasField("dim_value") else None
        self.value = {self.input.name: 0}                # tensor name -> value index
        self.shapes = [_input_shape(self.input)]         # value index -> shape without the batch
        self.bits = [_input_bits(self.input)]
        self.layers, self.sources = [], []
        self.batch_norms = []

    # -- values and constants --------------------------------------------------------------------
    def is_constant(self, name: str) -> bool:
        return name in self.constants

    def constant(self, name: str, node) -> np.ndarray:
        if name not in self.constants:
            raise UnsupportedModel(f"{_name(node)}: input {name} is not a constant")
        return self.constants[name]

    def source(self, name: str, node) -> int:
        if name not in self.value:
            raise UnsupportedModel(f"{_name(node)}: input {name} is neither the data nor a constant")
        return self.value[name]

    def weight(self, name: str, node, what: str) -> tuple[np.ndarray, str, bool]:
        """A weight, the initializer (or Constant node) it is stored in, and whether it is stored transposed."""
        values = _float_array(self.constant(name, node), f"{_name(node)} {what}")
        if name not in self.origin:
            raise UnsupportedModel(f"{_name(node)}: its {what} {name} is computed from constants; "
                                   "a weight stored as an initializer (possibly transposed) is read")
        return (values, *self.origin[name])

    def add_layer(self, layer, sources: list[int], shape: tuple, node) -> int:
        self.layers.append(layer)
        self.sources.append(tuple(sources))
        self.shapes.append(shape)
        self.bits.append(self.bits[sources[0]])
        index = len(self.layers)
        self.value[node.output[0]] = index
        return index

    def read_once(self, index: int) -> bool:
        """No layer but one reads the value (an Identity or a Cast passing it on is not a reader)."""
        names = [name for name, value in self.value.items() if value == index]
        return sum(self.readers.get(name, 0) for name in names) - (len(names) - 1) == 1

    def only_normalisation_before(self, index: int) -> bool:
        """The value is the input, or the input normalised by constants."""
        while index != 0:
            layer = self.layers[index - 1]
            if not isinstance(layer, Standardize) or not layer.at_input:
                return False
            index = self.sources[index - 1][0]
        return True

    # -- the pass ---------------------------------------------------------------------------------
    def read(self) -> TrainedNetwork:
        for node in self.nodes:
            inputs = [name for name in node.input if name]
            if node.op_type == "Constant" or (node.op_type in FOLDED and node.op_type != "Shape"
                                              and all(self.is_constant(i) for i in inputs)):
                self.fold(node)
            elif node.op_type == "Shape":
                shape = (self.constants[inputs[0]].shape if self.is_constant(inputs[0]) else
                         (BATCH if self.batch is None else self.batch, *self.shapes[self.source(inputs[0], node)]))
                a = _attributes(node)
                start, end = a.get("start", 0), a.get("end", len(shape))
                self.constants[node.output[0]] = np.array(shape[start:end], dtype=object)
            else:
                self.layer(node, inputs)
        tensor = self.reading["tensor"]
        if tensor not in self.value:
            raise UnsupportedModel(f"the output {self.reading['output']} does not depend on the input")
        last = self.value[tensor]
        if last != len(self.layers):
            raise UnsupportedModel(f"the output {self.reading['output']} is not the last layer's value")
        if len(self.shapes[last]) != 1:
            raise UnsupportedModel(f"the output {self.reading['output']} has shape (N, "
                                   f"{', '.join(map(str, self.shapes[last]))}); a vector per example is read")
        chain = all(s == (k,) for k, s in enumerate(self.sources))
        self.reading.update(batch=self.batch, batch_norms=self.batch_norms,
                            batch_norm_names=_batch_norm_mentions(self.model) if not self.batch_norms else [])
        return TrainedNetwork(self.layers, self.shapes[0], _input_dtype(self.input),
                              None if chain else self.sources, self.reading)

    def fold(self, node) -> None:
        """A node on constants (and shapes) computed here, and where a weight is stored."""
        from onnx import helper, numpy_helper
        a, out = _attributes(node), node.output[0]
        x = [self.constants[name] if name else None for name in node.input]
        op = node.op_type
        try:
            if op == "Constant":
                if "value" in a:
                    value = numpy_helper.to_array(a["value"])
                    self.origin[out] = (out, False)
                else:
                    key = next(k for k in ("value_float", "value_floats", "value_int", "value_ints") if k in a)
                    value = np.array(a[key], dtype=np.float32 if "float" in key else np.int64)
            elif op == "Identity":
                value = x[0]
            elif op == "Cast":
                dtype = np.dtype(helper.tensor_dtype_to_np_dtype(a["to"]))
                value = x[0] if x[0].dtype == object and dtype.kind in "iu" else x[0].astype(dtype)
            elif op == "Transpose":
                value = np.transpose(x[0], a.get("perm"))
            elif op == "Gather":
                value = np.take(x[0], x[1].astype(np.int64), axis=a.get("axis", 0))
            elif op in ("Unsqueeze", "Squeeze"):
                axes = a.get("axes") if len(x) < 2 or x[1] is None else x[1].astype(np.int64).tolist()
                if op == "Unsqueeze":
                    value = x[0]
                    for axis in sorted(int(v) % (x[0].ndim + len(axes)) for v in axes):
                        value = np.expand_dims(value, axis)
                else:
                    value = np.squeeze(x[0], axis=None if axes is None else tuple(axes))
            elif op == "Concat":
                value = np.concatenate([np.asarray(v, dtype=object if any(u.dtype == object for u in x) else v.dtype)
                                        for v in x], axis=a["axis"])
            elif op == "Slice":
                if self.opset < 10:
                    starts, ends, axes, steps = a["starts"], a["ends"], a.get("axes"), None
                else:
                    starts, ends = x[1].tolist(), x[2].tolist()
                    axes = x[3].tolist() if len(x) > 3 and x[3] is not None else None
                    steps = x[4].tolist() if len(x) > 4 and x[4] is not None else None
                index = [slice(None)] * x[0].ndim
                for k, (s, e) in enumerate(zip(starts, ends)):
                    axis = axes[k] if axes else k
                    index[axis] = slice(int(s), int(min(e, 2 ** 62)) if e > -2 ** 62 else None,
                                        int(steps[k]) if steps else 1)
                value = x[0][tuple(index)]
            elif op == "Reshape":
                target = [int(v) for v in x[1].tolist()]
                target = [x[0].shape[k] if v == 0 and not a.get("allowzero", 0) else v for k, v in enumerate(target)]
                value = x[0].reshape(target)
            else:
                raise UnsupportedModel(f"{_name(node)}: {op} on constants is not folded")
        except UnsupportedModel:
            raise
        except (TypeError, ValueError, IndexError, KeyError, StopIteration) as error:
            raise UnsupportedModel(f"{_name(node)}: cannot fold it on its constant inputs ({error})") from None
        self.constants[out] = value = np.asarray(value)
        # where a weight is stored: through Identity, a Cast that keeps the type, and a 2-d transpose
        source = self.origin.get(node.input[0]) if node.input else None
        if source is not None and (op == "Identity" or (op == "Cast" and x[0].dtype == value.dtype)):
            self.origin[out] = source
        elif source is not None and op == "Transpose" and x[0].ndim == 2:
            self.origin[out] = (source[0], not source[1])

    def layer(self, node, inputs: list[str]) -> None:
        op, a = node.op_type, _attributes(node)
        data = [name for name in inputs if not self.is_constant(name)]
        if not data:
            raise UnsupportedModel(f"{_name(node)}: {op} on constants is not folded")
        if op in ("Identity", "Dropout", "Cast"):
            return self.pass_through(node, op, a, inputs)
        if op == "Add" and len(data) == 2:
            return self.residual(node, data)
        if op == "Mul" and len(data) == 2:
            return self.product(node, data)
        if op in ("Add", "Mul") and len(data) == 1 and len(inputs) == 2 and inputs[1] == data[0]:
            inputs = [inputs[1], inputs[0]]             # c + x = x + c, c · x = x · c
        if len(data) != 1 or inputs[0] != data[0]:
            raise UnsupportedModel(f"{_name(node)}: reads {len(data)} data tensors at its inputs "
                                   f"{', '.join(inputs)}; it is read with the data as its first input only")
        index, shape = self.source(data[0], node), self.shapes[self.source(data[0], node)]
        if op in ("Add", "Sub", "Mul", "Div"):
            return self.with_constant(node, op, index, shape, inputs)
        if op == "Gemm":
            if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0 or a.get("beta", 1.0) != 1.0:
                raise UnsupportedModel(f"{_name(node)}: transA, alpha ≠ 1 or beta ≠ 1 is not read")
            b, stored, transposed = self.weight(inputs[1], node, "weight")
            weight = b if a.get("transB", 0) else b.T
            bias, bias_stored, _ = self.weight(inputs[2], node, "bias") if len(inputs) > 2 else (None, None, None)
            if bias is not None and bias.size != weight.shape[0]:
                raise UnsupportedModel(f"{_name(node)}: a bias of shape {bias.shape} is not one per unit")
            layer = Dense(weight, None if bias is None else bias.reshape(-1),
                          {"weight": stored, "transposed": transposed != (not a.get("transB", 0)), "bias": bias_stored})
        elif op == "MatMul":
            b, stored, transposed = self.weight(inputs[1], node, "weight")
            if b.ndim != 2:
                raise UnsupportedModel(f"{_name(node)}: the weight must be a matrix")
            layer = Dense(b.T, None, {"weight": stored, "transposed": not transposed, "bias": None})
        elif op == "Conv":
            weight, stored, transposed = self.weight(inputs[1], node, "weight")
            groups = int(a.get("group", 1))
            if weight.ndim not in (3, 4) or transposed or groups < 1 or weight.shape[0] % groups:
                raise UnsupportedModel(f"{_name(node)}: 1-d and 2-d convolutions, their output channels in equal "
                                       f"groups, are read (a kernel of {weight.ndim - 2} spatial axes is not)")
            spatial = weight.ndim - 2
            bias, bias_stored, _ = self.weight(inputs[2], node, "bias") if len(inputs) > 2 else (None, None, None)
            layer = Conv(weight.reshape(weight.shape[:2] + (1,) * (2 - spatial) + weight.shape[2:]), bias,
                         _in_2d(a.get("strides", (1,) * spatial), spatial, 1), _pads_2d(a, node, spatial),
                         _in_2d(a.get("dilations", (1,) * spatial), spatial, 1),
                         {"weight": stored, "bias": bias_stored}, groups)
            if spatial == 1:
                return self.in_one_dimension(node, layer, index, shape)
        elif op == "BatchNormalization":
            if a.get("training_mode", 0) or any(self.readers.get(o) for o in node.output[1:] if o):
                raise UnsupportedModel(f"{_name(node)} is in training mode")
            gamma, beta, mean, var = (self.weight(i, node, "statistics")[0] for i in inputs[1:5])
            scale = gamma / np.sqrt(var + np.float64(np.float32(a.get("epsilon", 1e-5))))
            layer = Diagonal(scale, beta - scale * mean, {"gamma": self.origin[inputs[1]][0],
                                                          "beta": self.origin[inputs[2]][0],
                                                          "mean": self.origin[inputs[3]][0]})
            self.batch_norms.append(node.name or node.output[0])
        elif op == "Relu":
            layer = ReLU()
        elif op == "PRelu":
            slope = _float_array(self.constant(inputs[1], node), f"{_name(node)} slope")
            try:
                full = np.broadcast_to(slope, (1, *shape))[0].copy()
            except ValueError:
                raise UnsupportedModel(f"{_name(node)}: a slope of shape {slope.shape} does not fit inputs (N, "
                                       f"{', '.join(map(str, shape))})") from None
            layer = PReLU(full)
        elif op in ("Sigmoid", "Tanh", "Erf", "Gelu"):
            if op == "Gelu" and a.get("approximate", b"none") not in (b"none", "none"):
                raise UnsupportedModel(f"{_name(node)}: the tanh approximation of GELU is not read")
            layer = Activation(op if op != "Gelu" else "GELU", node=_name(node))
        elif op == "Clip":
            low, high = self.clip_bounds(node, a, inputs)
            layer = ReLU() if (low, high) == (0.0, np.inf) else Activation("Clip", low, high, _name(node))
        elif op in ("ReduceMean", "ReduceSum"):
            return self.reduce(node, op, a, inputs, index, shape)
        elif op in ("Unsqueeze", "Squeeze"):
            return self.view(node, op, a, inputs, index, shape)
        elif op == "LeakyRelu":
            slope = float(np.float32(a.get("alpha", 0.01)))
            if not 0 <= slope < 1:
                raise UnsupportedModel(f"{_name(node)}: slope {slope} is outside [0, 1)")
            layer = LeakyReLU(slope)
        elif op == "MaxPool":
            if a.get("ceil_mode", 0) or any(d != 1 for d in a.get("dilations", (1, 1))) \
                    or (len(node.output) > 1 and self.readers.get(node.output[1])):
                raise UnsupportedModel(f"{_name(node)}: ceil_mode, dilations or indices are not read")
            spatial = len(a["kernel_shape"])
            kernel = _in_2d(a["kernel_shape"], spatial, 1)
            layer = MaxPool(kernel, _in_2d(a.get("strides", (1,) * spatial), spatial, 1), _pads_2d(a, node, spatial))
            if spatial == 1:
                return self.in_one_dimension(node, layer, index, shape)
        elif op in ("AveragePool", "GlobalAveragePool"):
            if len(shape) not in (2, 3):
                raise UnsupportedModel(f"{_name(node)}: a 1-d or 2-d pool of inputs (C, L) or (C, H, W) is read, "
                                       f"not of {shape}")
            spatial = len(shape) - 1
            if op == "GlobalAveragePool":
                layer = AveragePool(_in_2d(shape[1:], spatial, 1), (1, 1), (0, 0, 0, 0))
            else:
                pads = _pads_2d(a, node, spatial)
                if a.get("ceil_mode", 0) or any(d != 1 for d in a.get("dilations", (1,) * spatial)) or \
                        (any(pads) and not a.get("count_include_pad", 0)):
                    raise UnsupportedModel(f"{_name(node)}: ceil_mode, dilations, or pads left out of the divisor "
                                           "(count_include_pad = 0) are not read")
                layer = AveragePool(_in_2d(a["kernel_shape"], spatial, 1),
                                    _in_2d(a.get("strides", (1,) * spatial), spatial, 1), pads)
            if spatial == 1:
                return self.in_one_dimension(node, layer, index, shape)
        elif op == "Transpose":
            perm = list(a["perm"]) if "perm" in a else list(range(len(shape) + 1))[::-1]   # default: reversed
            if perm[:1] != [0]:
                raise UnsupportedModel(f"{_name(node)}: a Transpose that moves the batch axis is not read "
                                       f"(perm {perm}); one that reorders each example's axes is")
            layer = Permute(tuple(axis - 1 for axis in perm[1:]))
        elif op == "Flatten":
            if a.get("axis", 1) != 1:
                raise UnsupportedModel(f"{_name(node)}: only axis = 1 is read")
            layer = Flatten()
        elif op == "Reshape":
            target = self.reshape_target(node, shape, self.constant(inputs[1], node), a)
            if target == shape:
                self.value[node.output[0]] = index
                return
            layer = Flatten()
        else:
            raise UnsupportedModel(f"unsupported ONNX operator {op} ({_name(node)})")
        self.add_layer(layer, [index], output_shape(layer, shape), node)

    def pass_through(self, node, op, a, inputs) -> None:
        """Identity, Dropout in inference, a Cast to the same or a wider float type: the value unchanged."""
        index = self.source(inputs[0], node)
        if op == "Dropout":
            training = inputs[2] if len(node.input) > 2 and node.input[2] else None
            if (training is not None and (not self.is_constant(training) or bool(self.constants[training]))) \
                    or a.get("is_test", 1) == 0 or (len(node.output) > 1 and self.readers.get(node.output[1])):
                raise UnsupportedModel(f"{_name(node)} is in training mode or its mask is read")
        if op == "Cast":
            bits = FLOAT_TYPES.get(a.get("to"))
            if bits is None or bits < self.bits[index]:
                raise UnsupportedModel(f"{_name(node)}: a Cast to element type {a.get('to')} rounds or leaves the "
                                       "floats; a Cast to the same or a wider float type is read")
        self.value[node.output[0]] = index

    def residual(self, node, data: list[str]) -> None:
        """a + b of two values of one shape: the sum of a skip connection."""
        first, second = (self.source(name, node) for name in data)
        if self.shapes[first] != self.shapes[second]:
            raise UnsupportedModel(f"{_name(node)} adds shapes {self.shapes[first]} and {self.shapes[second]}; "
                                   "a skip connection adds one shape")
        self.add_layer(Sum(), [first, second], self.shapes[first], node)

    def product(self, node, data: list[str]) -> None:
        """a ⊙ b of two values of one shape: a gate (SiLU, GELU)."""
        first, second = (self.source(name, node) for name in data)
        if self.shapes[first] != self.shapes[second]:
            raise UnsupportedModel(f"{_name(node)} multiplies shapes {self.shapes[first]} and {self.shapes[second]}; "
                                   "a product of one shape (a gate) is read")
        self.add_layer(Product(_name(node)), [first, second], self.shapes[first], node)

    def in_one_dimension(self, node, layer, index: int, shape: tuple) -> None:
        """A 1-d convolution or pool on (C, L): read as the 2-d one on (C, 1, L), between two Views."""
        if len(shape) != 2:
            raise UnsupportedModel(f"{_name(node)}: a 1-d layer reads inputs (C, L), not {shape}")
        tall = (shape[0], 1, shape[1])
        self.add_layer(View(tall), [index], tall, node)
        inner = output_shape(layer, tall)
        self.add_layer(layer, [len(self.layers)], inner, node)
        flat = (inner[0], inner[2])
        self.add_layer(View(flat), [len(self.layers)], flat, node)

    def clip_bounds(self, node, a: dict, inputs: list) -> tuple[float, float]:
        """Clip's bounds (attributes before opset 11, constant inputs since; absent: unbounded)."""
        if self.opset < 11:
            return float(a.get("min", -np.inf)), float(a.get("max", np.inf))
        bounds = []
        for position, default in ((1, -np.inf), (2, np.inf)):
            name = node.input[position] if len(node.input) > position else ""
            bounds.append(float(_float_array(self.constant(name, node), f"{_name(node)} bound").reshape(-1)[0])
                          if name else default)
        return bounds[0], bounds[1]

    def reduce(self, node, op, a: dict, inputs: list, index: int, shape: tuple) -> None:
        """ReduceMean or ReduceSum over every spatial axis: a global average pool (times the window for a
        sum), keepdims or flattened."""
        from fractions import Fraction
        if self.opset >= 18 or op == "ReduceSum" and self.opset >= 13:
            axes = self.constant(inputs[1], node).astype(np.int64).tolist() if len(inputs) > 1 else None
        else:
            axes = a.get("axes")
        rank = len(shape) + 1
        spatial = list(range(2, rank))
        reduced = sorted({int(v) % rank for v in axes}) if axes is not None else spatial
        # a global pool: every spatial axis longer than 1 reduced, and nothing else
        if not set(reduced) <= set(spatial) or any(shape[a - 1] > 1 for a in spatial if a not in reduced) \
                or len(shape) not in (2, 3):
            raise UnsupportedModel(f"{_name(node)} over axes {axes} of inputs (N, {', '.join(map(str, shape))}): "
                                   f"a {op} over the spatial axes {spatial} (a global pool) is read")
        keep = a.get("keepdims", 1)
        tall = shape if len(shape) == 3 else (shape[0], 1, shape[1])
        if len(shape) == 2:
            index = self.add_layer(View(tall), [index], tall, node)
        index = self.add_layer(AveragePool(tall[1:], (1, 1), (0, 0, 0, 0)), [index], (shape[0], 1, 1), node)
        if op == "ReduceSum":
            window = np.full((shape[0], 1, 1), Fraction(tall[1] * tall[2]), dtype=object)
            index = self.add_layer(Standardize(window, np.full(window.shape, Fraction(0), dtype=object), False),
                                   [index], (shape[0], 1, 1), node)
        final = tuple(1 if axis + 1 in reduced else size for axis, size in enumerate(shape)) if keep else \
            tuple(size for axis, size in enumerate(shape) if axis + 1 not in reduced)
        if final != (shape[0], 1, 1):
            self.add_layer(View(final), [index], final, node)

    def view(self, node, op, a: dict, inputs: list, index: int, shape: tuple) -> None:
        """Unsqueeze or Squeeze of the data, the batch axis kept: each example's values reshaped."""
        axes = a.get("axes") if len(inputs) < 2 else self.constant(inputs[1], node).astype(np.int64).tolist()
        rank = len(shape) + 1
        if op == "Unsqueeze":
            axes = sorted(int(v) % (rank + len(axes)) for v in axes)
            full = [None] + list(shape)
            for axis in axes:
                full.insert(axis, 1)
            moved = 0 in axes
        else:
            axes = sorted(int(v) % rank for v in axes) if axes is not None else \
                [k + 1 for k, size in enumerate(shape) if size == 1]
            moved = 0 in axes or any(shape[axis - 1] != 1 for axis in axes)
            full = [None] + [size for k, size in enumerate(shape) if k + 1 not in axes]
        if moved or full[0] is not None:
            raise UnsupportedModel(f"{_name(node)} on axes {axes}: an {op} that keeps the batch first is read")
        self.add_layer(View(tuple(full[1:])), [index], tuple(full[1:]), node)

    def with_constant(self, node, op, index, shape, inputs) -> None:
        """Add of a bias after a MatMul or a Conv without one; else, at the input, a normalisation."""
        from fractions import Fraction
        c = _float_array(self.constant(inputs[1], node), f"{_name(node)} constant")
        layer = self.layers[index - 1] if index else None
        if op == "Add" and isinstance(layer, (Dense, Conv)) and layer.bias is None and self.read_once(index):
            self.weight(inputs[1], node, "bias")
            units = layer.weight.shape[0]
            fits = c.shape in (((units,), (1, units)) if isinstance(layer, Dense) else ((units, 1, 1), (1, units, 1, 1)))
            if not fits:
                raise UnsupportedModel(f"{_name(node)}: a bias of shape {c.shape} is not one per unit")
            layer.bias, layer.source["bias"] = c.reshape(-1), self.origin[inputs[1]][0]
            self.value[node.output[0]] = index
            return
        if op == "Add" and self.channels_last_bias(node, index, c, inputs):
            return
        full = (1, *shape)
        if c.ndim > len(full) or any(d not in (1, f) for d, f in zip(c.shape[::-1], full[::-1])) \
                or (c.ndim == len(full) and c.shape[0] != 1):
            raise UnsupportedModel(f"{_name(node)}: a constant of shape {c.shape} does not fit inputs (N, "
                                   f"{', '.join(map(str, shape))})")
        if op == "Div" and np.any(c == 0):
            raise UnsupportedModel(f"{_name(node)} divides by 0")
        exact = np.vectorize(Fraction, otypes=[object])(c.reshape(c.shape if c.ndim == len(full) else
                                                                  (1,) * (len(full) - c.ndim) + c.shape))
        ones, zeros = np.full(exact.shape, Fraction(1), dtype=object), np.full(exact.shape, Fraction(0), dtype=object)
        scale, shift = {"Add": (ones, exact), "Sub": (ones, -exact), "Mul": (exact, zeros),
                        "Div": (1 / exact, zeros)}[op]
        self.add_layer(Standardize(scale, shift, self.only_normalisation_before(index)), [index], shape, node)

    def channels_last_bias(self, node, index: int, c: np.ndarray, inputs: list) -> bool:
        """Keras 3's convolution bias: added after the Transpose back to channels-last (NHWC), one per
        channel on the last axis, to a Conv without one that only the Transpose reads: read as the
        Conv's bias (the Add's value is the Transpose's)."""
        permute = self.layers[index - 1] if index else None
        if not isinstance(permute, Permute) or not self.read_once(index):
            return False
        inner = self.sources[index - 1][0]
        conv = self.layers[inner - 1] if inner else None
        rank = len(permute.axes)
        if not (isinstance(conv, Conv) and conv.bias is None and self.read_once(inner)
                and permute.axes == tuple(range(1, rank)) + (0,)):
            return False
        channels = conv.weight.shape[0]
        if c.size != channels or c.shape[-1] != channels:
            return False
        self.weight(inputs[1], node, "bias")
        conv.bias, conv.source["bias"] = c.reshape(-1), self.origin[inputs[1]][0]
        self.value[node.output[0]] = index
        return True

    def reshape_target(self, node, shape: tuple, target: np.ndarray, a: dict) -> tuple:
        """The shape (without the batch) a Reshape gives inputs (N, *shape), checked: the batch stays
        first (read as a -1, a 0, the folded batch, or the fixed batch size); the rest is computed."""
        entries = list(target.reshape(-1))
        features = int(np.prod(shape, dtype=np.int64))
        described = f"{_name(node)} to [{', '.join(map(str, entries))}] of inputs (N, {', '.join(map(str, shape))})"
        if not entries:
            raise UnsupportedModel(f"{described}: the batch must stay")
        first, rest = entries[0], []
        for k, v in enumerate(entries[1:]):
            if v is BATCH:
                raise UnsupportedModel(f"{described}: the batch is read in the first place only")
            if int(v) == 0 and (a.get("allowzero", 0) or k >= len(shape)):
                raise UnsupportedModel(f"{described}: a 0 copies no dimension of the input there")
            rest.append(shape[k] if int(v) == 0 else int(v))     # a 0 copies the input's dimension
        known = int(np.prod([v for v in rest if v != -1], dtype=np.int64))
        batch_first = first is BATCH or first == 0 or (self.batch is not None and first == self.batch)
        if first == -1 and -1 not in rest:
            batch_first = known == features      # [-1, k]: the batch only if k holds every feature
        if not batch_first or rest.count(-1) > 1:
            raise UnsupportedModel(f"{described}: it moves examples across the batch; a reshape that keeps "
                                   "each example in its row is read")
        if -1 in rest:
            if known == 0 or features % known:
                raise UnsupportedModel(f"{described}: the sizes do not divide")
            rest[rest.index(-1)] = features // known
        if int(np.prod(rest, dtype=np.int64)) != features:
            raise UnsupportedModel(f"{described}: {int(np.prod(rest))} features per example, the input has {features}")
        result = tuple(rest)
        if result not in (shape, (features,)):
            raise UnsupportedModel(f"{described}: only a flatten to (N, {features}) is read")
        return result


def _batch_norm_mentions(model) -> list[str]:
    """Names and metadata in the graph that speak of a batch normalization (when none is left as a node:
    an exporter folded it into the previous layer)."""
    found = []
    for node in model.graph.node:
        texts = [node.name] + [p.value for p in node.metadata_props]
        if any("batchnorm" in t.lower().replace("_", "") for t in texts):
            found.append(node.name or node.output[0])
    return found


def _input_shape(value_info) -> tuple:
    dims = value_info.type.tensor_type.shape.dim
    shape = tuple(d.dim_value if d.HasField("dim_value") else None for d in dims[1:])
    if any(d is None for d in shape):
        raise UnsupportedModel(f"input {value_info.name} has a symbolic dimension past the batch")
    return shape


def _input_bits(value_info) -> int:
    return FLOAT_TYPES.get(value_info.type.tensor_type.elem_type, 0)


def _input_dtype(value_info) -> np.dtype:
    from onnx import helper
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(value_info.type.tensor_type.elem_type))
    if dtype not in (np.float32, np.float64):
        raise UnsupportedModel(f"input {value_info.name} has element type {dtype}; float32 or float64 is read")
    return dtype


def import_network(model, output: str | None = None) -> TrainedNetwork:
    """The network of an ONNX model (already checked by ``load_model``), up to the tensor the loss reads."""
    return _Reader(model, output).read()


def output_shape(layer, shape: tuple) -> tuple:
    """The shape (without the batch) of a layer's output on inputs of the given shape."""
    def fail(expected):
        raise UnsupportedModel(f"{type(layer).__name__} layer expects {expected}, gets inputs of shape {shape}")
    if isinstance(layer, Dense):
        return (layer.weight.shape[0],) if shape == (layer.weight.shape[1],) else fail(f"({layer.weight.shape[1]},)")
    if isinstance(layer, Diagonal):
        return shape if shape[:1] == layer.scale.shape else fail(f"{layer.scale.shape[0]} channels")
    if isinstance(layer, Conv):
        if len(shape) != 3 or shape[0] != layer.weight.shape[1] * layer.groups:
            fail(f"({layer.weight.shape[1] * layer.groups}, H, W)")
        out = [(size + layer.pads[i] + layer.pads[i + 2] - layer.dilations[i] * (layer.weight.shape[2 + i] - 1) - 1)
               // layer.strides[i] + 1 for i, size in enumerate(shape[1:])]
        return (layer.weight.shape[0], *out)
    if isinstance(layer, (MaxPool, AveragePool)):
        if len(shape) != 3:
            fail("(C, H, W)")
        out = [(size + layer.pads[i] + layer.pads[i + 2] - layer.kernel[i]) // layer.strides[i] + 1
               for i, size in enumerate(shape[1:])]
        return (shape[0], *out)
    if isinstance(layer, Flatten):
        return (int(np.prod(shape)),)
    if isinstance(layer, Permute):
        if sorted(layer.axes) != list(range(len(shape))):
            fail(f"a permutation of {len(layer.axes)} axes")
        return tuple(shape[axis] for axis in layer.axes)
    if isinstance(layer, View):
        if int(np.prod(layer.shape)) != int(np.prod(shape)):
            fail(f"{int(np.prod(layer.shape))} values")
        return tuple(layer.shape)
    return shape


def network_shapes(network: TrainedNetwork) -> list[tuple]:
    """The shape (without the batch) of every value: the input's, then each layer's output's."""
    shapes = [tuple(network.input_shape)]
    for layer, sources in zip(network.layers, network.wiring()):
        shapes.append(output_shape(layer, shapes[sources[0]]))
    return shapes


def reference_model(model, tensor: str):
    """A copy of the model whose one output is the tensor read (the logits before a Softmax, the
    probabilities before a ZipMap), without the nodes it does not need: onnxruntime runs only those."""
    import copy

    from onnx import helper
    out = copy.deepcopy(model)
    needed = ancestors(out.graph, tensor)
    del out.graph.node[:]
    out.graph.node.extend(needed)
    del out.graph.output[:]
    out.graph.output.append(helper.make_tensor_value_info(tensor, _elem_type(model, tensor), None))
    return out


def _elem_type(model, tensor: str) -> int:
    for info in list(model.graph.output) + list(model.graph.value_info) + list(model.graph.input):
        if info.name == tensor and info.type.tensor_type.elem_type:
            return info.type.tensor_type.elem_type
    try:
        import onnx
        inferred = onnx.shape_inference.infer_shapes(model)
        for info in inferred.graph.value_info:
            if info.name == tensor and info.type.tensor_type.elem_type:
                return info.type.tensor_type.elem_type
    except Exception:  # shape inference is a convenience here; float32 is what exporters write
        pass
    return 1


def _one_line(error: Exception) -> str:
    """onnxruntime's whole message on one line (it names the node and the dimension)."""
    return " ".join(line.strip() for line in str(error).strip().splitlines() if line.strip()) or type(error).__name__


def onnxruntime_session(model):
    import onnxruntime
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime's own exception types
        raise UnsupportedModel(f"onnxruntime cannot load the model: {_one_line(error)}") from None


def onnxruntime_outputs(model, inputs: np.ndarray, batch: int | None = None, tensor: str | None = None,
                        chunk: int = 1024) -> np.ndarray:
    """The reference forward pass: onnxruntime's values of the tensor read (default the first
    output) on the inputs, as float64, run in batches of the model's fixed batch size (the last
    padded with the first example, its extra rows dropped) or in chunks of ``chunk`` examples."""
    session = onnxruntime_session(model if tensor is None else reference_model(model, tensor))
    name, size = session.get_inputs()[0].name, batch or chunk
    pieces = []
    try:
        for start in range(0, len(inputs), size):
            part = inputs[start:start + size]
            rows = len(part)
            if batch is not None and rows < batch:
                part = np.concatenate([part, np.repeat(inputs[:1], batch - rows, axis=0)])
            pieces.append(np.asarray(session.run(None, {name: part})[0], dtype=np.float64)[:rows])
    except Exception as error:  # onnxruntime's own exception types
        raise UnsupportedModel(f"onnxruntime cannot run the model: {_one_line(error)}") from None
    return np.concatenate(pieces) if pieces else np.zeros((0,))
