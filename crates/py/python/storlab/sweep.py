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
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


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


def sweep(base: Mapping[str, Any], grid: Mapping[str, Sequence[Any]], repeats: int = 1,
          engine: str = "local", out: str = "sweep", progress: bool = False) -> Any:
    """Runs every cell of ``grid`` over ``base`` and returns one row per cell.

    base: ``{"array": ..., "workload": ... | "profile": ... | "db_test": ..., "seed": 1,
        "duration": "60s", ...}``: the array and workload as paths, TOML text or dicts, and
        any option of storlab.sim.
    grid: key -> values. ``raid_groups[0].level`` or ``controllers.cache`` set keys of the
        array, ``workload.database.sessions`` keys of the workload file, ``sim.duration`` an
        option of storlab.sim.
    repeats: runs of each combination, each with its own seed (derived from the base seed,
        the parameters and the repeat: the same sweep gives the same results).
    engine: "local" (one cell after another in this process).
    out: directory; each finished cell is written to out/cells/ID.json (its results, as
        storlab sim --json writes them) or ID.failed.json (its reason); a re-run reads
        finished cells back instead of running them.

    Returns a polars DataFrame (a list of dicts without polars): the parameters as columns,
    repeat, seed, cell, error, and the headline metrics of the "runs" table.
    """
    if engine != "local":
        raise _native.BadInput(f"engine must be \"local\"; got {engine!r}")
    if repeats < 1:
        raise _native.BadInput(f"repeats must be at least 1; got {repeats}")
    options = {k: v for k, v in base.items() if k not in ("array", "workload")}
    if "array" not in base:
        raise _native.BadInput("base: an \"array\" is needed")
    array = _load(base["array"], "array")
    workload = _load(base["workload"], "workload") if base.get("workload") is not None else None
    base_seed = int(options.pop("seed", 1))
    ident = {"array": array, "workload": workload, "options": options}
    cell_dir = os.path.join(os.fspath(out), "cells")
    os.makedirs(cell_dir, exist_ok=True)
    rows = []
    todo = cells(grid, repeats)
    for params, _ in todo:  # a grid key that names nothing is the sweep's mistake, not a cell's
        _apply(array, workload, options, params)
    bar = _bar(len(todo)) if progress else None
    for params, repeat in todo:
        seed = cell_seed(base_seed, params, repeat)
        cid = _cell_id(ident, params, repeat, seed)
        done = os.path.join(cell_dir, cid + ".json")
        row: Dict[str, Any] = {**params, "repeat": repeat, "seed": seed, "cell": cid,
                               "error": None}
        if os.path.exists(done):
            with open(done) as f:
                text = f.read()
        else:
            try:
                text = run_cell(array, workload, options, params, seed)
            except (_native.BadInput, _native.RunFailed) as e:
                _write_atomic(os.path.join(cell_dir, cid + ".failed.json"),
                              json.dumps({"params": params, "repeat": repeat,
                                          "error": str(e)}, default=str))
                rows.append(row | {"error": str(e)})
                if bar is not None:
                    bar.update(1)
                continue
            _write_atomic(done, text)
            failed = os.path.join(cell_dir, cid + ".failed.json")
            if os.path.exists(failed):
                os.remove(failed)
        rows.append(row | _headline(text))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    try:
        import polars as pl
    except ImportError:
        return rows
    return pl.DataFrame(rows, infer_schema_length=None)


def _headline(text: str) -> Dict[str, Any]:
    """The first run's row of the "runs" table (without its run index)."""
    import pyarrow as pa

    native = _native.Result.from_json_text(text)
    row = pa.record_batch(native.table("runs")).to_pylist()[0]
    row.pop("run", None)
    return row


def _bar(total: int) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="cell")
