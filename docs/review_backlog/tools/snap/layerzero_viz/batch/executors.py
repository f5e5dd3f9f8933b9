"""Ordered, bounded parallel map of work units: in this process, over local processes, or on Dask.

Every executor yields results in input order and keeps at most ``window`` units in flight, so memory stays
bounded however long the input is (``Pool.imap`` would read the whole input ahead).  Order is what makes
resumption a single cursor and makes the output identical whichever executor ran it.
"""
from __future__ import annotations

import collections
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterable, Iterator

from .inputs import Unit
from .work import Job, UnitResult, process_unit

__all__ = ["Executor", "ExecutorError", "InProcess", "ProcessPool", "DaskCluster", "make_executor", "ENGINES"]

ENGINES = ("local", "dask")
_IN_FLIGHT_PER_WORKER = 3


class ExecutorError(RuntimeError):
    """The machinery failed, not the input: a worker died, a scheduler could not be reached."""


class Executor:
    """``map(job, units)`` → results in order; use as a context manager."""

    description = ""

    def map(self, job: Job, units: Iterable[Unit]) -> Iterator[UnitResult]:
        raise NotImplementedError

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        pass


class InProcess(Executor):
    """``--jobs 1``: no pool, no pickling."""

    description = "local, 1 process"

    def map(self, job: Job, units: Iterable[Unit]) -> Iterator[UnitResult]:
        for unit in units:
            yield process_unit(job, unit)


def _windowed(submit: Callable, get: Callable, job: Job, units: Iterable[Unit], window: int) -> Iterator[UnitResult]:
    pending: collections.deque = collections.deque()
    for unit in units:
        pending.append(submit(job, unit))
        if len(pending) >= window:
            yield get(pending.popleft())
    while pending:
        yield get(pending.popleft())


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """End this worker when ``parent`` dies, however it dies (SIGKILL included).

    Linux: the kernel sends SIGKILL when the parent goes (prctl PR_SET_PDEATHSIG).  Elsewhere, or if prctl
    fails, a daemon thread polls the parent's pid.  Either way a parent gone before we got here ends us now.
    """
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)
    if not armed:
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, name="layerzero-parent-watch", daemon=True).start()


def _worker_init(parent: int | None = None) -> None:
    # Ctrl-C and SIGTERM are the parent's to handle (it keeps the checkpoint and then stops us); a worker whose
    # parent died ends itself.  Load the tokenizer and lexicons up front.
    if parent is not None:
        _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    from .. import engine
    engine.annotate("warm up 1", env={})


class ProcessPool(Executor):
    """``--jobs N``: N forked worker processes; a dead worker ends the run with exit code 3."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.description = f"local, {jobs} processes"
        self._pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"),
                                         initializer=_worker_init, initargs=(os.getpid(),))

    def map(self, job: Job, units: Iterable[Unit]) -> Iterator[UnitResult]:
        try:
            yield from _windowed(lambda j, u: self._pool.submit(process_unit, j, u), lambda f: f.result(),
                                 job, units, self.jobs * _IN_FLIGHT_PER_WORKER)
        except BrokenProcessPool:
            raise ExecutorError("a worker process died (out of memory?); run again to resume") from None

    def __exit__(self, exc_type, *exc) -> None:
        if exc_type is not None:  # interrupted, terminated or failed: in-flight units are thrown away anyway
            self.kill()
        self.close()

    def kill(self) -> None:
        """Stop the workers now: the run is over and what they hold is thrown away (the checkpoint is before it).

        A worker killed while it wrote a result leaves half a message in the pool's result pipe, and the pool's
        manager thread then waits for the rest for ever — and ``shutdown`` joins that thread (a SIGTERM'd run hung
        about one time in six on a loaded machine).  Once the workers are gone, our own copy of the pipe's writing
        end is the last one: closing it lets the manager thread read an end of file and stop as broken."""
        processes = [p for p in list((getattr(self._pool, "_processes", None) or {}).values()) if p.is_alive()]
        for process in processes:
            process.kill()
        for process in processes:
            process.join(5.0)
        writer = getattr(getattr(self._pool, "_result_queue", None), "_writer", None)
        if writer is not None and not any(p.is_alive() for p in processes):
            writer.close()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskCluster(Executor):
    """``--engine dask``: units become Dask tasks on the cluster at ``scheduler``, or on a local cluster.

    The local cluster has ``jobs`` single-threaded worker processes listening on 127.0.0.1 only, without a
    dashboard.  Workers of an existing cluster must have the same layerzero-viz installed.
    """

    def __init__(self, jobs: int, scheduler: str | None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorError("--engine dask needs dask, which is not installed: "
                                "pip install 'layerzero-viz[dask]'") from None
        self._cluster = None
        try:
            if scheduler:
                self._client = Client(scheduler, timeout="15s")
                self.description = f"dask at {scheduler}"
            else:
                self._cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                             host="127.0.0.1", dashboard_address=None,
                                             silence_logs=logging.ERROR)
                self._client = Client(self._cluster)
                self.description = f"dask local cluster, {jobs} workers"
        except (OSError, TimeoutError) as exc:
            self.close()
            where = scheduler or "a local cluster"
            raise ExecutorError(f"could not connect to the Dask scheduler at {where}: {exc}") from None
        self._window = max(1, sum(self._client.nthreads().values())) * _IN_FLIGHT_PER_WORKER

    def map(self, job: Job, units: Iterable[Unit]) -> Iterator[UnitResult]:
        run = uuid.uuid4().hex[:16]  # keys are global on a shared cluster: never reuse another client's

        def submit(j: Job, u: Unit):
            return self._client.submit(process_unit, j, u, pure=False,
                                       key=f"layerzero-unit-{run}-{u.file}-{u.end.line}")

        yield from _windowed(submit, self._result, job, units, self._window)

    @staticmethod
    def _result(future) -> UnitResult:
        try:
            return future.result()
        except Exception as exc:  # process_unit handles every line's own errors: this is the cluster failing
            raise ExecutorError(f"a Dask task failed: {type(exc).__name__}: {exc}") from None

    def close(self) -> None:
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_executor(engine: str, jobs: int, scheduler: str | None) -> Executor:
    if engine == "dask":
        return DaskCluster(jobs, scheduler)
    return InProcess() if jobs <= 1 else ProcessPool(jobs)
