"""A trained model from ONNX: its import, its exactly rescaled twin, and the sharpness measures at its parameters."""
