"""storlab.sim runs what `storlab sim` runs: the same results from a path, TOML text or a
dict, equal to the command line's --json file apart from the wall-clock time."""

import pathlib
import subprocess
import tomllib

import pytest
import storlab

from conftest import without_wall_clock

ARRAY = "examples/arrays/enterprise-raid5.toml"
WORKLOAD = "examples/workloads/dpaws-update-row.toml"
OPTIONS = dict(duration="3s", warmup="1s", seed=7, sessions=40)


def cli_json(storlab_bin, root, tmp_path, *args):
    out = tmp_path / "cli.json"
    subprocess.run([storlab_bin, "sim", *args, "--json", str(out)], cwd=root, check=True,
                   stdout=subprocess.DEVNULL)
    return out.read_text()


def given_as(text: str, label: str) -> str:
    """The result text of an array given as a file, as it reads given as text or a dict:
    the run's target.config names what was given instead of the file."""
    return text.replace(f'"config": "{ARRAY}"', f'"config": "array ({label})"')


def test_dict_text_path_and_cli_agree(root, storlab_bin, tmp_path, monkeypatch):
    monkeypatch.chdir(root)
    array, workload = root / ARRAY, root / WORKLOAD
    from_path = storlab.sim(array=ARRAY, workload=pathlib.Path(WORKLOAD), **OPTIONS)
    from_text = storlab.sim(array=array.read_text(), workload=workload.read_text(), **OPTIONS)
    from_dict = storlab.sim(array=tomllib.loads(array.read_text()),
                            workload=tomllib.loads(workload.read_text()), **OPTIONS)
    cli = cli_json(storlab_bin, root, tmp_path, "--array", ARRAY, "--workload", WORKLOAD,
                   "--duration", "3s", "--warmup", "1s", "--seed", "7", "--sessions", "40")
    expected = without_wall_clock(cli)
    assert without_wall_clock(from_path.to_json()) == expected
    assert without_wall_clock(from_text.to_json()) == given_as(expected, "TOML text")
    assert without_wall_clock(from_dict.to_json()) == given_as(expected, "dict")
    assert from_dict.runs[0]["metrics"]["rows_per_s"] > 0
    assert from_dict.to_dict()["schema"] == "storlab.results/1"


def test_profile_matrix_and_json_option(root, storlab_bin, tmp_path, monkeypatch):
    monkeypatch.chdir(root)
    out = tmp_path / "py.json"
    r = storlab.sim(array="examples/arrays/midrange-raid5.toml", matrix=True,
                    duration="2s", warmup="1s", json=out)
    cli = cli_json(storlab_bin, root, tmp_path, "--array", "examples/arrays/midrange-raid5.toml",
                   "--matrix", "--duration", "2s", "--warmup", "1s")
    assert len(r) == len(r.runs) > 1
    assert without_wall_clock(out.read_text()) == without_wall_clock(cli)
    assert without_wall_clock(r.to_json()) == without_wall_clock(cli)


def test_missing_key_is_bad_input_naming_it(root):
    array = tomllib.loads((root / ARRAY).read_text())
    del array["raid_groups"]
    with pytest.raises(storlab.BadInput, match="array \\(dict\\): raid_groups"):
        storlab.sim(array=array, profile="randread-8k", duration="1s")


def test_bad_value_names_file_and_key(root, tmp_path):
    text = (root / "examples/arrays/midrange-raid5.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("destage_high_pct = 80 ", "destage_high_pct = 180 ", 1))
    with pytest.raises(storlab.BadInput, match="bad.toml: controllers.destage_high_pct: .*180"):
        storlab.sim(array=bad, profile="randread-8k", duration="1s")


def test_unknown_option_and_value_types_are_bad_input(root):
    array = root / "examples/arrays/midrange-raid5.toml"
    with pytest.raises(storlab.BadInput, match="--no-such-option"):
        storlab.sim(array=array, profile="randread-8k", no_such_option=1)
    with pytest.raises(storlab.BadInput, match="--duration"):
        storlab.sim(array=array, profile="randread-8k", duration="soon")
    with pytest.raises(storlab.BadInput, match="array.controllers"):
        storlab.sim(array={"controllers": None}, profile="randread-8k")
    with pytest.raises(storlab.BadInput, match="cannot read"):
        storlab.sim(array=pathlib.Path("/nonexistent/array.toml"), profile="randread-8k")
    with pytest.raises(ValueError):
        storlab.sim(array=array, profile="no-such-profile")
