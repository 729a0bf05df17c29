"""storlab from Python: simulate disk arrays and databases, run real I/O and real PostgreSQL,
compare configurations, with results as the command line writes them and as Arrow tables.

Every function takes the options of the ``storlab`` command of the same name as keyword
arguments (``--sweep-max 32`` is ``sweep_max=32``, a flag is ``True``, a repeatable option a
list) and runs the same code as the command, so the results are the same.

    >>> import storlab
    >>> r = storlab.sim(array="examples/arrays/midrange-raid5.toml", profile="randread-8k",
    ...                 duration="20s")
    >>> r.to_polars()            # one row per run: iops, latency_ms_p99, ...
    >>> r.to_polars("series")    # one row per interval of each run
"""

from __future__ import annotations

import json as _json
import os
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _native
from ._native import BadInput, RunFailed

__all__ = ["sim", "sweep", "optimize", "io_cluster", "validate", "compare", "io", "db",
           "Result", "Validation", "BadInput", "RunFailed", "__version__"]

__version__: str = _native.VERSION

#: A file's contents: a path, TOML text, or a dict with the keys of the file.
Source = Union[str, "os.PathLike[str]", Mapping[str, Any]]

TABLES = ("runs", "series")


class Result:
    """The runs of one call, in the result schema ``storlab.results/1``.

    ``runs`` and ``to_dict()`` are the command line's ``--json`` file as Python objects;
    ``to_arrow()``, ``to_polars()`` and ``to_pandas()`` give the table ``"runs"`` (one row per
    run: target, workload, seed, iops, mbps, latency_ms_p50 ... p999, ...) or ``"series"``
    (one row per interval of each run: run, t_s, iops, mbps, latency_ms_mean, ...), handed
    over through the Arrow C data interface.
    """

    def __init__(self, native: "_native.Result") -> None:
        self._native = native
        self._dict: Optional[Dict[str, Any]] = None

    @property
    def runs(self) -> List[Dict[str, Any]]:
        """Each run as a dict (target, workload, metrics, devices, series, sim, ...)."""
        return self.to_dict()["runs"]

    @property
    def partial(self) -> bool:
        """True when a run was stopped before its end (Ctrl-C)."""
        return self._native.partial

    def to_json(self) -> str:
        """The text the command line writes with ``--json`` (pretty, newline ended)."""
        return self._native.to_json()

    def to_dict(self) -> Dict[str, Any]:
        """The result file as a dict: schema, storlab_version, git_commit, runs."""
        if self._dict is None:
            self._dict = _json.loads(self._native.to_json())
        return self._dict

    def to_arrow(self, table: str = "runs") -> Any:
        """The table ``"runs"`` or ``"series"`` as a ``pyarrow.Table`` (needs pyarrow 14+)."""
        import pyarrow as pa

        batch = pa.record_batch(self._native.table(table))
        return pa.Table.from_batches([batch])

    def to_polars(self, table: str = "runs") -> Any:
        """The table ``"runs"`` or ``"series"`` as a ``polars.DataFrame``."""
        import polars as pl

        return pl.from_arrow(self.to_arrow(table))

    def to_pandas(self, table: str = "runs") -> Any:
        """The table ``"runs"`` or ``"series"`` as a ``pandas.DataFrame``."""
        return self.to_arrow(table).to_pandas()

    def __len__(self) -> int:
        return len(self._native)

    def __repr__(self) -> str:
        names = ", ".join(f"{r['target']['name']} x {r['workload']['name']}" for r in self.runs)
        return f"<storlab.Result {len(self)} run(s){' partial' if self.partial else ''}: {names}>"


def _argv(options: Mapping[str, Any]) -> List[str]:
    """Keyword arguments as command-line options: ``sweep_max=32`` is ``--sweep-max 32``."""
    argv: List[str] = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            argv += [flag, os.fspath(v) if isinstance(v, os.PathLike) else str(v)]
    return argv


def _interrupted(what: str, partial: Optional[Result]) -> KeyboardInterrupt:
    e = KeyboardInterrupt(f"{what} interrupted; the results so far are in .partial")
    e.partial = partial  # type: ignore[attr-defined]
    return e


