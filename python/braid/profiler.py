"""mxnet.profiler: records the operators the engine runs, memory in use and what the program
declares (tasks, frames, events, counters, markers), for chrome://tracing (``dump``) and as
per-name statistics (``dumps``).

    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename='profile.json')
    mx.profiler.set_state('run')
    ...                       # the code to profile
    mx.nd.waitall()
    mx.profiler.set_state('stop')
    mx.profiler.dump()        # profile.json: open it in chrome://tracing or ui.perfetto.dev
    print(mx.profiler.dumps())
"""
import contextlib
import warnings

from ._core import profiler as _core
from .base import MXNetError

__all__ = ["set_config", "set_state", "dump", "dumps", "pause", "resume", "Domain", "Task", "Frame", "Event",
           "Counter", "Marker", "scope", "profiler_set_config", "profiler_set_state", "dump_profile"]

_FLAGS = ("profile_symbolic", "profile_imperative", "profile_memory", "profile_api")
_ACCEPTED = set(_FLAGS) | {"profile_all", "filename", "continuous_dump", "dump_period", "aggregate_stats",
                           "profile_process"}


def set_config(**kwargs):
    """Sets what is recorded: profile_all, profile_symbolic, profile_imperative, profile_memory,
    profile_api (bools), filename (where dump() writes, default profile.json), aggregate_stats
    (keep statistics for dumps()), continuous_dump (each dump() writes everything so far)."""
    unknown = set(kwargs) - _ACCEPTED
    if unknown:
        raise MXNetError("profiler.set_config: unknown setting(s) %s; accepted: %s"
                         % (", ".join(sorted(unknown)), ", ".join(sorted(_ACCEPTED))))
    _check_process(kwargs.get("profile_process", "worker"))
    flags = {k: bool(kwargs.get(k, True)) for k in _FLAGS}
    if kwargs.get("profile_all"):
        flags = dict.fromkeys(_FLAGS, True)
    _core.set_config(filename=str(kwargs.get("filename", "profile.json")),
                     aggregate_stats=bool(kwargs.get("aggregate_stats", False)),
                     continuous_dump=bool(kwargs.get("continuous_dump", False)), **flags)


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """MXNet's older form: mode 'symbolic' or 'all'."""
    warnings.warn("profiler.profiler_set_config() is deprecated; use profiler.set_config()", DeprecationWarning)
    if mode not in ("symbolic", "all"):
        raise MXNetError("profiler_set_config: mode must be 'symbolic' or 'all', got %r" % (mode,))
    set_config(profile_all=mode == "all", profile_symbolic=True, filename=filename)


def _check_process(profile_process):
    if profile_process not in ("worker", "server"):
        raise MXNetError("profile_process must be 'worker' or 'server', got %r" % (profile_process,))
    if profile_process == "server":
        raise MXNetError("profiling the parameter servers (profile_process='server') is not supported by Braid; "
                         "profile the workers")


def set_state(state="stop", profile_process="worker"):
    """'run' starts recording, 'stop' stops it."""
    _check_process(profile_process)
    if state not in ("run", "stop"):
        raise MXNetError("profiler.set_state: state must be 'run' or 'stop', got %r" % (state,))
    _core.set_state(state == "run")


def profiler_set_state(state="stop"):
    warnings.warn("profiler.profiler_set_state() is deprecated; use profiler.set_state()", DeprecationWarning)
    set_state(state)


def dump(finished=True, profile_process="worker"):
    """Writes what was recorded to the configured file (Chrome trace JSON). finished=True ends
    the profile; with continuous_dump, finished=False keeps the events so the file grows."""
    _check_process(profile_process)
    _core.dump(bool(finished))


def dump_profile():
    warnings.warn("profiler.dump_profile() is deprecated; use profiler.dump()", DeprecationWarning)
    dump(True)


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """Statistics per name (count, total, min, max, average time; memory in use) as a table or
    JSON (format='json'); needs set_config(aggregate_stats=True). reset=True starts them over."""
    return _core.dumps(bool(reset), format, sort_by, bool(ascending))


def pause(profile_process="worker"):
    """Stops recording until resume(), without ending the profile."""
    _check_process(profile_process)
    _core.set_paused(True)


def resume(profile_process="worker"):
    _check_process(profile_process)
    _core.set_paused(False)


class Domain:
    """A named group for tasks, frames, counters and markers."""

    def __init__(self, name):
        self.name = str(name)

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)

    def __str__(self):
        return self.name


class _Span:
    """A stretch of time between start() and stop(), recorded at stop()."""
    _category = "event"

    def __init__(self, domain, name):
        self.domain = domain
        self.name = str(name)
        self._start = None

    def start(self):
        self._start = _core.now_us()

    def stop(self):
        if self._start is None:
            raise MXNetError("profiler %s '%s': stop() without start()" % (self._category, self.name))
        _core.record_span(str(self.domain) if self.domain is not None else "", self.name, self._category,
                          self._start, _core.now_us())
        self._start = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def __str__(self):
        return self.name


class Task(_Span):
    """A piece of work in a domain (start() ... stop())."""
    _category = "task"


class Frame(_Span):
    """One iteration of a repeated piece of work (start() ... stop())."""
    _category = "frame"


class Event(_Span):
    """A named stretch of time outside any domain (start() ... stop())."""
    _category = "event"

    def __init__(self, name):
        super().__init__(None, name)


class Counter:
    """An integer value over time: set_value, increment, decrement, +=, -=."""

    def __init__(self, domain, name, value=None):
        self.domain = domain
        self.name = str(name)
        self.value = 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        self.value = int(value)
        _core.record_counter(str(self.domain), self.name, self.value)

    def increment(self, delta=1):
        self.set_value(self.value + int(delta))

    def decrement(self, delta=1):
        self.set_value(self.value - int(delta))

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


class Marker:
    """An instant in time: mark(scope) with scope 'global', 'process', 'thread' or 'task'."""

    def __init__(self, domain, name):
        self.domain = domain
        self.name = str(name)

    def mark(self, scope="process"):
        _core.record_marker(str(self.domain), self.name, scope)


@contextlib.contextmanager
def scope(name="<unk>:", append_mode=False):
    """Names the code in the block for the profiler (a Task in domain 'scope')."""
    with Task(Domain("scope"), name):
        yield
