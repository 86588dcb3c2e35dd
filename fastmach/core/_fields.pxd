# Frozen-dataclass records made from compiled code (the Observation a Python bot is
# given, its public history's turns, the solver's Solution, a Play): the instance as
# ``object.__new__(cls)`` makes it (PyBaseObject_Type.tp_new, without a Python-level call)
# and each field stored as ``object.__setattr__(obj, name, value)`` stores it (the generic
# setter, past the frozen class's own __setattr__), in the order of the dataclass's
# fields: the instance the dataclass's __init__ would make from fields already of the
# right types. The generic setter keeps the fields in the instance's inline values (the
# class's shared keys) rather than in a dict of its own: cheaper to make, read and free.
from cpython.object cimport PyObject, PyTypeObject

cdef extern from "Python.h":
    int PyObject_GenericSetAttr(object o, object name, object value) except -1
    PyTypeObject PyBaseObject_Type


cdef inline object new_record(type cls):
    """``object.__new__(cls)`` (cls: a Python class without a __new__ of its own)."""
    cdef tuple no_args = ()
    return PyBaseObject_Type.tp_new(cls, <PyObject*>no_args, NULL)


cdef inline int put(object obj, str name, object value) except -1:
    """``object.__setattr__(obj, name, value)``."""
    return PyObject_GenericSetAttr(obj, name, value)