def sim(
    array: Source,
    workload: Optional[Source] = None,
    *,
    profile: Optional[str] = None,
    db_test: Optional[str] = None,
    duration: str = "60s",
    warmup: Optional[str] = None,
    seed: int = 1,
    **options: Any,
) -> Result:
    """Simulate an array: what ``storlab sim`` runs with the same options.

    array: the array file: a path, TOML text, or a dict with the keys of the file.
    workload: a workload file (``[[streams]]`` and/or ``[database]``), given the same ways;
        or instead ``profile`` (a built-in I/O profile: randread-8k, oltp-60-40, ...) or
        ``db_test`` (a simulated database test), or ``matrix=True`` or ``trace=PATH``.
    duration: measured simulated time after the warm-up ("60s", "5m").
    warmup: simulated warm-up excluded from the measurement: a span, "0" or "auto" (default:
        auto for database workloads, 10s otherwise, as on the command line).
    seed: seed of every random stream; the same seed gives the same results.
    options: any other option of ``storlab sim`` (``storlab sim --help``): sessions=,
        rows=, db_set=["tables=15"], db_data=, db_log=, fail=["r5-0.d3@30s"], sweep=True,
        sweep_max=, max_p99_ms=, warmup_max=, profile_from=, trace_format=, json=PATH, ...

    Returns a Result. Raises BadInput (a ValueError) naming the file, key or option when
    the input cannot be used, RunFailed when the run fails. The simulation runs without the
    GIL; Ctrl-C stops it within moments and raises KeyboardInterrupt whose ``partial``
    attribute holds the runs so far (marked partial).
    """
    argv = _argv(dict(profile=profile, db_test=db_test, duration=duration, warmup=warmup,
                      seed=seed, **options))
    native, stopped = _native.sim(argv, array, workload)
    result = Result(native)
    if stopped:
        raise _interrupted("storlab.sim", result)
    return result


class Validation:
    """The outcome of ``storlab.validate``: ``passed``, the failure ``message`` when not,
    and the simulated runs as a Result (``result``)."""

    def __init__(self, passed: bool, message: Optional[str], result: Result) -> None:
        self.passed = passed
        self.message = message
        self.result = result

    def __repr__(self) -> str:
        return f"<storlab.Validation passed={self.passed} {self.message or ''}>"


def _run_command(name: str, argv: Sequence[str], files: Optional[Dict[str, Any]] = None) -> None:
    if _native.command([name, *argv], files):
        raise _interrupted(f"storlab.{name}", None)


def _results_file(json: Optional[Union[str, "os.PathLike[str]"]], tmp: str) -> str:
    return os.fspath(json) if json is not None else os.path.join(tmp, "results.json")


def _load(path: str) -> Result:
    return Result(_native.Result.from_json_file(path))


def validate(json: Optional[Union[str, "os.PathLike[str]"]] = None, **options: Any) -> Validation:
    """Check the simulator against the published reference results: ``storlab validate``.

    options: references=DIR, explain=True, markdown=FILE, local=True, dir=, duration=.
    The scorecard is printed to standard output as the command prints it. Returns a
    Validation (``passed`` is False when figures are outside tolerance). Raises BadInput for
    unusable reference files, RunFailed when no results could be written.
    """
    with tempfile.TemporaryDirectory(prefix="storlab-validate-") as tmp:
        path = _results_file(json, tmp)
        argv = _argv(dict(json=path, **options))
        try:
            _run_command("validate", argv)
            passed, message = True, None
        except RunFailed as e:
            if not os.path.exists(path):
                raise
            passed, message = False, str(e)
        return Validation(passed, message, _load(path))


def compare(plan: Source, out: Union[str, "os.PathLike[str]"] = "out/compare",
            fresh: bool = False) -> Result:
    """Run a plan of configurations x workloads: ``storlab compare PLAN --out OUT``.

    plan: the plan file: a path, TOML text or a dict with the keys of the file. Finished
    cells in ``out`` are kept and a re-run resumes (``fresh=True`` runs every cell again).
    Writes out/results.json, study.json, the CSV files and report.html; returns the results.
    """
    _run_command("compare", ["{plan}", *_argv(dict(out=out, fresh=fresh))], {"plan": plan})
    return _load(os.path.join(os.fspath(out), "results.json"))


def io(json: Optional[Union[str, "os.PathLike[str]"]] = None, **options: Any) -> Result:
    """Real I/O on a file, directory or block device: ``storlab io`` with the same options
    (target=, profile=, duration=, ...) and the same safety checks. Returns the results."""
    with tempfile.TemporaryDirectory(prefix="storlab-io-") as tmp:
        path = _results_file(json, tmp)
        _run_command("io", _argv(dict(json=path, **options)))
        return _load(path)


def db(json: Optional[Union[str, "os.PathLike[str]"]] = None, **options: Any) -> Result:
    """A database workload on a real PostgreSQL: ``storlab db`` with the same options
    (suite=, test=, data_dir=, dsn=, duration=, ...) and the same safety checks."""
    with tempfile.TemporaryDirectory(prefix="storlab-db-") as tmp:
        path = _results_file(json, tmp)
        _run_command("db", _argv(dict(json=path, **options)))
        return _load(path)


from .sweep import sweep  # noqa: E402  (uses sim, defined above)
from .optimize import optimize  # noqa: E402
from .cluster import io_cluster  # noqa: E402
