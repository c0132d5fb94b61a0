"""The four MPI calls a compiled distributed solve makes from inside its kernel (layer 0):
MPI_Startall, MPI_Waitall, MPI_Iallreduce and MPI_Wait, as numba intrinsics that call the
functions of the MPI library mpi4py loaded, on the raw handles of mpi4py's objects.
Reference: MPI 4.0 standard, sections 3.9 (persistent requests) and 6.12 (non-blocking
collectives); mpi4py's `MPI._addressof` / `MPI._sizeof`; numba's `extending.intrinsic`.

Why not numba-mpi: it binds MPI.COMM_WORLD only, has no persistent requests nor non-blocking
collectives, and calls MPI through ctypes globals, which numba cannot cache (every kernel
calling it would be compiled again in every run). Here the function addresses travel as an
int64 array argument (`Calls.functions`), so the kernels are cached like any other, and the
handles as unsigned integers of the MPI library's handle width (`Calls.dtype`: 4 bytes in
MPICH and its derivatives, 8 in Open MPI and the MPI ABI), so a kernel compiled for one
width is never run with another. `Calls.make()` returns None where the library's handle
sizes differ from each other or a function is not found; the callers then keep to mpi4py.

Handles are read as the bytes mpi4py stores (`Calls.handle`), which need no sign
convention. No call passes MPI_IN_PLACE, MPI_STATUS_IGNORE or MPI_STATUSES_IGNORE (their
values differ between implementations): statuses go to a buffer of `Calls.status_bytes`
a request, and the sum has a send buffer of its own. Every call returns MPI's error code;
mpi4py sets MPI_ERRORS_RETURN on its communicators, so the caller checks it.
"""
from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

NAMES = ("MPI_Startall", "MPI_Waitall", "MPI_Iallreduce", "MPI_Wait")
STARTALL, WAITALL, IALLREDUCE, WAIT = range(4)
COMM, DOUBLE, SUM = range(3)                # the rows of `Calls.world`


class Calls:
    """The addresses and handles the intrinsics below take, for one communicator."""

    def __init__(self, MPI, comm, library, dtype):
        self.MPI = MPI
        self.dtype = dtype
        self.functions = np.array([ctypes.cast(getattr(library, name), ctypes.c_void_p).value for name in NAMES],
                                  dtype=np.int64)
        self.world = np.array([self.handle(comm), self.handle(MPI.DOUBLE), self.handle(MPI.SUM)], dtype=dtype)
        self.status_bytes = int(MPI._sizeof(MPI.Status))

    @classmethod
    def make(cls, MPI, comm) -> "Calls | None":
        sizes = {int(MPI._sizeof(kind)) for kind in (MPI.Comm, MPI.Datatype, MPI.Op, MPI.Request)}
        if len(sizes) != 1 or sizes.pop() not in (4, 8):
            return None
        dtype = np.dtype(np.uint32 if MPI._sizeof(MPI.Request) == 4 else np.uint64)
        try:
            library = ctypes.CDLL(MPI.__file__)           # its MPI library's symbols resolve through it
            return cls(MPI, comm, library, dtype)
        except (OSError, AttributeError):
            return None

    def handle(self, obj) -> int:
        """The raw handle of an mpi4py object (request, communicator, datatype, op)."""
        raw = ctypes.string_at(self.MPI._addressof(obj), self.dtype.itemsize)
        return int(np.frombuffer(raw, dtype=self.dtype)[0])

    def statuses(self, count: int) -> np.ndarray:
        return np.zeros(max(count, 1) * self.status_bytes, dtype=np.uint8)


_I32 = ir.IntType(32)
_P8 = ir.IntType(8).as_pointer()


def _data(context, builder, aryty, value, offset=None):
    """The address of an array's data (of element `offset`, when given) as void*."""
    ary = context.make_array(aryty)(context, builder, value)
    ptr = ary.data if offset is None else builder.gep(ary.data, [offset])
    return builder.bitcast(ptr, _P8)


def _function(builder, address, argtypes):
    fnty = ir.FunctionType(_I32, argtypes)
    return builder.inttoptr(address, fnty.as_pointer())


@intrinsic
def startall(typingctx, address, requests, first, count):
    """MPI_Startall(count, &requests[first])."""
    sig = types.int32(address, requests, first, count)

    def codegen(context, builder, sig, args):
        fn = _function(builder, args[0], [_I32, _P8])
        return builder.call(fn, [builder.trunc(args[3], _I32), _data(context, builder, sig.args[1], args[1], args[2])])
    return sig, codegen


@intrinsic
def waitall(typingctx, address, requests, first, count, statuses):
    """MPI_Waitall(count, &requests[first], statuses)."""
    sig = types.int32(address, requests, first, count, statuses)

    def codegen(context, builder, sig, args):
        fn = _function(builder, args[0], [_I32, _P8, _P8])
        return builder.call(fn, [builder.trunc(args[3], _I32), _data(context, builder, sig.args[1], args[1], args[2]),
                                 _data(context, builder, sig.args[4], args[4])])
    return sig, codegen


@intrinsic
def iallreduce_sum(typingctx, address, send, recv, world, request):
    """MPI_Iallreduce(send, recv, send.size, MPI_DOUBLE, MPI_SUM, comm, &request[0]) over
    float64 arrays; `world` holds the handles (COMM, DOUBLE, SUM)."""
    sig = types.int32(address, send, recv, world, request)

    def codegen(context, builder, sig, args):
        handle = context.get_data_type(sig.args[3].dtype)
        fn = _function(builder, args[0], [_P8, _P8, _I32, handle, handle, handle, _P8])
        table = context.make_array(sig.args[3])(context, builder, args[3])

        def entry(i):
            return builder.load(builder.gep(table.data, [ir.Constant(ir.IntType(64), i)]))
        size = builder.extract_value(context.make_array(sig.args[1])(context, builder, args[1]).shape, 0)
        return builder.call(fn, [_data(context, builder, sig.args[1], args[1]),
                                 _data(context, builder, sig.args[2], args[2]), builder.trunc(size, _I32),
                                 entry(DOUBLE), entry(SUM), entry(COMM), _data(context, builder, sig.args[4], args[4])])
    return sig, codegen


@intrinsic
def wait(typingctx, address, request, status):
    """MPI_Wait(&request[0], status)."""
    sig = types.int32(address, request, status)

    def codegen(context, builder, sig, args):
        fn = _function(builder, args[0], [_P8, _P8])
        return builder.call(fn, [_data(context, builder, sig.args[1], args[1]),
                                 _data(context, builder, sig.args[2], args[2])])
    return sig, codegen
