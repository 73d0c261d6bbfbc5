"""Horovod's MXNet API (``import braid.horovod as hvd``), on Braid's collective backend: run the
script under ``mpirun -np N`` or ``braid launch --launcher mpi -n N -s 0``."""
from ._core import collective as _c
from ._core.collective import (init, shutdown, is_initialized, rank, size, local_rank, local_size, cross_rank,
                               cross_size, broadcast_parameters, DistributedTrainer)

_counter = [0]


def _name(name, kind):
    if name is None:
        _counter[0] += 1
        return "%s.noname.%d" % (kind, _counter[0])
    return name


def allreduce(tensor, average=True, name=None, priority=0, prescale_factor=1.0, postscale_factor=1.0):
    return _c.allreduce(tensor, average, _name(name, "allreduce"), prescale_factor, postscale_factor)


def allreduce_(tensor, average=True, name=None, priority=0, prescale_factor=1.0, postscale_factor=1.0):
    return _c.allreduce_(tensor, average, _name(name, "allreduce"), prescale_factor, postscale_factor)


def allgather(tensor, name=None, priority=0):
    return _c.allgather(tensor, _name(name, "allgather"))


def broadcast(tensor, root_rank, name=None, priority=0):
    return _c.broadcast(tensor, root_rank, _name(name, "broadcast"))


def broadcast_(tensor, root_rank, name=None, priority=0):
    return _c.broadcast_(tensor, root_rank, _name(name, "broadcast"))


def alltoall(tensor, splits=None, name=None, priority=0):
    return _c.alltoall(tensor, [] if splits is None else [int(s) for s in splits], _name(name, "alltoall"))
