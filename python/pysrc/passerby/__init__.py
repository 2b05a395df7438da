"""Passerby, a headless robot-sensor simulator: MVSim worlds and MAVS scenes, skeletal-animated
people, lidars, lasers, cameras, IMU and GNSS, with ground-truth labels.

`Simulation` runs a world step by step (the native engine, `passerby._native`);
`export_semantic_kitti` and `export_kitti` turn a recording into those layouts; `sweep` runs
every scenario of a sweep spec (docs/sweeps.md) here on threads or as Ray tasks, writing what
`passerby sweep` writes: the same recordings, exports and manifest.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional, Sequence, Tuple, Union

from . import _native
from ._native import Simulation, WorldError, export_kitti, export_semantic_kitti

__all__ = ["Simulation", "WorldError", "export_kitti", "export_semantic_kitti", "sweep"]

PathLike = Union[str, "os.PathLike[str]"]


def sweep(
    spec: PathLike,
    out: PathLike,
    *,
    engine: str = "local",
    jobs: Optional[int] = None,
    shard: Optional[Tuple[int, int]] = None,
    ray_address: Optional[str] = None,
) -> list[dict[str, Any]]:
    """Runs every scenario of the sweep spec `spec` into the folder `out`, as `passerby sweep`
    does: each scenario's recording and exports in its own folder, a manifest line per attempt
    (`manifest.jsonl`, or the shard's), a failed attempt retried once, scenarios whose outputs
    are already there with their hashes skipped.

    engine: "local" runs scenarios on `jobs` threads of this process (default: cores divided by
        the spec's threads); "ray" runs each attempt as a Ray task, connecting to `ray_address`,
        else to RAY_ADDRESS, else to a local cluster it starts on 127.0.0.1 (and stops).
    shard: (index, count) runs scenarios index, index + count, ... only.

    Returns the records written, in scenario order (a retried scenario has two). Raises
    ValueError for a bad spec (with its file:line:column)."""
    spec, out = os.fspath(spec), os.fspath(out)
    if engine not in ("local", "ray"):
        raise ValueError(f"engine {engine!r}: 'local' or 'ray'")
    skipped, pending = _native._sweep_pending(spec, out, shard, engine)
    records = [json.loads(line) for line in skipped]
    for line in skipped:
        _native._sweep_append(out, line, shard)
    run = _ray_runner(ray_address) if engine == "ray" else _thread_runner(jobs)
    try:
        attempt = 1
        while pending and attempt <= 2:
            lines = run(spec, out, pending, attempt, engine)
            failed = []
            for index, line in zip(pending, lines):
                _native._sweep_append(out, line, shard)
                record = json.loads(line)
                records.append(record)
                if record["status"] == "failed":
                    failed.append(index)
            pending, attempt = failed, attempt + 1
    finally:
        run.close()
    records.sort(key=lambda r: (r["index"], r["attempt"]))
    return records


class _thread_runner:
    """Attempts on threads of this process (the native engine releases the GIL)."""

    def __init__(self, jobs: Optional[int]):
        self.jobs = jobs

    def __call__(self, spec: str, out: str, indices: Sequence[int], attempt: int, engine: str):
        jobs = self.jobs or max(1, os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(indices)))) as pool:
            return list(pool.map(lambda i: _native._sweep_attempt(spec, out, i, attempt, engine), indices))

    def close(self) -> None:
        pass


def _ray_attempt(spec: str, out: str, index: int, attempt: int) -> str:
    """One attempt, in a Ray worker (which imports this package)."""
    from passerby import _native as native

    return native._sweep_attempt(spec, out, index, attempt, "ray")


class _ray_runner:
    """Attempts as Ray tasks: on the cluster at `address` (or RAY_ADDRESS), else on a local
    cluster bound to the loopback interface, started here and stopped by `close`."""

    def __init__(self, address: Optional[str]):
        address = address or os.environ.get("RAY_ADDRESS")
        host = (address or "").rsplit(":", 1)[0].removeprefix("ray://")
        if not address or host in ("localhost", "::1") or host.startswith("127."):
            # Ray's single-machine mode: every Ray process binds to 127.0.0.1 (its
            # --node-ip-address alone leaves the GCS and raylets listening on all interfaces),
            # and a driver finds a loopback cluster's raylet on 127.0.0.1 (without it, the
            # driver looks for one at the machine's own address and waits for ever). Read when
            # ray is imported, and by the processes a cluster starts.
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        import ray

        self.ray = ray
        self.started = False
        if not ray.is_initialized():
            if os.environ.get("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER") == "0":
                from ray._private import ray_constants

                # ray imported before the variable was set: the same switch, as it reads it.
                ray_constants.ENABLE_RAY_CLUSTER = False
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(
                    _node_ip_address="127.0.0.1",
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
                self.started = True
        self.task = ray.remote(num_cpus=1, max_retries=0)(_ray_attempt)

    def __call__(self, spec: str, out: str, indices: Sequence[int], attempt: int, engine: str):
        refs = [self.task.remote(spec, out, i, attempt) for i in indices]
        return self.ray.get(refs)

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()
