"""Per-thread ``current`` objects set at class level (MXNet's ``NameManager.current = ...``): each
thread sees what it set, or a fresh default made on first use."""
import threading


class ThreadLocalCurrent(type):
    """Metaclass giving a class a thread-local ``current`` class attribute; the class's
    ``_default()`` makes a thread's first value."""

    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        if not hasattr(cls, "_local"):  # subclasses share their base's
            cls._local = threading.local()

    @property
    def current(cls):
        local = cls._local
        if not hasattr(local, "value"):
            local.value = cls._default()
        return local.value

    @current.setter
    def current(cls, value):
        cls._local.value = value
