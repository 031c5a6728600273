"""Models exported by torch itself, where torch is installed (CI does not install it: its PyPI wheel
pulls several GB of GPU libraries; the graphs both exporters write are built node for node in
test_onnx_exporters.py)."""
import json

import numpy as np
import pytest

from proofs.commands.cli import main

torch = pytest.importorskip(
    "torch", reason="torch is not installed (its wheel pulls several GB of GPU libraries); the graphs its "
                    "exporters write are built with onnx.helper in tests/test_onnx_exporters.py")
nn = torch.nn


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.first, self.inner, self.outer, self.last = nn.Linear(8, 6), nn.Linear(6, 5), nn.Linear(5, 6), nn.Linear(6, 3)

    def forward(self, x):
        h = torch.relu(self.first(x))
        h = torch.relu(h + self.outer(torch.relu(self.inner(h))))
        return torch.softmax(self.last(h), dim=1)


class ConvView(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn, self.fc = nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3), nn.Linear(27, 3)

    def forward(self, x):
        h = nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return self.fc(h.view(h.size(0), -1))


@pytest.mark.parametrize("make, shape", [(Residual, (8,)), (ConvView, (2, 6, 6))])
@pytest.mark.parametrize("dynamo", [True, False])
def test_torch_exports_with_a_fixed_batch_are_read(tmp_path, capsys, make, shape, dynamo):
    if dynamo:
        pytest.importorskip("onnxscript", reason="torch's dynamo exporter needs onnxscript")
    torch.manual_seed(0)
    model = make().eval()
    x = torch.randn(16, *shape)
    torch.onnx.export(model, (x,), str(tmp_path / "m.onnx"), dynamo=dynamo)     # the batch fixed at 16
    capsys.readouterr()                     # the exporter's own progress lines are not the report
    data = np.random.default_rng(0).standard_normal((40, *shape)).astype(np.float32)
    np.savez(tmp_path / "d.npz", x=data, y=np.random.default_rng(1).integers(0, 3, 40))
    assert main(["rescale", str(tmp_path / "m.onnx"), "--data", str(tmp_path / "d.npz"), "--loss", "cross_entropy",
                 "--json", "--measures", "path_norm"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["predictions_identical"] and report["read"]["fixed_batch"] == 16
    # the loss read is torch's CrossEntropyLoss of the logits (the Softmax part of it)
    with torch.no_grad():
        out, labels = model(torch.from_numpy(data)).double(), torch.from_numpy(np.load(tmp_path / "d.npz")["y"])
        expected = nn.NLLLoss()(torch.log(out), labels) if make is Residual else nn.CrossEntropyLoss()(out, labels)
    assert report["loss_value"] == pytest.approx(float(expected), rel=1e-4)
    if make is Residual:
        assert report["read"]["ending"] == "Softmax" and report["read"]["skip_connections"] == 1
