"""The process group a run belongs to (layer 0): rank, size and the collective operations
solfec-py uses, on mpi4py's buffer interface (numpy arrays, no pickling on the hot path),
or a stand-in of size 1 that needs no MPI. Reference: mpi4py User Guide, "Communicating
Python objects and array data"; MPI 4.0 standard, collective operations.

`world()` decides once per process: a process started by `mpiexec`/`srun` with more than
one rank (told by the launcher's environment: PMI_SIZE, OMPI_COMM_WORLD_SIZE,
SLURM_NTASKS with SLURM_PROCID, MPI_LOCALNRANKS) uses MPI.COMM_WORLD; every other process
gets `Serial()` and never imports mpi4py. A multi-rank launch without mpi4py stops with a
message naming the `[mpi]` extra.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from solfec_py.errors import NotAvailableError

MPI_EXTRA = "pip install 'solfec-py[mpi]'"
_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_SIZE")


def launched_size() -> int:
    """How many ranks the launcher started, read from its environment (1 when unknown)."""
    for name in _SIZE_VARIABLES:
        value = os.environ.get(name)
        if value and value.isdigit():
            return int(value)
    if os.environ.get("SLURM_PROCID") is not None and os.environ.get("SLURM_NTASKS", "").isdigit():
        return int(os.environ["SLURM_NTASKS"])
    return 1


class Serial:
    """A group of one process: every collective returns its input."""

    rank = 0
    size = 1
    parallel = False
    calls = None                          # MPI called from compiled kernels (World.calls)

    def barrier(self) -> None:
        pass

    def allreduce_sum(self, values):
        return np.array(values, dtype=float, copy=True)

    def allreduce_max(self, values):
        return np.array(values, dtype=float, copy=True)

    def allreduce_min(self, values):
        return np.array(values, dtype=float, copy=True)

    def start_sum_in_place(self, values: np.ndarray):
        """Begin summing the float64 array `values` over the ranks, into itself: returns a
        request whose Wait() completes it (`values` is not to be touched until then)."""
        return _Done()

    def allgather_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.ascontiguousarray(rows)
        return rows.copy(), np.array([rows.shape[0]], dtype=np.int64)

    def allgather_fixed(self, row: np.ndarray) -> np.ndarray:
        return np.array(row, copy=True).reshape((1,) + np.shape(row))

    def alltoall_rows(self, parts: list) -> list:
        return [np.array(parts[0], copy=True)]

    def bcast_object(self, value, root: int = 0):
        return value

    def allgather_object(self, value) -> list:
        return [value]

    def gather_object(self, value, root: int = 0):
        return [value]

    def alltoall_object(self, values: list) -> list:
        return list(values)

    def abort(self, code: int = 1) -> None:
        raise SystemExit(code)


class World(Serial):
    """MPI.COMM_WORLD behind the same methods (mpi4py imported by the constructor)."""

    parallel = True

    def __init__(self):
        try:
            from mpi4py import MPI
        except ImportError as exc:
            raise NotAvailableError(
                f"this run was started on {launched_size()} ranks but mpi4py is not installed: {MPI_EXTRA}"
                f" (mpi4py with an MPI from wheels), or build mpi4py against the site's MPI ({exc})") from None
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.bytes_sent = 0               # payload bytes of the buffer exchanges (bench/mpi_scaling.py)
        self._calls = False

    @property
    def calls(self):
        """parallel.mpi_calls.Calls of this communicator (MPI called from compiled kernels), or
        None where the MPI library does not allow it."""
        if self._calls is False:
            from solfec_py.parallel.mpi_calls import Calls

            self._calls = Calls.make(self.MPI, self.comm)
        return self._calls

    def barrier(self) -> None:
        self.comm.Barrier()

    def _allreduce(self, values, op):
        send = np.ascontiguousarray(values, dtype=float)
        recv = np.empty_like(send)
        self.comm.Allreduce(send, recv, op=op)
        self.bytes_sent += send.nbytes
        return recv

    def allreduce_sum(self, values):
        return self._allreduce(values, self.MPI.SUM)

    def allreduce_max(self, values):
        return self._allreduce(values, self.MPI.MAX)

    def allreduce_min(self, values):
        return self._allreduce(values, self.MPI.MIN)

    def start_sum_in_place(self, values: np.ndarray):
        self.bytes_sent += values.nbytes
        return self.comm.Iallreduce(self.MPI.IN_PLACE, values, op=self.MPI.SUM)

    def allgather_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows (k, ...) of every rank stacked in rank order, and the row count of each rank."""
        rows = np.ascontiguousarray(rows)
        counts = np.empty(self.size, dtype=np.int64)
        self.comm.Allgather(np.array([rows.shape[0]], dtype=np.int64), counts)
        width = int(np.prod(rows.shape[1:], dtype=np.int64))
        out = np.empty((int(counts.sum()),) + rows.shape[1:], dtype=rows.dtype)
        sizes = counts * width
        self.comm.Allgatherv(rows.reshape(-1), [out.reshape(-1), sizes, _displacements(sizes), _mpi_type(self.MPI, rows.dtype)])
        self.bytes_sent += rows.nbytes * (self.size - 1)
        return out, counts

    def allgather_fixed(self, row: np.ndarray) -> np.ndarray:
        """(size,) + row's shape: every rank's `row` (of one shape and dtype on all ranks),
        in rank order, by one Allgather (`allgather_rows` first exchanges the counts)."""
        row = np.ascontiguousarray(row)
        out = np.empty((self.size,) + row.shape, dtype=row.dtype)
        self.comm.Allgather(row.reshape(-1), out.reshape(-1))
        self.bytes_sent += row.nbytes * (self.size - 1)
        return out

    def alltoall_rows(self, parts: list) -> list:
        """parts[r]: rows (k_r, ...) for rank r (one dtype and row shape for all); returns the
        rows each rank sent here, in rank order."""
        first = np.ascontiguousarray(parts[0])
        tail, dtype = first.shape[1:], first.dtype
        width = int(np.prod(tail, dtype=np.int64))
        send_counts = np.array([np.asarray(p).shape[0] for p in parts], dtype=np.int64)
        recv_counts = np.empty(self.size, dtype=np.int64)
        self.comm.Alltoall(send_counts, recv_counts)
        send = np.concatenate([np.ascontiguousarray(p, dtype=dtype).reshape(-1) for p in parts])
        recv = np.empty(int(recv_counts.sum()) * width, dtype=dtype)
        mtype = _mpi_type(self.MPI, dtype)
        ssize, rsize = send_counts * width, recv_counts * width
        self.comm.Alltoallv([send, ssize, _displacements(ssize), mtype], [recv, rsize, _displacements(rsize), mtype])
        self.bytes_sent += send.nbytes - int(ssize[self.rank]) * dtype.itemsize
        out, start = [], 0
        for c in recv_counts.tolist():
            out.append(recv[start * width:(start + c) * width].reshape((c,) + tail))
            start += c
        return out

    def bcast_object(self, value, root: int = 0):
        return self.comm.bcast(value, root=root)

    def allgather_object(self, value) -> list:
        return self.comm.allgather(value)

    def gather_object(self, value, root: int = 0):
        """The values of every rank as a list on `root`, None elsewhere (pickled: for output
        frames, not for the per-step path)."""
        return self.comm.gather(value, root=root)

    def alltoall_object(self, values: list) -> list:
        return self.comm.alltoall(values)

    def abort(self, code: int = 1) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        self.comm.Abort(code)


class _Done:
    """A completed request (the serial group's)."""

    def Wait(self) -> None:
        pass


def _displacements(sizes: np.ndarray) -> np.ndarray:
    out = np.zeros(sizes.size, dtype=np.int64)
    np.cumsum(sizes[:-1], out=out[1:])
    return out


def _mpi_type(MPI, dtype):
    return MPI._typedict[np.dtype(dtype).char]


_WORLD = None


def world() -> Serial:
    """The process group of this run (decided once)."""
    global _WORLD
    if _WORLD is None:
        _WORLD = World() if launched_size() > 1 else Serial()
    return _WORLD


def rank() -> int:
    return world().rank


def size() -> int:
    return world().size
