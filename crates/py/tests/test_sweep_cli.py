"""`storlab sweep SWEEP.toml`: runs the sweep through the package's engine (here on the
test's local Ray, with --ray) when the interpreter imports storlab, and exits 2 saying how
to install the package when it does not."""

import os
import pathlib
import subprocess
import sys

SWEEP = """
repeats = 1
engine = "local"
progress = false

[base]
array = "{array}"
profile = "randwrite-8k"
duration = "2s"
warmup = "1s"
seed = 4

[grid]
"raid_groups[0].disks" = [4, 6]
"controllers.cache" = ["2g", "4g"]
"""


def write_sweep(root, tmp_path):
    path = tmp_path / "study" / "SWEEP.toml"
    path.parent.mkdir()
    path.write_text(SWEEP.format(array=root / "examples/arrays/midrange-raid5.toml"))
    return path


def test_sweep_command_runs_on_ray(root, tmp_path, storlab_bin, ray_local):
    import polars as pl
    import storlab

    path = write_sweep(root, tmp_path)
    address = ray_local.get_runtime_context().gcs_address
    env = dict(os.environ, STORLAB_PYTHON=sys.executable)
    p = subprocess.run([storlab_bin, "sweep", str(path), "--ray", address, "--out",
                        str(tmp_path / "out")], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "4 cells, 0 failed" in p.stdout
    table = pl.read_csv(tmp_path / "out" / "sweep.csv")
    direct = storlab.sweep({"array": str(root / "examples/arrays/midrange-raid5.toml"),
                            "profile": "randwrite-8k", "duration": "2s", "warmup": "1s",
                            "seed": 4},
                           {"raid_groups[0].disks": [4, 6], "controllers.cache": ["2g", "4g"]},
                           out=str(tmp_path / "direct"))
    assert table["seed"].to_list() == direct["seed"].to_list()
    assert table["iops"].to_list() == direct["iops"].to_list()


def test_sweep_command_bad_file_exits_2(root, tmp_path, storlab_bin):
    path = write_sweep(root, tmp_path)
    path.write_text(path.read_text().replace("repeats = 1", "repeets = 1"))
    env = dict(os.environ, STORLAB_PYTHON=sys.executable)
    p = subprocess.run([storlab_bin, "sweep", str(path)], env=env, capture_output=True,
                       text=True)
    assert p.returncode == 2
    assert "unknown key 'repeets'" in p.stderr and "SWEEP.toml" in p.stderr


def test_sweep_command_without_the_package_says_how_to_install(root, tmp_path, storlab_bin):
    path = write_sweep(root, tmp_path)
    bare = os.path.join(sys.base_prefix, "bin", "python3")  # the interpreter without the venv
    env = dict(os.environ, STORLAB_PYTHON=bare, PYTHONNOUSERSITE="1")
    env.pop("PYTHONPATH", None)
    p = subprocess.run([storlab_bin, "sweep", str(path)], env=env, capture_output=True,
                       text=True)
    assert p.returncode == 2
    assert "pip install target/wheels/storlab-" in p.stderr
    assert "No module named 'storlab'" in p.stderr
    assert not (tmp_path / "study" / "sweep").exists()


def test_a_table_storlab_did_not_write_is_refused_before_the_sweep(root, tmp_path):
    from storlab import sweep_cli

    path = write_sweep(root, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    table = out / "sweep.csv"
    table.write_text("mine,numbers\n1,2\n")
    try:
        sweep_cli.main([str(path), "--out", str(out)])
    except SystemExit as e:
        assert e.code == 2
    else:
        raise AssertionError("the sweep ran")
    assert table.read_text() == "mine,numbers\n1,2\n"
    assert not (out / "cells").exists()
    # A table storlab wrote is recognised by its cell columns, and replaced.
    table.write_text("raid_groups[0].disks,repeat,seed,cell,error,iops\n4,1,9,ab,,100\n")
    assert sweep_cli._is_sweep_table(str(table))
    new = "a,repeat,seed,cell,error\n"
    sweep_cli._write_table(str(table), lambda tmp: pathlib.Path(tmp).write_text(new))
    assert table.read_text() == new
    assert [p.name for p in out.iterdir()] == ["sweep.csv"], "no temporary file left"
