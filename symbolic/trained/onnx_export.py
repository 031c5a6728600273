"""Write a chain of layers as an ONNX model with onnx.helper (float32), e.g. a network trained here.

Each layer is a tuple:
    ("gemm", W, b)   ("matmul", W, b)      W: (out, in); b may be None
    ("conv", W, b, strides, pads)          W: (out, in, kh, kw), pads (top, left, bottom, right)
    ("batchnorm", gamma, beta, mean, var, epsilon)
    ("relu",)  ("leaky_relu", slope)  ("maxpool", kernel, strides)  ("flatten",)  ("reshape",)  ("identity",)
"""
from __future__ import annotations

import numpy as np


def export_chain(layers, input_shape: tuple, opset: int = 17):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, initializers, current = [], [], "x"

    def constant(name, values, dtype=np.float32):
        initializers.append(numpy_helper.from_array(np.asarray(values, dtype=dtype), name))
        return name

    for index, (kind, *spec) in enumerate(layers):
        out = f"h{index}"
        if kind in ("gemm", "matmul"):
            weight, bias = spec
            if kind == "gemm":
                inputs = [current, constant(f"W{index}", weight)] + ([constant(f"b{index}", bias)] if bias is not None else [])
                nodes.append(helper.make_node("Gemm", inputs, [out], transB=1))
            else:
                product = out if bias is None else f"p{index}"
                nodes.append(helper.make_node("MatMul", [current, constant(f"W{index}", np.asarray(weight).T)], [product]))
                if bias is not None:
                    nodes.append(helper.make_node("Add", [product, constant(f"b{index}", bias)], [out]))
        elif kind == "conv":
            weight, bias, strides, pads = spec
            inputs = [current, constant(f"W{index}", weight)] + ([constant(f"b{index}", bias)] if bias is not None else [])
            nodes.append(helper.make_node("Conv", inputs, [out], kernel_shape=list(np.shape(weight)[2:]),
                                          strides=list(strides), pads=list(pads)))
        elif kind == "batchnorm":
            *tensors, epsilon = spec
            names = [constant(f"{role}{index}", t) for role, t in zip(("gamma", "beta", "mean", "var"), tensors)]
            nodes.append(helper.make_node("BatchNormalization", [current, *names], [out], epsilon=epsilon))
        elif kind == "relu":
            nodes.append(helper.make_node("Relu", [current], [out]))
        elif kind == "leaky_relu":
            nodes.append(helper.make_node("LeakyRelu", [current], [out], alpha=spec[0]))
        elif kind == "maxpool":
            kernel, strides = spec
            nodes.append(helper.make_node("MaxPool", [current], [out], kernel_shape=list(kernel), strides=list(strides)))
        elif kind == "flatten":
            nodes.append(helper.make_node("Flatten", [current], [out], axis=1))
        elif kind == "reshape":
            nodes.append(helper.make_node("Reshape", [current, constant(f"shape{index}", [0, -1], np.int64)], [out]))
        elif kind == "identity":
            nodes.append(helper.make_node("Identity", [current], [out]))
        else:
            raise ValueError(f"unknown layer kind {kind!r}")
        current = out
    graph = helper.make_graph(nodes, "chain",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", *input_shape])],
                              [helper.make_tensor_value_info(current, TensorProto.FLOAT, ["N", "outputs"])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 9)
    onnx.checker.check_model(model)
    return model
