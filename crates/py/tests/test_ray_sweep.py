"""storlab.sweep(engine="ray"): the cells of a sweep on local Ray equal the same cells run
one after another (same seeds, same results); a sweep stopped by SIGINT keeps its finished
cells and a re-run does not compute them again; a failing cell is recorded and the sweep
goes on."""

import os
import signal
import subprocess
import sys
import time

import storlab

# 3 x 2 combinations x 2 repeats = 12 cells; a 4-disk RAID 10 group is a valid array, a
# 5-disk one is not (an odd count), so some cells fail with the array's reason.
GRID = {"raid_groups[0].disks": [4, 5, 6], "controllers.cache": ["2g", "4g"]}


def base(root, **more):
    return {"array": str(root / "examples/arrays/midrange-raid5.toml"),
            "profile": "randwrite-8k", "duration": "2s", "warmup": "1s", "seed": 11, **more}


def test_twelve_cells_on_ray_equal_serial(root, tmp_path, ray_local):
    on_ray = storlab.sweep(base(root), GRID, repeats=2, engine="ray",
                           out=str(tmp_path / "ray"))
    serial = storlab.sweep(base(root), GRID, repeats=2, engine="local",
                           out=str(tmp_path / "local"))
    assert on_ray.height == 12
    assert on_ray.equals(serial)
    assert on_ray["seed"].n_unique() == 12
    assert on_ray.filter(on_ray["error"].is_null()).height > 0
    # The checkpoints are the same results, apart from the wall-clock time of each run.
    from conftest import without_wall_clock

    for cid in on_ray["cell"]:
        a, b = tmp_path / "ray/cells" / f"{cid}.json", tmp_path / "local/cells" / f"{cid}.json"
        assert a.exists() == b.exists()
        if a.exists():
            assert without_wall_clock(a.read_text()) == without_wall_clock(b.read_text())


def test_failing_cell_is_recorded_and_sweep_goes_on(root, tmp_path, ray_local):
    df = storlab.sweep(base(root), {"raid_groups[0].disks": [0, 5]}, engine="ray",
                       out=str(tmp_path / "s"))
    bad, ok = df.row(0, named=True), df.row(1, named=True)
    assert "disks" in bad["error"] and bad["iops"] is None
    assert ok["error"] is None and ok["iops"] > 0
    assert (tmp_path / "s/cells" / (bad["cell"] + ".failed.json")).exists()


SLOW_BASE = {"profile": "randread-8k", "duration": "60s", "warmup": "0", "seed": 3}
SLOW_GRID = {"controllers.cache": ["2g", "3g", "4g", "5g", "6g", "7g", "8g", "9g"]}

DRIVER = r"""
import json, sys
import storlab
base, grid = json.loads(sys.argv[1])
try:
    storlab.sweep(base, grid, engine="ray", address=sys.argv[2], out=sys.argv[3])
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def finished_cells(out):
    cells = out / "cells"
    return {p.name: p.stat().st_mtime_ns for p in cells.glob("*.json")
            if not p.name.endswith(".failed.json")} if cells.exists() else {}


def test_sigint_keeps_finished_cells_and_rerun_resumes(root, tmp_path, ray_local):
    import json

    out = tmp_path / "sweep"
    slow = {"array": str(root / "examples/arrays/midrange-raid5.toml"), **SLOW_BASE}
    address = ray_local.get_runtime_context().gcs_address
    p = subprocess.Popen([sys.executable, "-c", DRIVER, json.dumps([slow, SLOW_GRID]),
                          address, str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while len(finished_cells(out)) < 2 and p.poll() is None:
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=120)
    kept = finished_cells(out)
    assert stdout.strip() == "interrupted", stderr
    assert 2 <= len(kept) < 8
    again = storlab.sweep(slow, SLOW_GRID, engine="ray", out=str(out))
    after = finished_cells(out)
    assert again.height == 8 and again["error"].is_null().all()
    # Every cell finished before the signal is read back, not computed again.
    assert {name: after[name] for name in kept} == kept
    assert len(after) == 8
    assert set(again["cell"]) == {name[:-len(".json")] for name in after}


def test_a_cancelled_cell_task_stops_its_simulation_at_once(root):
    """ray.cancel, not forced, raises KeyboardInterrupt in a task's main thread
    (_thread.interrupt_main); a cell's task then stops its simulation as Ctrl-C does and
    lets the interruption through, instead of running the cell to its end."""
    import _thread
    import threading
    import tomllib

    import pytest
    from storlab import _ray

    array = tomllib.loads((root / "examples/arrays/midrange-raid5.toml").read_text())
    # 6,000 simulated seconds: about 10 s of running unless the stop reaches it.
    options = {"profile": "randread-8k", "duration": "6000s", "warmup": "0"}
    # The handler a Ray worker has, under which a plain cancel raises KeyboardInterrupt
    # (an earlier test may have left Ray Tune's, which only ends a Tune run).
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    cancel = threading.Timer(1.0, _thread.interrupt_main)
    started = time.monotonic()
    cancel.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            _ray._cell_task(array, None, options, {}, 1, {})
    finally:
        cancel.cancel()
        signal.signal(signal.SIGINT, handler)
    assert time.monotonic() - started < 5
    # Nothing of the cell is left running: a short cell runs to its end.
    text, error = _ray._cell_task(array, None, {**options, "duration": "1s"}, {}, 1, {})
    assert error is None
    assert not storlab.Result(storlab._native.Result.from_json_text(text)).partial


def test_sweep_table_schema_is_stable(root, tmp_path, ray_local):
    """The sweep's columns: the grid's keys, repeat, seed, cell, error, then the runs
    table's columns (without its run index) with their types."""
    import polars as pl
    import pyarrow as pa
    from test_arrow import RUNS

    df = storlab.sweep(base(root), {"raid_groups[0].disks": [4, 6]}, engine="ray",
                       out=str(tmp_path / "s"))
    assert df.columns == ["raid_groups[0].disks", "repeat", "seed", "cell", "error",
                          *[name for name, _ in RUNS if name not in ("run", "seed")]]
    assert df.schema["seed"] == pl.Int64 and df.schema["cell"] == pl.String
    assert df.schema["error"] == pl.String
    expected = pl.from_arrow(pa.table({n: pa.array([], t) for n, t in RUNS})).schema
    for name, _ in RUNS:
        if name not in ("run", "seed"):
            assert df.schema[name] == expected[name], name
