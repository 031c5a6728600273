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


# at least two scripts per worker: each script runs whole in a worker and its report comes back
WHOLE_SCRIPTS = ["theorem2", "theorem4", "flat_directions", "biases", "--max-d", "1", "--max-h", "2",
                 "--max-n", "1", "--json"]
# one script at one size: its claims themselves are shared out among the parts
ONE_SIZE = ["theorem3", "--size", "2,2,2", "--json"]


@pytest.mark.parametrize("sweep", [WHOLE_SCRIPTS, ONE_SIZE], ids=["whole scripts", "one size"])
def test_every_way_of_cutting_a_sweep_gives_the_rows_of_one_process(cli, sweep):
    assert rows_without_times(cli(*sweep, "--jobs", "2")) == rows_without_times(cli(*sweep, "--jobs", "1"))


def test_tasks_are_whole_scripts_or_parts_in_proportion_to_the_sizes():
    from proofs.commands import parallel
    import proofs.theorem1_observational_equivalence as theorem1
    import proofs.theorem3_derivative_transformation as theorem3
    sizes = [(1, 1, n) for n in range(1, 9)]

    def parts(plans, workers):
        """How many parts each script is cut into; each part appears once."""
        tasks = parallel._tasks(plans, workers)
        assert all(t.module == plans[t.position][0].__name__ for t in tasks)
        found = [sorted(t.part for t in tasks if t.position == p) for p in range(len(plans))]
        assert found == [list(range(len(f))) for f in found]
        return [len(f) for f in found]
    # four scripts on two workers: whole; two scripts on two workers: two parts each
    assert parts([(theorem1, sizes), (theorem3, sizes)] * 2, 2) == [1, 1, 1, 1]
    assert parts([(theorem1, sizes), (theorem3, sizes)], 2) == [2, 2]
    # one script with most of the sizes spreads, the small ones stay whole
    assert parts([(theorem3, sizes * 4)] + [(theorem1, sizes[:1])] * 4, 2) == [4, 1, 1, 1, 1]


@pytest.mark.parametrize("args", [["--jobs", "0"], ["--jobs", "two"], ["--dask", "nonsense://"]])
def test_bad_parallel_arguments_give_one_line_and_exit_2(cli, args):
    result = cli("theorem3", "--size", "1,1,1", *args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("after", [0.2, 4.0], ids=["while loading", "while checking"])
def test_ctrl_c_stops_every_process_with_one_line_and_exit_130(after):
    import signal
    import subprocess
    import sys
    import time
    # SIGINT as a terminal leaves it (a shell's background job would have it ignored, and the child
    # would inherit that)
    run = subprocess.Popen([sys.executable, "-m", "proofs", "--jobs", "2"], cwd=ROOT, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(after)
    os.killpg(run.pid, signal.SIGINT)       # as a terminal's Ctrl-C: the whole process group
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130 and stderr.strip() == "proofs: interrupted"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(run.pid, 0)           # some process of the group is still there
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("worker processes outlived the interrupted run")
