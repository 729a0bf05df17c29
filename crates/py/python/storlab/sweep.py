"""Sweeps: every combination of a grid of parameters over a base array and workload, each
cell a `storlab.sim` run with a seed derived from the base seed and the cell's parameters,
checkpointed to ``out/cells/`` as it finishes so a re-run resumes (finished cells are read
back; failed ones run again, as in ``storlab compare``)."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import os
import tempfile
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _native

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _load(source: Any, role: str) -> Dict[str, Any]:
    """A file given as a path, TOML text or a dict, as a dict (a deep copy)."""
    if isinstance(source, Mapping):
        return copy.deepcopy(dict(source))
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    text = os.fspath(source)
    if "\n" not in text and os.path.exists(text):
        with open(text, "rb") as f:
            return tomllib.load(f)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _native.BadInput(f"{role}: {text!r} is neither a readable file nor TOML: {e}")


def _source_name(source: Any) -> Optional[str]:
    """The path a file was given as, or None when it was given as TOML text or a dict."""
    if isinstance(source, Mapping):
        return None
    text = os.fspath(source)
    return text if "\n" not in text and os.path.exists(text) else None


def _name_sources(error: str, sources: Mapping[str, Optional[str]],
                  params: Mapping[str, Any]) -> str:
    """``error`` with the files the cell ran from ("array (dict)") named as the paths the
    base gave, with the grid's values the cell set in them."""
    for role, path in sources.items():
        if path is None:
            continue
        changed = [f"{k} = {v!r}" for k, v in params.items()
                   if (k.startswith("workload.") if role == "workload"
                       else not k.startswith(("workload.", "sim.")))]
        name = path + (f" with {', '.join(changed)}" if changed else "")
        error = error.replace(f"{role} (dict)", name)
    return error


def _set(doc: Dict[str, Any], key: str, value: Any, where: str) -> None:
    """Sets ``raid_groups[0].level``-style ``key`` in ``doc``; the path must exist up to its
    last step (a sweep changes a key, it does not invent sections)."""
    steps = [(m.group(1), m.group(2)) for m in _STEP.finditer(key)]
    node: Any = doc
    for i, (name, index) in enumerate(steps):
        last = i == len(steps) - 1
        if name is not None:
            if not isinstance(node, dict) or (not last and name not in node):
                raise _native.BadInput(f"grid key {key!r}: {where} has no {name!r}")
            if last:
                node[name] = value
            else:
                node = node[name]
        else:
            n = int(index)
            if not isinstance(node, list) or n >= len(node):
                raise _native.BadInput(f"grid key {key!r}: {where} has no item [{n}]")
            if last:
                node[n] = value
            else:
                node = node[n]


def cell_seed(base_seed: int, params: Mapping[str, Any], repeat: int) -> int:
    """The seed of a cell: the base seed plus a digest of its parameters and repeat."""
    text = json.dumps({"params": params, "repeat": repeat}, sort_keys=True, default=str)
    digest = int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")
    return (int(base_seed) + digest) % (1 << 63)


def cells(grid: Mapping[str, Sequence[Any]], repeats: int) -> List[Tuple[Dict[str, Any], int]]:
    """Every combination of the grid's values, each ``repeats`` times, in grid order."""
    keys = list(grid)
    combos = itertools.product(*(list(grid[k]) for k in keys)) if keys else [()]
    return [(dict(zip(keys, c)), r) for c in combos for r in range(repeats)]


