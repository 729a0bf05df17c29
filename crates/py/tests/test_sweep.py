"""storlab.sweep(engine="local"): each cell equals the same storlab.sim run with the cell's
seed; finished cells are checkpointed and a re-run reads them back; a failing cell is
recorded with its reason and the sweep goes on."""

import os

import storlab
from storlab.sweep import cell_seed

GRID = {"raid_groups[0].level": ["raid5", "raid10"], "controllers.cache": ["2g", "4g"]}


def base(root):
    return {"array": str(root / "examples/arrays/midrange-raid5.toml"),
            "profile": "randwrite-8k", "duration": "2s", "warmup": "1s", "seed": 5}


def test_cells_equal_serial_runs_and_resume(root, tmp_path):
    import tomllib

    out = tmp_path / "sweep"
    df = storlab.sweep(base(root), GRID, repeats=1, out=str(out))
    assert df.height == 4
    assert list(df.columns[:5]) == ["raid_groups[0].level", "controllers.cache", "repeat",
                                    "seed", "cell"]
    array = tomllib.loads((root / "examples/arrays/midrange-raid5.toml").read_text())
    for row in df.iter_rows(named=True):
        params = {k: row[k] for k in GRID}
        assert row["seed"] == cell_seed(5, params, 0)
        a = tomllib.loads((root / "examples/arrays/midrange-raid5.toml").read_text())
        a["raid_groups"][0]["level"] = params["raid_groups[0].level"]
        a["controllers"]["cache"] = params["controllers.cache"]
        try:
            r = storlab.sim(array=a, profile="randwrite-8k", duration="2s", warmup="1s",
                            seed=row["seed"])
        except storlab.BadInput as e:
            # The same message, naming the file the base gave with the cell's changes.
            path = str(root / "examples/arrays/midrange-raid5.toml")
            changed = ", ".join(f"{k} = {v!r}" for k, v in params.items())
            named = str(e).replace("array (dict)", f"{path} with {changed}", 1)
            assert str(e).startswith("array (dict): ")
            assert row["error"] == named and row["iops"] is None
            continue
        assert row["error"] is None
        assert row["iops"] == r.runs[0]["metrics"]["iops"]
        assert row["latency_ms_p99"] == r.runs[0]["metrics"]["latency_ms"]["p99"]
    assert array["raid_groups"][0]["level"] == "raid5"
    cells = out / "cells"
    finished = {p: p.stat().st_mtime_ns for p in cells.glob("*.json")
                if not p.name.endswith(".failed.json")}
    assert len(finished) == df.filter(df["error"].is_null()).height > 0
    again = storlab.sweep(base(root), GRID, repeats=1, out=str(out))
    assert {p: p.stat().st_mtime_ns for p in finished} == finished
    assert again.equals(df)


def test_failing_cell_is_recorded(root, tmp_path):
    grid = {"raid_groups[0].disks": [5, 0]}
    df = storlab.sweep(base(root), grid, out=str(tmp_path / "s"))
    ok, bad = df.row(0, named=True), df.row(1, named=True)
    assert ok["error"] is None and ok["iops"] > 0
    assert "disks" in bad["error"]
    # The message names the file the base gave and the cell's change, not "array (dict)".
    path = str(root / "examples/arrays/midrange-raid5.toml")
    assert bad["error"].startswith(f"{path} with raid_groups[0].disks = 0"), bad["error"]
    assert "(dict)" not in bad["error"]
    failed = [p for p in os.listdir(tmp_path / "s" / "cells") if p.endswith(".failed.json")]
    assert failed == [bad["cell"] + ".failed.json"]


def test_grid_key_must_exist(root, tmp_path):
    import pytest

    with pytest.raises(storlab.BadInput, match="no 'cahce'"):
        storlab.sweep(base(root), {"controllers.cahce.x": [1]}, out=str(tmp_path / "s"))
