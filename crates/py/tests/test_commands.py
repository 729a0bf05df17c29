"""storlab.compare and storlab.validate run the command line's code: the same files, the same
resume rule, the same checks on bad input."""

import json

import pytest
import storlab


def plan(root):
    arrays = root / "examples" / "arrays"
    return {
        "title": "RAID 5 or RAID 10, from Python",
        "seed": 1,
        "duration": "2s",
        "warmup": "1s",
        "targets": [
            {"name": "raid5", "array": str(arrays / "midrange-raid5.toml")},
            {"name": "raid10", "array": str(arrays / "midrange-raid10.toml")},
        ],
        "workloads": [{"profile": "randread-8k"}],
    }


def test_compare_writes_the_study_and_resumes(root, tmp_path):
    out = tmp_path / "study"
    first = storlab.compare(plan(root), out=out)
    assert [r["target"]["name"] for r in first.runs] == ["midrange-raid5", "midrange-raid10"]
    assert (out / "report.html").exists()
    cells = sorted(p.name for p in (out / "cells").iterdir())
    stamps = {p: p.stat().st_mtime_ns for p in (out / "cells").rglob("*") if p.is_file()}
    again = storlab.compare(plan(root), out=out)
    assert sorted(p.name for p in (out / "cells").iterdir()) == cells
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    strip = lambda r: [{**run, "sim": None} for run in r.to_dict()["runs"]]
    assert strip(again) == strip(first)


def test_compare_bad_plan_is_bad_input(root, tmp_path):
    p = plan(root)
    p["targets"][0]["colour"] = "red"
    with pytest.raises(storlab.BadInput, match="plan \\(dict\\).*colour"):
        storlab.compare(p, out=tmp_path / "study")


def test_validate_bad_references_is_bad_input(tmp_path):
    refs = tmp_path / "refs"
    refs.mkdir()
    (refs / "case.toml").write_text("name = 1\n")
    with pytest.raises(storlab.BadInput, match="case.toml"):
        storlab.validate(references=refs)


def test_validate_reports_outside_figures_and_keeps_the_runs(root, tmp_path):
    # Case 1 alone (the arrays it names are read beside its directory): 2 of its 10 figures
    # are outside tolerance today, which the command reports by exit code 1.
    (tmp_path / "references").mkdir()
    (tmp_path / "examples" / "arrays").mkdir(parents=True)
    case = "case1-midrange.toml"
    (tmp_path / "references" / case).write_text((root / "references" / case).read_text())
    for a in ("midrange-raid5.toml", "midrange-raid10.toml"):
        text = (root / "examples" / "arrays" / a).read_text()
        (tmp_path / "examples" / "arrays" / a).write_text(text)
    out = tmp_path / "validate.json"
    v = storlab.validate(references=tmp_path / "references", json=out)
    assert v.passed == (v.message is None)
    if not v.passed:
        assert "reference figures outside tolerance" in v.message
    assert len(v.result.runs) > 0
    assert json.loads(out.read_text())["runs"] == v.result.to_dict()["runs"]
