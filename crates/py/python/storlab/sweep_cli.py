"""``storlab sweep SWEEP.toml [--ray ADDRESS] [--out DIR]``: the command line's sweep,
run here (the ``storlab`` binary starts ``python3 -m storlab.sweep_cli``). The file::

    engine = "ray"                 # "local" (default) or "ray"
    address = "ray://head:10001"   # optional: the Ray cluster (default: Ray on this machine)
    repeats = 2                    # runs of each combination, each with its own seed
    out = "sweep"                  # optional: relative to the file (default "sweep")
    progress = true                # a progress bar on standard error (default true)

    [base]                         # what storlab.sim takes: array, workload or profile, ...
    array = "arrays/midrange-raid5.toml"   # paths relative to the file
    profile = "randread-8k"
    duration = "30s"
    seed = 1

    [grid]                         # key = [values]: every combination is one cell
    "raid_groups[0].level" = ["raid5", "raid10"]
    "controllers.cache" = ["4g", "16g"]

Writes out/cells/ (one file per finished cell; a re-run resumes) and out/sweep.csv (one
row per cell), prints the table, and exits 0 when every cell ran, 1 when some failed or
Ctrl-C stopped the sweep (finished cells kept), 2 on bad input.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import sys
from typing import Any, Dict, List, Optional

KEYS = ("engine", "address", "repeats", "out", "progress", "base", "grid")


def _fail(message: str, code: int) -> "SystemExit":
    print(f"storlab: {message}", file=sys.stderr)
    return SystemExit(code)


def load(path: str) -> Dict[str, Any]:
    """The sweep file as a dict, its relative paths resolved against its directory."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise _fail(f"{path}: cannot read the sweep file: {e.strerror}", 2)
    except tomllib.TOMLDecodeError as e:
        raise _fail(f"{path}: not TOML: {e}", 2)
    unknown = [k for k in doc if k not in KEYS]
    if unknown:
        raise _fail(f"{path}: unknown key {unknown[0]!r}; the keys are {', '.join(KEYS)}", 2)
    for table in ("base", "grid"):
        if not isinstance(doc.get(table), dict):
            raise _fail(f"{path}: a [{table}] table is needed", 2)
    here = os.path.dirname(os.path.abspath(path))
    for key in ("array", "workload", "trace"):
        value = doc["base"].get(key)
        if isinstance(value, str) and "\n" not in value and not os.path.isabs(value):
            doc["base"][key] = os.path.join(here, value)
    for key, values in doc["grid"].items():
        if not isinstance(values, list) or not values:
            raise _fail(f"{path}: [grid] {key} must be a non-empty list of values", 2)
    doc["out"] = os.path.join(here, doc.get("out", "sweep"))
    return doc


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="storlab sweep")
    parser.add_argument("file", metavar="SWEEP.toml")
    parser.add_argument("--ray", metavar="ADDRESS")
    parser.add_argument("--out", metavar="DIR")
    args = parser.parse_args(argv)
    doc = load(args.file)
    engine, address = doc.get("engine", "local"), doc.get("address")
    if args.ray is not None:
        engine, address = "ray", (None if args.ray == "local" else args.ray)
    out = args.out or doc["out"]
    table = os.path.join(out, "sweep.csv")
    if os.path.lexists(table) and not _is_sweep_table(table):
        raise _fail(f"--out {out}: {table} exists and was not written by storlab (it lacks the "
                    "header storlab writes there); storlab replaces only its own outputs: "
                    "remove the file or name another directory", 2)
    import storlab

    try:
        df = storlab.sweep(doc["base"], doc["grid"], repeats=doc.get("repeats", 1),
                           engine=engine, address=address, out=out,
                           progress=doc.get("progress", True))
    except storlab.BadInput as e:
        raise _fail(f"{args.file}: {e}", 2)
    except storlab.RunFailed as e:
        raise _fail(str(e), 1)
    except KeyboardInterrupt:
        raise _fail(f"interrupted; the finished cells are in {out}/cells (run again to "
                    "resume)", 1)
    return _report(df, out)


#: The columns every sweep table has, in this order, after the grid's keys.
CELL_COLUMNS = ("repeat", "seed", "cell", "error")


def _is_sweep_table(path: str) -> bool:
    """Whether ``path`` is a sweep table storlab wrote: a file whose header line holds the
    cell columns in a row."""
    try:
        with open(path, newline="") as f:
            header = f.readline().rstrip("\r\n").split(",")
    except (OSError, UnicodeDecodeError):
        return False
    n = len(CELL_COLUMNS)
    return any(tuple(header[i:i + n]) == CELL_COLUMNS for i in range(len(header)))


def _write_table(path: str, write: Any) -> None:
    """Writes the table through ``write(temporary path)``, then renames it over ``path``,
    which must be absent or storlab's (checked again: it may have appeared during the run)."""
    if os.path.lexists(path) and not _is_sweep_table(path):
        raise _fail(f"{path}: exists and was not written by storlab; nothing was written", 1)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".sweep.csv.",
                               suffix=".storlab-tmp")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)  # as a file created with the usual umask, not mkstemp's 0600
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _report(df: Any, out: str) -> int:
    """Prints the table, writes out/sweep.csv; 1 when a cell failed."""
    path = os.path.join(out, "sweep.csv")
    if isinstance(df, list):  # without polars
        import csv

        rows = df
        columns = list(dict.fromkeys(k for r in rows for k in r))

        def write(tmp: str) -> None:
            with open(tmp, "w", newline="") as f:
                w = csv.DictWriter(f, columns)
                w.writeheader()
                w.writerows(rows)

        _write_table(path, write)
    else:
        import polars as pl

        rows = df.to_dicts()
        _write_table(path, df.write_csv)
        params = df.columns[:df.columns.index("repeat")]
        shown = [c for c in [*params, "repeat", "iops", "mbps", "latency_ms_p99",
                             "tx_per_min", "error"] if c in df.columns]
        if "tx_per_min" in shown and df["tx_per_min"].is_null().all():
            shown.remove("tx_per_min")
        with pl.Config(tbl_rows=len(rows), tbl_cols=len(shown), tbl_width_chars=160,
                       fmt_str_lengths=50, tbl_hide_column_data_types=True,
                       tbl_hide_dataframe_shape=True):
            print(df.select(shown))
    failed = [r for r in rows if r.get("error")]
    print(f"{len(rows)} cells, {len(failed)} failed; table: {path}")
    for r in failed:
        print(f"  cell {r['cell']}: {r['error']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
