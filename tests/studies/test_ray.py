"""The same sweep on a real Ray cluster of two nodes on loopback (a head and a worker node,
each with its own raylet and worker processes); the worker node is killed mid-sweep."""

import os
import signal
import time

import pytest

# every address on loopback: Ray otherwise replaces 127.0.0.1 by the machine's own address
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

import swarmstack.results as results  # noqa: E402
from swarmstack.studies.executors import RayExecutor  # noqa: E402
from swarmstack.studies.plan import make_study, read_experiment  # noqa: E402
from swarmstack.studies.runner import run_study  # noqa: E402
from tests.studies.conftest import ROOT  # noqa: E402

# loopback only: every node and the driver on 127.0.0.1
NODE = {"num_cpus": 1, "object_store_memory": 80 << 20, "node_ip_address": "127.0.0.1"}


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat") as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            return False
    return False


@pytest.fixture
def cluster(monkeypatch):
    # the nodes' worker processes import swarmstack and the test controllers from this tree
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    c = Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    worker = c.add_node(**NODE)
    c.wait_for_nodes()
    try:
        yield c, worker
    finally:
        ray.shutdown()
        c.shutdown()


def test_a_sweep_across_two_nodes_survives_a_node_killed(cluster, experiment, tmp_path):
    c, worker = cluster
    path = experiment(ticks=8, controller="Slow")
    spec = make_study(read_experiment(path), str(path), path.parent,
                      ["robots.0.controller.params.speed=0.02:0.05:4",
                       "robots.0.controller.params.sleep_s=0.15"], seeds=2)
    ex = RayExecutor(c.address)
    assert ex.workers == 2
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
    killed = []

    def kill_worker_node(batch_results):
        if killed:
            return
        # wait until both nodes are inside a run (each run writes under .tmp-… until done)
        deadline = time.monotonic() + 30
        while len(list((tmp_path / "ray" / "runs").glob(".tmp-*"))) < 2 and \
                time.monotonic() < deadline:
            time.sleep(0.01)
        raylet = worker.all_processes["raylet"][0].process.pid
        for p in (tmp_path / "ray" / "runs").glob(".tmp-*"):
            pid = int(p.name.split("-")[2])
            if _descends_from(pid, raylet):   # the run on the worker node: kill it there
                os.kill(pid, signal.SIGKILL)
                killed.append(p.name)
        c.remove_node(worker, allow_graceful=False)

    try:
        out = run_study(spec, tmp_path / "ray", executor=ex, batch_runs=1, progress=False,
                        on_batch=kill_worker_node)
    finally:
        ex.shutdown()
    assert len(killed) == 1 and out.ok and out.done == 8
    hosts = {s for s in os.listdir(tmp_path / "ray" / "runs") if s.startswith(".tmp-")}
    assert hosts == set(killed), "the killed run's unfinished folder stays (until a resume)"
    local = run_study(spec, tmp_path / "local", workers=1, batch_runs=1, progress=False)
    assert local.ok
    a, b = results.open(tmp_path / "ray"), results.open(tmp_path / "local")
    assert a.execute("select count(*), count(distinct run_id) from runs where status = 'done'"
                     ).fetchone() == (8, 8)
    q = "select run_id, tick, robot, x, y, yaw from trajectories order by all"
    assert a.execute(q).fetchall() == b.execute(q).fetchall()
