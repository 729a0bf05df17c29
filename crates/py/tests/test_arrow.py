"""The Arrow tables' column names and types are an interface: notebooks and sweeps select
columns by name. Adding a column is a change to this list; renaming or retyping one breaks
users."""

import pyarrow as pa
import polars as pl
import storlab

RUNS = [
    ("run", pa.uint32()), ("target", pa.string()), ("workload", pa.string()),
    ("kind", pa.string()), ("seed", pa.uint64()), ("duration_s", pa.float64()),
    ("warmup_s", pa.float64()), ("iops", pa.float64()), ("read_iops", pa.float64()),
    ("write_iops", pa.float64()), ("mbps", pa.float64()), ("read_mbps", pa.float64()),
    ("write_mbps", pa.float64()), ("latency_ms_mean", pa.float64()),
    ("latency_ms_p50", pa.float64()), ("latency_ms_p95", pa.float64()),
    ("latency_ms_p99", pa.float64()), ("latency_ms_p999", pa.float64()),
    ("latency_ms_max", pa.float64()), ("ios", pa.uint64()), ("io_errors", pa.uint64()),
    ("rows_per_s", pa.float64()), ("tx_per_min", pa.float64()),
    ("wal_mb_per_s", pa.float64()), ("commit_ms_p99", pa.float64()),
    ("tx_latency_ms_p99", pa.float64()), ("steady", pa.bool_()), ("partial", pa.bool_()),
]
SERIES = [
    ("run", pa.uint32()), ("t_s", pa.float64()), ("iops", pa.float64()),
    ("read_iops", pa.float64()), ("write_iops", pa.float64()), ("mbps", pa.float64()),
    ("latency_ms_mean", pa.float64()), ("rows_per_s", pa.float64()),
]


def fields(table):
    return [(f.name, f.type) for f in table.schema]


def test_schemas_are_stable(root):
    r = storlab.sim(array=root / "examples/arrays/midrange-raid5.toml", matrix=True,
                    duration="3s", warmup="1s")
    assert fields(r.to_arrow()) == RUNS
    assert fields(r.to_arrow("series")) == SERIES


def test_tables_hold_the_runs_values(root):
    r = storlab.sim(array=root / "examples/arrays/enterprise-raid5.toml",
                    workload=root / "examples/workloads/dpaws-update-row.toml",
                    duration="4s", warmup="1s", seed=3)
    runs, series = r.to_arrow(), r.to_arrow("series")
    run = r.runs[0]
    assert runs.num_rows == 1
    assert runs.column("iops")[0].as_py() == run["metrics"]["iops"]
    assert runs.column("latency_ms_p99")[0].as_py() == run["metrics"]["latency_ms"]["p99"]
    assert runs.column("rows_per_s")[0].as_py() == run["metrics"]["rows_per_s"]
    assert runs.column("seed")[0].as_py() == 3
    assert runs.column("workload")[0].as_py() == run["workload"]["name"]
    assert series.column("t_s").to_pylist() == [p["t_s"] for p in run["series"]]
    assert series.column("iops").to_pylist() == [p["iops"] for p in run["series"]]
    assert series.column("rows_per_s").to_pylist() == [p.get("rows_per_s") for p in run["series"]]
    df = r.to_polars("series")
    assert isinstance(df, pl.DataFrame) and df.height == len(run["series"])


def test_missing_values_are_nulls(root):
    r = storlab.sim(array=root / "examples/arrays/midrange-raid5.toml", profile="randread-8k",
                    duration="2s", warmup="1s")
    t = r.to_arrow()
    assert t.column("rows_per_s").null_count == 1
    assert t.column("iops").null_count == 0
    assert r.to_arrow("series").column("rows_per_s").null_count == 2
