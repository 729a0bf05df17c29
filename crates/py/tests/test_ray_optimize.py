"""storlab.optimize with Ray Tune: on a space small enough to enumerate, the configuration
it reports as best is the one the enumeration finds (the cheapest per I/O per second among
those meeting the constraints), and each trial is the sweep's cell with the same seed."""

import storlab
from storlab import _native
from storlab.optimize import feasible, figures

SPACE = {"raid_groups[0].disks": [3, 5, 9], "controllers.cache": ["2g", "8g"]}
CONSTRAINTS = {"p99_ms": 100.0, "tps": 3000.0}


def base(root):
    return {"array": str(root / "examples/arrays/midrange-raid5.toml"),
            "profile": "randread-8k", "duration": "2s", "warmup": "1s", "seed": 2,
            "price_per_disk": 400.0}


def enumerate_best(root, tmp_path):
    """Every cell of the space through the local sweep, priced like compare prices it."""
    import tomllib

    b = base(root)
    df = storlab.sweep({k: v for k, v in b.items() if k != "price_per_disk"}, SPACE,
                       out=str(tmp_path / "enum"))
    best, rows = None, []
    for row in df.iter_rows(named=True):
        assert row["error"] is None
        array = tomllib.loads((root / "examples/arrays/midrange-raid5.toml").read_text())
        array["raid_groups"][0]["disks"] = row["raid_groups[0].disks"]
        array["controllers"]["cache"] = row["controllers.cache"]
        _, usable_gb, cost = _native.array_cost(array, price_per_disk=400.0)
        figures(row, cost, usable_gb)
        rows.append(row)
        if feasible(row, CONSTRAINTS) and (best is None or
                                           row["cost_per_tps"] < best["cost_per_tps"]):
            best = row
    return best, rows


def test_optimize_finds_the_enumerated_best(root, tmp_path, ray_local):
    best, rows = enumerate_best(root, tmp_path)
    # The space is a real choice: some cells fail a constraint, the cheapest is not best.
    assert best is not None
    assert any(not feasible(r, CONSTRAINTS) for r in rows)
    cheapest = min(rows, key=lambda r: r["cost"] or float("inf"))
    assert not feasible(cheapest, CONSTRAINTS)
    found = storlab.optimize(base(root), SPACE, objective="cost_per_tps",
                             constraints=CONSTRAINTS, budget=6, out=str(tmp_path / "opt"))
    assert found.config == {k: best[k] for k in SPACE}
    assert found.best[0]["cost_per_tps"] == best["cost_per_tps"]
    assert found.best[0]["seed"] == best["seed"]
    assert found.trials.height == 6
    assert found.trials.filter(found.trials["feasible"]).height == sum(
        feasible(r, CONSTRAINTS) for r in rows)


def test_optimize_needs_a_price_for_a_cost(root, tmp_path):
    import pytest

    b = {k: v for k, v in base(root).items() if k != "price_per_disk"}
    with pytest.raises(storlab.BadInput, match="price_per_disk"):
        storlab.optimize(b, SPACE, out=str(tmp_path / "o"))
    with pytest.raises(storlab.BadInput, match="unknown figure 'p98_ms'"):
        storlab.optimize(base(root), SPACE, constraints={"p98_ms": 1}, out=str(tmp_path / "o"))
