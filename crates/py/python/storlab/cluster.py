"""``storlab.io_cluster``: one ``storlab io`` per Ray node (or per worker process on one
machine), all started together, merged into one result: IOPS and MB/s summed, latency
percentiles from the exact merge of every host's latency histogram (never an average of
percentiles), each host's row beside the total."""

from __future__ import annotations

import os
import socket
import time
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _native

#: Seconds between the barrier (every host ready) and the common start: time for the
#: start call to reach every host.
START_DELAY_S = 0.5
#: Seconds the hosts get to stop and clean up after Ctrl-C before their processes end.
STOP_WAIT_S = 30.0


class IoHost:
    """A Ray actor that runs ``storlab io`` on its node (its own target)."""

    def ready(self) -> Dict[str, Any]:
        import ray

        return {"host": socket.gethostname(), "pid": os.getpid(),
                "node": ray.get_runtime_context().get_node_id()}

    def run(self, start_at: float, argv: List[str]) -> Dict[str, Any]:
        time.sleep(max(0.0, start_at - time.time()))
        started = time.time()
        try:
            result, histogram, stopped = _native.io_run(argv)
        except (_native.BadInput, _native.RunFailed) as e:
            return {"error": str(e), "bad_input": isinstance(e, _native.BadInput)}
        return {"json": result.to_json(), "histogram": histogram.to_dict(),
                "started": started, "stopped": stopped}

    def stop(self) -> None:
        """Stops a run as Ctrl-C does: storlab io ends its I/O and removes the files it
        created (runs beside ``run``: the actor has two threads)."""
        _native.request_stop()


class ClusterResult:
    """The merged run: ``hosts`` (each host's Result), ``histograms`` (each host's latency
    histogram), ``merged`` (their exact merge), ``total`` (summed throughput and the merged
    percentiles), ``start_skew_ms`` (latest minus earliest start), and ``to_polars()`` /
    ``to_arrow()``: one row per host and a last row "total"."""

    def __init__(self, rows: List[Dict[str, Any]], hosts: List[Any],
                 histograms: List[Any], skew_ms: float) -> None:
        self.rows, self.hosts, self.histograms = rows, hosts, histograms
        self.merged = histograms[0]
        for h in histograms[1:]:
            self.merged = self.merged.merged(h)
        self.start_skew_ms = skew_ms
        self.total = _total(rows, self.merged)

    def to_dicts(self) -> List[Dict[str, Any]]:
        return [*self.rows, self.total]

    def to_arrow(self) -> Any:
        import pyarrow as pa

        return pa.Table.from_pylist(self.to_dicts(), schema=SCHEMA())

    def to_polars(self) -> Any:
        import polars as pl

        return pl.from_arrow(self.to_arrow())

    def __repr__(self) -> str:
        t = self.total
        return (f"<storlab.ClusterResult {len(self.rows)} hosts: {t['iops']:.0f} IO/s, "
                f"p99 {t['latency_ms_p99']} ms>")


LATENCY = ("mean", "p50", "p95", "p99", "p999", "max")
SUMMED = ("iops", "read_iops", "write_iops", "mbps", "read_mbps", "write_mbps", "ios")


def SCHEMA() -> Any:
    """The table's columns and types (part of the interface, like the runs table)."""
    import pyarrow as pa

    return pa.schema([("host", pa.string()), ("node", pa.string()), ("target", pa.string()),
                      *[(k, pa.uint64() if k == "ios" else pa.float64()) for k in SUMMED],
                      *[(f"latency_ms_{k}", pa.float64()) for k in LATENCY],
                      ("started_s", pa.float64())])


def _row(info: Dict[str, Any], target: str, run: Dict[str, Any], started: float) -> Dict:
    m = run["metrics"]
    row = {"host": f"{info['host']}:{info['pid']}", "node": info["node"], "target": target}
    row.update({k: m[k] for k in SUMMED})
    row.update({f"latency_ms_{k}": m["latency_ms"][k] for k in LATENCY})
    row["started_s"] = started
    return row


def _total(rows: List[Dict[str, Any]], merged: Any) -> Dict[str, Any]:
    total: Dict[str, Any] = {"host": "total", "node": None, "target": None}
    for k in SUMMED:
        total[k] = sum(r[k] for r in rows) if k == "ios" else round(sum(r[k] for r in rows), 3)
    total.update({f"latency_ms_{k}": v for k, v in merged.summary_ms().items()})
    total["started_s"] = min(r["started_s"] for r in rows)
    return total


