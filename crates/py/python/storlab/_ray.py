"""The Ray engine of ``storlab.sweep``: each cell not finished yet is one Ray task running
the same ``storlab.sim`` call as the local engine with the same seed; the driver checkpoints
each cell as its task ends (in the order they end) and cancels what is left on Ctrl-C."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from . import _native

#: How long ``ray.wait`` blocks before the driver looks for Ctrl-C again (seconds).
_POLL_S = 0.5
#: How often a cell's task looks for its cancellation, and asks its simulation to stop
#: once cancelled (seconds).
_CANCEL_POLL_S = 0.1


def need_ray() -> Any:
    """The ``ray`` module, or BadInput saying how to install it."""
    try:
        import ray
    except ImportError:
        raise _native.BadInput(
            "engine=\"ray\" needs Ray: pip install 'ray[tune]' (or engine=\"local\")") from None
    return ray


def connect(address: Optional[str]) -> Any:
    """Ray, started on this machine with all its cores (address None) or joined to the
    cluster at ``address``; a Ray already started in this process is used as it is."""
    ray = need_ray()
    if not ray.is_initialized():
        if address is None:
            start_env()
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    return ray


def start_env() -> None:
    """Environment for a Ray started here: its workers at this process's priority. Ray
    starts workers at nice 15 by default, and the cells are the work: on a machine busy
    with other jobs, cells at nice 15 ran slower in parallel than one after another here."""
    import os

    os.environ.setdefault("RAY_worker_niceness", "0")


def _cell_task(array: Dict[str, Any], workload: Optional[Dict[str, Any]],
               options: Dict[str, Any], params: Dict[str, Any],
               seed: int, sources: Dict[str, Optional[str]]
               ) -> Tuple[Optional[str], Optional[str]]:
    """One cell, run on a second thread while this one waits for it.

    ``ray.cancel`` (not forced) raises KeyboardInterrupt in the task's main thread; this
    thread then asks the simulation to stop as Ctrl-C does, waits for it and lets the
    cancellation through, so a cancelled cell stops within a fraction of a second and
    its worker is free for the next. A forced cancel is never used: killing a worker while
    its finished task's reply is on the way aborts the driver inside Ray ("Tried to
    complete task that was not pending", ray-project/ray#54260)."""
    import threading

    from .sweep import try_cell

    outcome: List[Tuple[Any, Optional[BaseException]]] = []

    def body() -> None:
        try:
            outcome.append((try_cell(array, workload, options, params, seed, sources), None))
        except BaseException as e:  # handed to the waiting thread, which raises it
            outcome.append((None, e))

    cell = threading.Thread(target=body, name="storlab cell", daemon=True)
    try:
        cell.start()
        while cell.is_alive():
            cell.join(_CANCEL_POLL_S)
    except KeyboardInterrupt:
        # Asked again until the thread ends: a call that has not started yet lowers the
        # stop flag when it does.
        while cell.is_alive():
            _native.request_stop()
            cell.join(_CANCEL_POLL_S)
        raise
    value, error = outcome[0]
    if error is not None:
        raise error
    return value


def run(plan: Any, address: Optional[str], bar: Any) -> List[Dict[str, Any]]:
    """Runs the plan's unfinished cells as Ray tasks; rows in the plan's cell order."""
    rows: List[Optional[Dict[str, Any]]] = [None] * len(plan.cells)
    todo = []
    for i, cell in enumerate(plan.cells):
        text = plan.done_text(cell)
        if text is None:
            todo.append(i)
        else:
            rows[i] = cell.row(text, None)
            bar.update(None)
    if todo:
        ray = connect(address)
        task = ray.remote(num_cpus=1, max_retries=0)(_cell_task)
        array, workload = ray.put(plan.array), ray.put(plan.workload)
        pending = {task.remote(array, workload, plan.options, plan.cells[i].params,
                               plan.cells[i].seed, plan.sources): i for i in todo}
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=_POLL_S)
                for ref in ready:
                    i = pending.pop(ref)
                    text, error = _outcome(ray, ref)
                    plan.record(plan.cells[i], text, error)
                    rows[i] = plan.cells[i].row(text, error)
                    bar.update(error)
        except BaseException:
            for ref in pending:
                ray.cancel(ref)  # not forced: see _cell_task
            raise
    return [r for r in rows if r is not None]


def _outcome(ray: Any, ref: Any) -> Tuple[Optional[str], Optional[str]]:
    """A finished task's (text, error); a task that died (its worker lost, its node gone)
    is a failed cell with Ray's reason."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayError as e:
        return None, f"the Ray task failed: {e}"
