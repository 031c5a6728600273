"""--jobs and --dask: the same rows, verdicts and order as a run on one process."""
import json
import os

import pytest

from conftest import ROOT

SWEEP = ["theorem3", "theorem1", "--max-d", "2", "--max-h", "1", "--max-n", "2", "--json"]


def rows_without_times(result):
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


@pytest.fixture(scope="module")
def one_process(request):
    from conftest import run_cli
    return rows_without_times(run_cli(*SWEEP, "--jobs", "1"))


def test_results_and_their_order_do_not_depend_on_the_number_of_processes(cli, one_process):
    assert rows_without_times(cli(*SWEEP, "--jobs", "2")) == one_process


def test_a_dask_cluster_gives_the_same_results(cli, one_process):
    from dask import distributed
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, env={"PYTHONPATH": path}) as cluster:
        rows = rows_without_times(cli(*SWEEP, "--dask", cluster.scheduler_address))
    assert rows == one_process


@pytest.mark.parametrize("args", [["--jobs", "0"], ["--jobs", "two"], ["--dask", "nonsense://"]])
def test_bad_parallel_arguments_give_one_line_and_exit_2(cli, args):
    result = cli("theorem3", "--size", "1,1,1", *args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