def _targets(target: Union[str, "os.PathLike[str]", Sequence[Any]], n: int) -> List[str]:
    if isinstance(target, (list, tuple)):
        if len(target) != n:
            raise _native.BadInput(f"target: {len(target)} targets for {n} hosts; give one "
                                   "per host, or one path with {i} (the host's index)")
        return [os.fspath(t) for t in target]
    text = os.fspath(target)
    return [text.format(i=i) for i in range(n)]


def _placements(ray: Any, hosts: Union[None, int, Sequence[str]]) -> List[Dict[str, Any]]:
    """Actor options: one per node (hosts None: every alive node; a list: those node ids
    or addresses), or ``hosts`` worker processes spread over the nodes (an int)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    if isinstance(hosts, int):
        if hosts < 1:
            raise _native.BadInput(f"hosts must be at least 1; got {hosts}")
        return [{"scheduling_strategy": "SPREAD"} for _ in range(hosts)]
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    if hosts is not None:
        wanted = list(hosts)
        by = {n["NodeID"]: n for n in nodes} | {n["NodeManagerAddress"]: n for n in nodes}
        missing = [h for h in wanted if h not in by]
        if missing:
            raise _native.BadInput(f"hosts: no alive Ray node {missing[0]!r}")
        nodes = [by[h] for h in wanted]
    return [{"scheduling_strategy": NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)}
            for n in nodes]


def io_cluster(hosts: Union[None, int, Sequence[str]] = None,
               target: Union[str, "os.PathLike[str]", Sequence[Any]] = "storlab-io.dat",
               profile: str = "randread-8k", duration: str = "30s",
               address: Optional[str] = None, **options: Any) -> ClusterResult:
    """Real I/O from several hosts at once: ``storlab io`` on each, merged.

    hosts: None (every alive Ray node, one run each), a list of Ray node ids or node IP
        addresses, or a number of worker processes (on one machine: that many processes).
    target: each host's own file, directory or block device: a list (one per host) or one
        path, where ``{i}`` is replaced by the host's index.
    profile, duration, options: as for storlab.io (size=, warmup=, iodepth=, overwrite=...).
    address: the Ray cluster (as for storlab.sweep).

    The hosts start together: each is made ready (a barrier), then all start at one
    instant. Returns a ClusterResult. Raises BadInput or RunFailed naming the host.
    """
    from . import _ray
    from . import _argv

    ray = _ray.connect(address)
    placements = _placements(ray, hosts)
    targets = _targets(target, len(placements))
    actor = ray.remote(num_cpus=0, max_restarts=0, max_concurrency=2)(IoHost)
    workers = [actor.options(**p).remote() for p in placements]
    refs: List[Any] = []
    try:
        infos = ray.get([w.ready.remote() for w in workers])  # the barrier
        start_at = time.time() + START_DELAY_S
        refs = [w.run.remote(start_at, _argv(dict(target=t, profile=profile,
                                                  duration=duration, **options)))
                for w, t in zip(workers, targets)]
        runs = ray.get(refs)
    except KeyboardInterrupt:
        # Every host stops as on Ctrl-C and cleans up before its process is ended.
        ray.get([w.stop.remote() for w in workers])
        ray.wait(refs, num_returns=len(refs), timeout=STOP_WAIT_S)
        raise
    finally:
        for w in workers:
            ray.kill(w)
    return _merge(infos, targets, runs)


def _merge(infos: List[Dict[str, Any]], targets: List[str],
           runs: List[Dict[str, Any]]) -> ClusterResult:
    import json

    from . import Result

    for info, t, r in zip(infos, targets, runs):
        if "error" in r:
            kind = _native.BadInput if r["bad_input"] else _native.RunFailed
            raise kind(f"host {info['host']} ({t}): {r['error']}")
    if any(r["stopped"] for r in runs):
        raise KeyboardInterrupt("storlab.io_cluster interrupted")
    results = [Result(_native.Result.from_json_text(r["json"])) for r in runs]
    histograms = [_native.Histogram.from_dict(r["histogram"]) for r in runs]
    rows = [_row(i, t, json.loads(r["json"])["runs"][0], r["started"])
            for i, t, r in zip(infos, targets, runs)]
    starts = [r["started"] for r in runs]
    return ClusterResult(rows, results, histograms, (max(starts) - min(starts)) * 1e3)
