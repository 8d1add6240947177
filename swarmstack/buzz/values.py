"""How Buzz values are represented in Python (shared by the VM, the stdlib and the swarm layer).

| Buzz       | Python                                                                  |
|------------|-------------------------------------------------------------------------|
| nil        | ``None``                                                                |
| integer    | ``int`` (always kept inside the profile's integer width, see ``wrap_int``) |
| float      | ``float``                                                               |
| string     | ``str`` (bytes that are not UTF-8 as lone surrogates, see below)        |
| table      | ``dict`` (named :data:`Table`; assigning nil removes the key)           |
| closure    | :class:`Closure` (Buzz code) or :class:`HostClosure` (a Python callable) |

Strings are byte strings, as in the reference (C strings). A ``str`` stands for the bytes
``s.encode("utf-8", "surrogateescape")``: valid UTF-8 reads as the characters it encodes and
every other byte as a lone surrogate U+DC80..U+DCFF (Python's ``surrogateescape``). Each byte
string has exactly one such ``str`` (:func:`canonical`), so equal byte strings are equal
``str`` objects; ASCII text is the common case and costs nothing (:func:`str_bytes`,
:func:`bytes_str`, :func:`display`).

Host closures are called as ``fn(vm, *args)`` and return a Buzz value (``None`` for nil; a
dict they return is the table itself); while one runs, ``vm.self`` is the table it was stored
into (``s.join()`` sees ``s``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


def wrap_int(value: int, bits: int = 32) -> int:
    """Wrap ``value`` to a signed two's-complement integer of ``bits`` bits."""
    mask = (1 << bits) - 1
    value &= mask
    return value - (1 << bits) if value >> (bits - 1) else value


def str_bytes(s: str) -> bytes:
    """The bytes a Buzz string stands for."""
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate a host put in (not one of a byte)
        return s.encode("utf-8", "surrogatepass")


def bytes_str(b: bytes) -> str:
    """The Buzz string of some bytes (valid UTF-8 as text, any other byte as a surrogate)."""
    return b.decode("utf-8", "surrogateescape")


def canonical(s: str) -> str:
    """``s`` in its one form: the parts of a multi-byte character cut apart and joined again
    are that character (``"\\udcc3\\udca9"`` -> ``"é"``)."""
    return s if s.isascii() else bytes_str(str_bytes(s))


def byte_len(s: str) -> int:
    """Length in bytes (what the reference's ``strlen`` gives)."""
    return len(s) if s.isascii() else len(str_bytes(s))


def display(s: str) -> str:
    """``s`` printable on any terminal: a byte that is not UTF-8 shown as ``\\xNN``."""
    return s if s.isascii() else str_bytes(s).decode("utf-8", "backslashreplace")


# A Buzz table is a plain dict: CPython's interpreter specialises item access, ``get`` and
# creation for exact dicts only, and tables are the hottest objects of swarm scripts (a dict
# subclass made every table access and every neighbour table some 30 % slower). Keys are
# numbers or strings; values any Buzz value except nil.
Table = dict


@dataclass(eq=False, slots=True, weakref_slot=True)
class HostClosure:
    """A closure implemented in Python: ``fn(vm, *args) -> value``."""

    fn: Callable[..., Any]
    name: str = ""
    # `self`: the table this closure was stored into. The VM binds it when a closure is put
    # in a table (as the reference does, at store time); during a call it is ``vm.self``.
    self_table: Any = None
    # optional fast entry for calls from Buzz code with exactly ``arity`` arguments:
    # ``direct(closure, *args)`` with no ``vm`` and no ``vm.self`` (for functions that need
    # neither, e.g. the math library); it must behave exactly as ``fn`` would
    direct: Any = field(default=None, repr=False)
    arity: int = field(default=-1, repr=False)


@dataclass(eq=False, slots=True, weakref_slot=True)
class Closure:
    """A closure compiled from Buzz source.

    ``code`` is the function's bytecode record (:class:`swarmstack.buzz.bytecode.Function`);
    ``upvalues`` is the closure's activation record as a tuple: slot 0 is ``self`` (the table
    the closure was last stored into, else nil), then — for a lambda made inside a function —
    the values of the enclosing locals when the lambda was created. ``self_table`` mirrors
    slot 0. ``fn`` is the Python function the loader generated, called as
    ``fn(closure, *args)`` with exactly ``nparams`` arguments; use ``vm.call(closure, ...)``
    rather than calling it directly (that handles arity, errors and host closures).
    """

    code: Any
    name: str = ""
    upvalues: tuple = field(default_factory=tuple)
    self_table: Any = None
    fn: Any = None
    nparams: int = 0
    # the VM's own helpers for the generated code (its globals, table and closure makers …):
    # the generated functions are shared by every VM running the same program
    env: Any = field(default=None, repr=False)
    gget: Any = field(default=None, repr=False)  # ``get`` of the VM's globals (the hottest helper)
