"""``storlab.optimize``: search a space of simulated configurations with Ray Tune for the
best one under constraints, each trial one ``storlab.sim`` cell (the same cell, with the
same seed, as ``storlab.sweep`` runs for the same parameters). The cost is the price
``storlab compare`` puts on a configuration (disks x price_per_disk, else usable GB x
price_per_gb) divided by the performance the workload is judged on."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import _native
from .sweep import Plan, _apply, cell_seed, try_cell

#: Constraint and objective names -> (column of the trial table, "max" for an upper
#: bound / a figure to minimize, "min" for a lower bound / a figure to maximize).
FIGURES = {
    "p50_ms": ("latency_ms_p50", "max"), "p95_ms": ("latency_ms_p95", "max"),
    "p99_ms": ("latency_ms_p99", "max"), "p999_ms": ("latency_ms_p999", "max"),
    "mean_ms": ("latency_ms_mean", "max"), "tps": ("tps", "min"),
    "iops": ("iops", "min"), "mbps": ("mbps", "min"), "rows_per_s": ("rows_per_s", "min"),
    "cost": ("cost", "max"), "cost_per_tps": ("cost_per_tps", "max"),
    "cost_per_gb": ("cost_per_gb", "max"),
}


class Optimum:
    """What ``optimize`` found: ``best`` (the feasible trials, best first: parameters and
    figures), ``trials`` (every trial as a polars DataFrame, or a list of dicts without
    polars) and the ``objective``."""

    def __init__(self, objective: str, best: List[Dict[str, Any]], trials: Any) -> None:
        self.objective, self.best, self.trials = objective, best, trials

    @property
    def config(self) -> Optional[Dict[str, Any]]:
        """The parameters of the best feasible trial (None when no trial met the
        constraints)."""
        return self.best[0]["params"] if self.best else None

    def __repr__(self) -> str:
        top = self.best[0] if self.best else None
        return (f"<storlab.Optimum {self.objective}="
                f"{top[self.objective] if top else None} {top['params'] if top else ''}>")


def _figure(name: str) -> tuple:
    if name not in FIGURES:
        raise _native.BadInput(f"unknown figure {name!r}; known: {', '.join(sorted(FIGURES))}")
    return FIGURES[name]


def figures(row: Dict[str, Any], cost: Optional[float], usable_gb: Optional[float]) -> None:
    """Adds tps (transactions/s for database workloads, else I/Os per second: the figure
    the report divides the price by), cost, cost_per_tps and cost_per_gb to a trial row."""
    tx = row.get("tx_per_min")
    tps = tx / 60.0 if tx is not None else row.get("iops")
    row["tps"] = tps
    row["cost"] = cost
    row["cost_per_tps"] = cost / tps if cost is not None and tps else None
    row["cost_per_gb"] = cost / usable_gb if cost is not None and usable_gb else None


def feasible(row: Dict[str, Any], constraints: Mapping[str, float]) -> bool:
    """True when the row meets every constraint (an upper bound for latencies and cost, a
    lower bound for throughput)."""
    for name, bound in constraints.items():
        column, kind = _figure(name)
        v = row.get(column)
        if v is None or (v > bound if kind == "max" else v < bound):
            return False
    return True


def _trial(config: Dict[str, Any], plan: Plan, keys: List[str], prices: Dict[str, Any],
           constraints: Mapping[str, float], objective: str) -> Dict[str, Any]:
    """One cell: its figures, cost and whether it meets the constraints."""
    from .sweep import _headline

    params = {k: config[f"p{i}"] for i, k in enumerate(keys)}
    seed = cell_seed(plan.base_seed, params, 0)
    text, error = try_cell(plan.array, plan.workload, plan.options, params, seed,
                           plan.sources)
    row: Dict[str, Any] = {"seed": seed, "error": error}
    if text is not None:
        row.update(_headline(text))
        array, _, _ = _apply(plan.array, plan.workload, plan.options, params)
        _, usable_gb, cost = _native.array_cost(array, **prices)
        figures(row, cost, usable_gb)
    row["feasible"] = error is None and feasible(row, constraints)
    column, kind = _figure(objective)
    value = row.get(column)
    sign = 1.0 if kind == "max" else -1.0
    row["score"] = sign * value if row["feasible"] and value is not None else math.inf
    return row


def optimize(base: Mapping[str, Any], space: Mapping[str, Sequence[Any]],
             objective: str = "cost_per_tps",
             constraints: Optional[Mapping[str, float]] = None, budget: int = 32,
             out: Any = "optimize", address: Optional[str] = None, seed: int = 1,
             top: int = 5) -> Optimum:
    """Searches ``space`` over ``base`` for the configuration with the best ``objective``
    meeting ``constraints``, with Ray Tune.

    base: as for storlab.sweep (array, workload or profile, options of storlab.sim), plus
        ``price_per_disk`` or ``price_per_gb`` (the prices a compare plan gives).
    space: key -> candidate values (keys as in a sweep's grid).
    objective: a figure to minimize (cost_per_tps, cost, cost_per_gb, p99_ms, ...) or
        maximize (tps, iops, mbps, rows_per_s). tps is transactions per second for a
        database workload, I/Os per second for an I/O profile.
    constraints: figure -> bound: an upper bound for latencies and costs ({"p99_ms": 20}),
        a lower bound for throughputs ({"tps": 5000}).
    budget: most cells to run. When it covers the whole space every combination is tried
        (grid search: the answer is exact); otherwise ``budget`` combinations drawn at
        random (Tune's BasicVariantGenerator, its draws seeded by ``seed``).
    out: directory of Tune's experiment state. address: the Ray cluster, as for sweep.

    Returns an Optimum: ``best`` (up to ``top`` feasible trials, best first),
    ``config`` (the best parameters) and ``trials`` (one row per trial).
    """
    from . import _ray

    constraints = dict(constraints or {})
    for name in [objective, *constraints]:
        _figure(name)
    if budget < 1:
        raise _native.BadInput(f"budget must be at least 1 cell; got {budget}")
    prices = {k: base[k] for k in ("price_per_disk", "price_per_gb") if base.get(k) is not None}
    if objective.startswith("cost") and not prices:
        raise _native.BadInput(f"objective {objective!r} needs a price: base "
                               "\"price_per_disk\" or \"price_per_gb\"")
    plan_base = {k: v for k, v in base.items() if k not in ("price_per_disk", "price_per_gb")}
    keys = list(space)
    plan = Plan(plan_base, {k: list(v) for k, v in space.items()}, 1, out)
    _ray.connect(address)
    from ray import tune
    from ray.tune.search.basic_variant import BasicVariantGenerator

    size = math.prod(len(list(v)) for v in space.values())
    grid = budget >= size
    param_space = {f"p{i}": (tune.grid_search if grid else tune.choice)(list(space[k]))
                   for i, k in enumerate(keys)}

    def trainable(config: Dict[str, Any]) -> None:
        tune.report(_trial(config, plan, keys, prices, constraints, objective))

    tuner = tune.Tuner(
        tune.with_resources(trainable, {"cpu": 1}),
        param_space=param_space,
        tune_config=tune.TuneConfig(
            num_samples=1 if grid else budget,
            search_alg=BasicVariantGenerator(random_state=seed),
            # A trial is one short simulation: keep the worker processes between trials.
            reuse_actors=True),
        run_config=tune.RunConfig(storage_path=_abs(out), name="tune", verbose=0))
    results = tuner.fit()
    return _optimum(results, keys, objective, top)


def _abs(path: Any) -> str:
    import os

    return os.path.abspath(os.fspath(path))


def _optimum(results: Any, keys: List[str], objective: str, top: int) -> Optimum:
    rows = []
    for r in results:
        config = r.config or {}
        metrics = dict(r.metrics or {})
        row: Dict[str, Any] = {k: config.get(f"p{i}") for i, k in enumerate(keys)}
        if r.error is not None and "score" not in metrics:
            metrics.update({"error": str(r.error), "feasible": False, "score": math.inf})
        for k in ("seed", "error", "feasible", "score", "iops", "tps", "latency_ms_p99",
                  "latency_ms_mean", "mbps", "tx_per_min", "rows_per_s", "cost",
                  "cost_per_tps", "cost_per_gb"):
            row[k] = metrics.get(k)
        rows.append(row)
    rows.sort(key=lambda r: (r["score"], [str(r[k]) for k in keys]))
    best = [{"params": {k: r[k] for k in keys}, **{k: v for k, v in r.items() if k not in keys}}
            for r in rows[:top] if r["feasible"]]
    for r in rows:
        r.pop("score")
    try:
        import polars as pl

        trials: Any = pl.DataFrame(rows, infer_schema_length=None)
    except ImportError:
        trials = rows
    return Optimum(objective, best, trials)


__all__ = ["optimize", "Optimum", "FIGURES"]
