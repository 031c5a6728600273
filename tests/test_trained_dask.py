"""--dask ADDRESS: the examples sharded over Dask workers, each computing its batches' shares of the
loss, the gradient and the Hessian-vector products, summed by the client — the same numbers as one
process with the same batches, bit for bit, on a local cluster of two worker processes."""
import json
import os
from fractions import Fraction

import numpy as np
import onnx
import pytest

from proofs.commands.cli import main
from symbolic.trained.autodiff import Objective
from symbolic.trained.experiment import build_twins, measure, read_data
from symbolic.trained.measures import KEYS
from symbolic.trained.onnx_export import export_chain
from symbolic.trained.onnx_import import import_network
from symbolic.trained.sharding import on_dask

distributed = pytest.importorskip("dask.distributed", reason="the dask extra is not installed")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RNG = np.random.default_rng(5)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


MODEL = export_chain([("gemm", f32(8, 4), f32(8)), ("relu",), ("gemm", f32(6, 8), f32(6)), ("relu",),
                      ("gemm", f32(3, 6), f32(3))], (4,))
X, LABELS = f32(90, 4), RNG.integers(0, 3, 90)


@pytest.fixture(scope="module")
def client():
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  env={"PYTHONPATH": path}) as cluster, distributed.Client(cluster) as client:
        yield client


def run_of(loss="cross_entropy"):
    network = import_network(MODEL)
    x, y = read_data(network, X, LABELS, loss)
    return build_twins(MODEL, network, x, y, [Fraction(4)], "per_neuron")


def test_each_sharded_quantity_is_the_one_process_sum(client):
    run = run_of()
    theta, v = run.network.flat_parameters(), RNG.standard_normal(run.network.parameter_count)
    # 90 examples on 2 workers: 2 batches of 45; one process with the same batches sums the same terms
    sharded = Objective(run.network, run.x, run.y, "cross_entropy", shards=on_dask(client))
    local = Objective(run.network, run.x, run.y, "cross_entropy", batch=45)
    assert len(sharded.batches.batches) == 2
    assert {worker for _, worker in sharded.batches.batches} == set(client.scheduler_info()["workers"])
    for dtype in (np.float64, np.float32):              # the precisions the measures use
        value, gradient = sharded.value_and_gradient(theta, dtype)
        expected_value, expected_gradient = local.value_and_gradient(theta, dtype)
        assert value == expected_value and gradient.tolist() == expected_gradient.tolist()
        assert sharded.hvp(theta, v, dtype).tolist() == local.hvp(theta, v, dtype).tolist()
    # (the outputs, the loss alone and the radial derivatives: through the measures, below)
    # and against the data whole in one batch: the same numbers but for the order of the sum
    whole = Objective(run.network, run.x, run.y, "cross_entropy")
    assert np.allclose(sharded.hvp(theta, v), whole.hvp(theta, v), rtol=1e-12, atol=1e-14)
    assert sharded.loss(theta) == pytest.approx(whole.loss(theta), rel=1e-13)


def test_the_command_with_dask_measures_what_one_process_measures(client, tmp_path, capsys):
    """Every measure at θ and at T_α θ, sharded by the command, equals the one-process measure with
    the same batches (2 of 45), to the last bit; a measure the rescaling moves moves there too."""
    onnx.save(MODEL, str(tmp_path / "model.onnx"))
    np.savez(tmp_path / "data.npz", x=X, y=LABELS)
    assert main(["rescale", str(tmp_path / "model.onnx"), "--data", str(tmp_path / "data.npz"), "--alpha", "4",
                 "--group", "per_neuron", "--loss", "cross_entropy", "--json", "--dask", client.scheduler.address]) == 0
    sharded = json.loads(capsys.readouterr().out)
    local = run_of()
    measure(local, KEYS, "cross_entropy", batch=45)
    assert sharded["predictions_identical"] and sharded["loss_value"] == local.loss
    for key in KEYS:
        before, after = local.measures[key]
        assert [sharded["measures"][key]["original"], *sharded["measures"][key]["rescaled"]] == \
            [before.value, after[0].value], key
    assert sharded["measures"]["weight_norm"]["ratio"][0] != 1


def test_a_cluster_without_workers_is_one_line_exit_2(tmp_path, capsys):
    onnx.save(MODEL, str(tmp_path / "model.onnx"))
    np.savez(tmp_path / "data.npz", x=X, y=LABELS)
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty:
        assert main(["rescale", str(tmp_path / "model.onnx"), "--data", str(tmp_path / "data.npz"),
                     "--loss", "cross_entropy", "--dask", empty.scheduler_address]) == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == ["proofs: error: the Dask cluster has no workers"]