def _cell_id(base: Mapping[str, Any], params: Mapping[str, Any], repeat: int, seed: int) -> str:
    text = json.dumps({"base": base, "params": params, "repeat": repeat, "seed": seed},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _write_atomic(path: str, text: str) -> None:
    """Writes ``text`` to a new temporary file beside ``path`` (a fresh name, never an
    existing file), then renames it over ``path``."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".",
                               prefix="." + os.path.basename(path) + ".", suffix=".storlab-tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # as a file created with the usual umask, not mkstemp's 0600
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _apply(array: Dict[str, Any], workload: Optional[Dict[str, Any]],
           options: Dict[str, Any], params: Mapping[str, Any]) -> Tuple[Any, Any, Dict[str, Any]]:
    """The cell's array, workload and options. Grid keys ``workload.X`` set the workload,
    ``sim.X`` an option of storlab.sim, any other a key of the array."""
    array, workload, options = copy.deepcopy(array), copy.deepcopy(workload), dict(options)
    for key, value in params.items():
        if key.startswith("workload."):
            if workload is None:
                raise _native.BadInput(f"grid key {key!r}: the base has no workload file")
            _set(workload, key[len("workload."):], value, "the workload")
        elif key.startswith("sim."):
            options[key[len("sim."):].replace("-", "_")] = value
        else:
            _set(array, key, value, "the array")
    return array, workload, options


def run_cell(array: Dict[str, Any], workload: Optional[Dict[str, Any]],
             options: Dict[str, Any], params: Mapping[str, Any], seed: int) -> str:
    """One cell's result text (the CLI's --json text)."""
    from . import sim

    array, workload, options = _apply(array, workload, options, params)
    options["seed"] = seed
    return sim(array=array, workload=workload, **options).to_json()


class Plan:
    """A sweep's cells and where they are checkpointed: what both engines share."""

    def __init__(self, base: Mapping[str, Any], grid: Mapping[str, Sequence[Any]],
                 repeats: int, out: Any) -> None:
        if repeats < 1:
            raise _native.BadInput(f"repeats must be at least 1; got {repeats}")
        if "array" not in base:
            raise _native.BadInput("base: an \"array\" is needed")
        options = {k: v for k, v in base.items() if k not in ("array", "workload")}
        self.array = _load(base["array"], "array")
        self.workload = (_load(base["workload"], "workload")
                         if base.get("workload") is not None else None)
        #: The paths the base gave its files as (None: TOML text or a dict), for messages.
        self.sources = {role: _source_name(base[role]) for role in ("array", "workload")
                        if base.get(role) is not None}
        self.base_seed = int(options.pop("seed", 1))
        self.options = options
        self.cell_dir = os.path.join(os.fspath(out), "cells")
        ident = {"array": self.array, "workload": self.workload, "options": options}
        todo = cells(grid, repeats)
        for params, _ in todo:  # a grid key that names nothing is the sweep's mistake
            _apply(self.array, self.workload, options, params)
        self.cells: List[Cell] = []
        for params, repeat in todo:
            seed = cell_seed(self.base_seed, params, repeat)
            self.cells.append(Cell(params, repeat, seed, _cell_id(ident, params, repeat, seed)))
        os.makedirs(self.cell_dir, exist_ok=True)

    def done_text(self, cell: "Cell") -> Optional[str]:
        """The result text of a cell finished by an earlier run, else None."""
        path = os.path.join(self.cell_dir, cell.cid + ".json")
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return f.read()

    def record(self, cell: "Cell", text: Optional[str], error: Optional[str]) -> None:
        """Checkpoints a cell as it finishes: its results, or its reason when it failed."""
        failed = os.path.join(self.cell_dir, cell.cid + ".failed.json")
        if text is None:
            _write_atomic(failed, json.dumps({"params": cell.params, "repeat": cell.repeat,
                                              "error": error}, default=str))
            return
        _write_atomic(os.path.join(self.cell_dir, cell.cid + ".json"), text)
        if os.path.exists(failed):
            os.remove(failed)


class Cell:
    """One cell: its parameters, repeat, seed and checkpoint name."""

    def __init__(self, params: Dict[str, Any], repeat: int, seed: int, cid: str) -> None:
        self.params, self.repeat, self.seed, self.cid = params, repeat, seed, cid

    def row(self, text: Optional[str], error: Optional[str]) -> Dict[str, Any]:
        row: Dict[str, Any] = {**self.params, "repeat": self.repeat, "seed": self.seed,
                               "cell": self.cid, "error": error}
        return row | _headline(text) if text is not None else row


def try_cell(array: Dict[str, Any], workload: Optional[Dict[str, Any]],
             options: Dict[str, Any], params: Mapping[str, Any],
             seed: int, sources: Optional[Mapping[str, Optional[str]]] = None
             ) -> Tuple[Optional[str], Optional[str]]:
    """One cell as (result text, None), or (None, reason) when its input cannot be used
    or its run failed; the reason names the files by the paths in ``sources`` (role ->
    path the base gave, or None)."""
    try:
        return run_cell(array, workload, options, params, seed), None
    except (_native.BadInput, _native.RunFailed) as e:
        return None, _name_sources(str(e), sources or {}, params)


