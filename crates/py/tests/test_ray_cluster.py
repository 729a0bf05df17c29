"""storlab.io_cluster over two worker processes, each on its own file: IOPS and MB/s are
the sums of the hosts', and the merged percentiles are those of the union of both hosts'
samples (checked against the histograms: the union's p99 sample lies in the bucket the
merged p99 reports), not an average of the hosts' percentiles."""

import math

import pytest
import storlab


def union_p99_bucket(histograms):
    """The (lowest, highest) bucket holding the union's p99 sample, counted in Python."""
    counts = {}
    for h in histograms:
        for lo, hi, n in h.to_dict()["buckets"]:
            counts[(lo, hi)] = counts.get((lo, hi), 0) + n
    total = sum(counts.values())
    rank, seen = math.ceil(0.99 * total), 0
    for bucket in sorted(counts):
        seen += counts[bucket]
        if seen >= rank:
            return bucket, total
    raise AssertionError("no bucket")


def test_two_hosts_merge_exactly(tmp_path, ray_local):
    targets = [tmp_path / "host0.dat", tmp_path / "host1.dat"]
    r = storlab.io_cluster(hosts=2, target=targets, profile="randread-8k", duration="2s",
                           warmup="0s", size="16MiB")
    a, b = r.rows
    assert {a["target"], b["target"]} == {str(t) for t in targets}
    assert a["host"] != b["host"]  # two processes
    total = r.total
    assert total["iops"] == pytest.approx(a["iops"] + b["iops"], abs=1e-3)
    assert total["mbps"] == pytest.approx(a["mbps"] + b["mbps"], abs=1e-3)
    assert total["ios"] == a["ios"] + b["ios"] == r.merged.count
    (lo, hi), n = union_p99_bucket(r.histograms)
    assert n == total["ios"]
    p99_ns = total["latency_ms_p99"] * 1e6
    d = [h.to_dict() for h in r.histograms]
    lo = max(lo, min(x["min_ns"] for x in d))
    hi = min(hi, max(x["max_ns"] for x in d))
    assert lo - 50 <= p99_ns <= hi + 50  # the summary is rounded to 0.1 us
    assert r.merged.percentile_ms(99.0) == total["latency_ms_p99"]
    for row, h in zip(r.rows, r.histograms):
        assert row["latency_ms_p99"] == h.percentile_ms(99.0)
    table = r.to_polars()
    assert table["host"].to_list()[-1] == "total" and table.height == 3
    assert not any(t.exists() for t in targets)


def test_histogram_round_trip_and_merge():
    h = storlab._native.Histogram()
    assert h.count == 0
    d = {"buckets": [(1000, 1000, 3), (5_000_000, 5_039_103, 1)], "sum_ns": 5_003_000,
         "min_ns": 1000, "max_ns": 5_000_000}
    one = storlab._native.Histogram.from_dict(d)
    both = one.merged(one)
    assert both.count == 8
    assert both.to_dict()["buckets"] == [(1000, 1003, 6), (4_980_736, 5_013_503, 2)]
    assert both.percentile_ms(50) == 0.001 and both.percentile_ms(100) == 5.0


def test_targets_must_match_hosts(tmp_path, ray_local):
    with pytest.raises(storlab.BadInput, match="one per host"):
        storlab.io_cluster(hosts=2, target=[tmp_path / "a.dat"], duration="1s")


def test_cluster_table_schema_is_stable():
    import pyarrow as pa
    from storlab.cluster import SCHEMA

    assert [(f.name, f.type) for f in SCHEMA()] == [
        ("host", pa.string()), ("node", pa.string()), ("target", pa.string()),
        ("iops", pa.float64()), ("read_iops", pa.float64()), ("write_iops", pa.float64()),
        ("mbps", pa.float64()), ("read_mbps", pa.float64()), ("write_mbps", pa.float64()),
        ("ios", pa.uint64()), ("latency_ms_mean", pa.float64()),
        ("latency_ms_p50", pa.float64()), ("latency_ms_p95", pa.float64()),
        ("latency_ms_p99", pa.float64()), ("latency_ms_p999", pa.float64()),
        ("latency_ms_max", pa.float64()), ("started_s", pa.float64())]


CLUSTER_DRIVER = r"""
import sys
import storlab
try:
    storlab.io_cluster(hosts=2, target=sys.argv[2:4], profile="randread-8k",
                       duration="600s", warmup="0s", size="16MiB", address=sys.argv[1])
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_sigint_stops_every_host_and_removes_their_files(tmp_path, ray_local):
    import subprocess
    import sys
    import time

    targets = [str(tmp_path / "host0.dat"), str(tmp_path / "host1.dat")]
    address = ray_local.get_runtime_context().gcs_address
    p = subprocess.Popen([sys.executable, "-c", CLUSTER_DRIVER, address, *targets],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    import os

    while not all(os.path.exists(t) for t in targets) and p.poll() is None:
        time.sleep(0.05)
    p.send_signal(2)  # SIGINT
    out, err = p.communicate(timeout=120)
    assert out.strip() == "interrupted", err
    # Each host stopped as on Ctrl-C and removed the file it created.
    assert not any(os.path.exists(t) for t in targets)