def sweep(base: Mapping[str, Any], grid: Mapping[str, Sequence[Any]], repeats: int = 1,
          engine: str = "local", out: Any = "sweep", progress: bool = False,
          address: Optional[str] = None) -> Any:
    """Runs every cell of ``grid`` over ``base`` and returns one row per cell.

    base: ``{"array": ..., "workload": ... | "profile": ... | "db_test": ..., "seed": 1,
        "duration": "60s", ...}``: the array and workload as paths, TOML text or dicts, and
        any option of storlab.sim.
    grid: key -> values. ``raid_groups[0].level`` or ``controllers.cache`` set keys of the
        array, ``workload.database.sessions`` keys of the workload file, ``sim.duration`` an
        option of storlab.sim.
    repeats: runs of each combination, each with its own seed (derived from the base seed,
        the parameters and the repeat: the same sweep gives the same results, whatever the
        engine).
    engine: "local" (one cell after another in this process) or "ray" (each cell a Ray
        task; cells run in parallel on every core, or on a cluster).
    address: with engine="ray", the cluster to join ("ray://head:10001", "auto"); None
        starts Ray on this machine with all its cores (unless Ray is already started).
    out: directory; each finished cell is written to out/cells/ID.json (its results, as
        storlab sim --json writes them) or ID.failed.json (its reason) as it finishes; a
        re-run reads finished cells back instead of running them.
    progress: a tqdm progress bar (cells done, ETA, failures) when tqdm is installed.

    Returns a polars DataFrame (a list of dicts without polars): the parameters as columns,
    repeat, seed, cell, error, and the headline metrics of the "runs" table. Ctrl-C stops
    the sweep (Ray tasks are cancelled); finished cells stay in ``out``.
    """
    if engine not in ("local", "ray"):
        raise _native.BadInput(f"engine must be \"local\" or \"ray\"; got {engine!r}")
    if address is not None and engine != "ray":
        raise _native.BadInput("address is for engine=\"ray\"")
    plan = Plan(base, grid, repeats, out)
    bar = Progress(len(plan.cells), progress)
    try:
        if engine == "ray":
            from . import _ray

            rows = _ray.run(plan, address, bar)
        else:
            rows = _run_local(plan, bar)
    finally:
        bar.close()
    try:
        import polars as pl
    except ImportError:
        return rows
    return pl.DataFrame(rows, infer_schema_length=None, schema_overrides=_dtypes(rows))


def _dtypes(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The columns' polars types: the runs table's types for its columns (an unsigned count
    stays unsigned), text for the error."""
    import polars as pl
    import pyarrow as pa

    dtypes: Dict[str, Any] = {"error": pl.String}
    if _RUNS_SCHEMA:
        runs = pl.from_arrow(pa.table({f.name: pa.array([], f.type) for f in _RUNS_SCHEMA[0]}))
        present = {k for r in rows for k in r}
        dtypes |= {k: t for k, t in runs.schema.items()
                   if k in present and k not in ("run", "seed")}
    return dtypes


#: The schema of the runs table, seen at the first headline (the sweep's metric columns).
_RUNS_SCHEMA: List[Any] = []


def _run_local(plan: Plan, bar: "Progress") -> List[Dict[str, Any]]:
    rows = []
    for cell in plan.cells:
        text, error = plan.done_text(cell), None
        if text is None:
            text, error = try_cell(plan.array, plan.workload, plan.options, cell.params,
                                   cell.seed, plan.sources)
            plan.record(cell, text, error)
        rows.append(cell.row(text, error))
        bar.update(error)
    return rows


class Progress:
    """A tqdm bar of cells done, with the ETA and the failures so far (nothing when tqdm
    is not installed or the bar is not asked for)."""

    def __init__(self, total: int, show: bool) -> None:
        self.failures = 0
        self.bar = None
        if show:
            try:
                from tqdm import tqdm
            except ImportError:
                return
            self.bar = tqdm(total=total, unit="cell", desc="sweep")
            self.bar.set_postfix(failed=0)

    def update(self, error: Optional[str]) -> None:
        if error is not None:
            self.failures += 1
        if self.bar is not None:
            if error is not None:
                self.bar.set_postfix(failed=self.failures, refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _headline(text: str) -> Dict[str, Any]:
    """The first run's row of the "runs" table (without its run index)."""
    import pyarrow as pa

    native = _native.Result.from_json_text(text)
    batch = pa.record_batch(native.table("runs"))
    if not _RUNS_SCHEMA:
        _RUNS_SCHEMA.append(batch.schema)
    row = batch.to_pylist()[0]
    row.pop("run", None)
    return row
