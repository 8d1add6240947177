"""Buzz value semantics for generated code: the slow paths of every operator, per profile.

Generated Python inlines the common cases (two integers, two floats, a number with a
numeric constant; see ``codegen``) and falls back to these helpers for everything else:
wrap-around, mixed types, strings, nil, division by zero and type errors. Float results are
rounded to the profile's float format after every operation, as the reference computes in C
``float`` (binary32 through a one-slot float view, :func:`float32_slot`: the same conversion as C's cast). Helpers raise :class:`BuzzRaise`
with the reference's message; the VM adds the location from the Python traceback.

Profiles: ``buzz`` — 32-bit integers, IEEE single floats (the reference VM);
``bittybuzz`` — 16-bit integers, IEEE half floats.
"""

from __future__ import annotations

import math
import operator
import re
import struct

from swarmstack.buzz.errors import BuzzRaise
from swarmstack.buzz.values import Closure, HostClosure, Table, str_bytes, wrap_int

NAN = float("nan")         # a NaN without the sign bit
NEG_NAN = -NAN             # what x86 produces for invalid operations (0/0, inf-inf, sqrt(-1))


def fmt_float(x: float) -> str:
    """C's ``printf("%f")``: six decimals; NaN keeps its sign ("-nan"), as glibc prints it."""
    if x != x:
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return "%f" % x


MISSING = type("Missing", (), {"__repr__": lambda self: "<missing argument>"})()


TYPE_NAMES = {type(None): "nil", int: "integer", float: "float", str: "string", Table: "table",
              Closure: "closure", HostClosure: "closure"}
INF = float("inf")


def type_name(v) -> str:
    return TYPE_NAMES.get(v.__class__, "userdata")


def float32_slot(n: int = 1):
    """An ``n``-slot binary32 buffer: ``s[0] = x; y = s[0]`` is C's double -> float conversion
    (round to nearest even, +-inf past the range, a NaN's sign and payload kept). A
    memoryview's item store converts with a plain C cast, a third cheaper than an
    ``array('f')``'s (which parses an argument format on every store)."""
    return memoryview(bytearray(4 * n)).cast("f")


def _rounder(fmt: str):
    if fmt == "<f":
        # C's double -> float conversion through a one-slot binary32 buffer: the same rounding
        # as packing with struct (round to nearest even, +-inf past the range, NaN sign and
        # payload kept), about twice as fast
        slot = float32_slot()

        def fround32(x: float) -> float:
            slot[0] = x
            return slot[0]
        return fround32
    pack, unpack = struct.Struct(fmt).pack, struct.Struct(fmt).unpack

    def fround(x: float) -> float:
        try:
            return unpack(pack(x))[0]
        except OverflowError:
            return math.copysign(INF, x)
    return fround


# ---------------------------------------------------------------- single-precision libm
# The reference computes the math library and ``^`` with C's single-precision functions
# (``sinf``, ``powf`` ...), whose results differ in the last bit from the double-precision
# function rounded to single precision for a good share of arguments (glibc's ``atan2f``
# for about one argument pair in six). They are called through ctypes; without a C math
# library (``LIBM_FLOAT`` is False) the double-precision function rounded to single
# precision stands in. ``sqrt`` needs no call: an IEEE square root rounded twice (double,
# then single) is the correctly rounded single-precision root, which ``sqrtf`` returns.
LIBM_NAMES = ("sin", "cos", "tan", "asin", "acos", "exp", "log", "log2", "log10")


def _load_libm() -> dict | None:
    import ctypes
    import ctypes.util

    lib = None
    for name in ("libm.so.6", "find", None):
        try:
            if name == "find":
                name = ctypes.util.find_library("m")
                if name is None:
                    continue
            lib = ctypes.CDLL(name)
            lib.powf  # noqa: B018 - the library must have the float functions
            break
        except (OSError, AttributeError, TypeError):
            lib = None
    if lib is None:
        return None
    out = {}
    f32 = ctypes.c_float
    try:
        for name in LIBM_NAMES + ("atan2", "pow"):
            fn = out[name] = getattr(lib, name + "f")
            fn.restype, fn.argtypes = f32, [f32] * (2 if name in ("atan2", "pow") else 1)
    except AttributeError:
        return None
    # a smoke test of the calling convention
    if abs(out["sin"](1.0) - 0.841471) > 1e-6 or out["pow"](2.0, 10.0) != 1024.0 \
            or out["atan2"](1.0, 0.0) != out["asin"](1.0):
        return None
    return out


def _fallback_libm() -> dict:
    """The double-precision functions rounded to single precision, with C's results where
    Python raises (NaN for an argument outside the domain, +-inf on overflow)."""
    f32 = _rounder("<f")

    def unary(fn, domain_nan: float):
        def f(x):
            x = float(x)
            if x != x:
                return x
            try:
                return f32(fn(x))
            except (ValueError, ZeroDivisionError):
                if fn in (math.log, math.log2, math.log10) and x == 0:
                    return -INF
                return domain_nan
            except OverflowError:
                return INF
        return f

    def atan2(y, x):
        y, x = float(y), float(x)
        if y != y or x != x:
            return y if y != y else x
        return f32(math.atan2(y, x))

    def pow_(x, y):
        x, y = float(x), float(y)
        try:
            r = math.pow(x, y)
            if r != r:  # keep a NaN operand's sign, as C does
                return x if x != x else (y if y != y else r)
            return f32(r)
        except OverflowError:
            return INF if x > 0 or float(y).is_integer() and int(y) % 2 == 0 else -INF
        except (ValueError, ZeroDivisionError):
            if x == 0 and y < 0:
                return INF
            return NEG_NAN

    out = {name: unary(getattr(math, name), NAN if name in ("log10", "asin", "acos") else NEG_NAN)
           for name in LIBM_NAMES}
    out["atan2"], out["pow"] = atan2, pow_
    return out


_LIBM = _load_libm()
LIBM_FLOAT = _LIBM is not None
# name -> f(x) (f(y, x) for atan2, f(x, y) for pow) taking and returning binary32 values
LIBM: dict = _LIBM if _LIBM is not None else _fallback_libm()


def sqrt32(x, _slot=float32_slot(), _sqrt=math.sqrt):
    if x >= 0.0:
        _slot[0] = _sqrt(x)
        return _slot[0]
    return x if x != x else NEG_NAN  # a NaN as it is, a negative number the x86 NaN


LIBM["sqrt"] = sqrt32


# ---------------------------------------------------------------- strtof
# C's strtof (the reference converts float literals and ``string.tofloat`` with it): leading
# white space, a sign, then the longest prefix that reads as a decimal or hexadecimal float,
# "inf"/"infinity" or "nan"/"nan(...)"; correctly rounded to single precision.
_STRTOF_RE = re.compile(
    r"[ \t\n\v\f\r]*[+-]?(?:"
    r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?"
    r"|[nN][aA][nN](?:\([0-9A-Za-z_]*\))?)")


def _strtof_python(data: bytes) -> tuple[float, int, bool]:
    m = _STRTOF_RE.match(data.decode("latin-1"))
    if m is None:
        return 0.0, 0, False
    text = m.group(0).strip(" \t\n\v\f\r")
    body = text.lstrip("+-")
    neg = text.startswith("-")
    low = body.lower()
    if low.startswith("0x"):
        if "p" not in low:
            low += "p0"
        v = float.fromhex(low)
    elif low.startswith("nan"):
        v = NAN
    else:
        v = float(low[:3] if low.startswith("inf") else low)
    r = _rounder("<f")(v)
    erange = (r in (INF, -INF) and v not in (INF, -INF)) or (r == 0.0 and v != 0.0) or (
        0.0 < abs(r) < 1.1754943508222875e-38 and r != v)  # overflow, underflow
    return (-r if neg else r), m.end(), erange


def _load_strtof():
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.strtof
    except (OSError, AttributeError, TypeError):
        return None
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    end = ctypes.c_void_p()
    pend = ctypes.byref(end)
    addressof, set_errno, get_errno = ctypes.addressof, ctypes.set_errno, ctypes.get_errno
    buffer = ctypes.create_string_buffer

    def strtof_c(data: bytes) -> tuple[float, int, bool]:
        buf = buffer(data)
        set_errno(0)
        v = fn(buf, pend)
        return v, (end.value or 0) - addressof(buf), get_errno() != 0

    try:
        if strtof_c(b" 0x1p-2z") != (0.25, 7, False) or strtof_c(b"1.5") != (1.5, 3, False):
            return None
    except Exception:  # noqa: BLE001 - an unusable C library: use the Python version
        return None
    return strtof_c


_STRTOF = _load_strtof()


def strtof(s: str | bytes) -> tuple[float, int, bool]:
    """C's ``strtof`` of a string: (value, bytes read, ERANGE set). Bytes read is 0 when no
    number was found. Stops at a NUL, as C does."""
    data = s if s.__class__ is bytes else str_bytes(s)
    data = data.split(b"\0", 1)[0]
    if _STRTOF is not None:
        return _STRTOF(data)
    return _strtof_python(data)


class Profile:
    """Integer width and float format of a VM flavour, with its operator helpers."""

    def __init__(self, name: str):
        if name not in ("buzz", "bittybuzz"):
            raise ValueError(f"unknown Buzz profile {name!r} (choose 'buzz' or 'bittybuzz')")
        self.name = name
        self.bits = 32 if name == "buzz" else 16
        self.imin = -(1 << (self.bits - 1))
        self.imax = (1 << (self.bits - 1)) - 1
        self.ffmt = "<f" if name == "buzz" else "<e"
        self.ifmt = "<i" if name == "buzz" else "<h"
        self.fround = _rounder(self.ffmt)

    def wrap(self, v: int) -> int:
        return wrap_int(v, self.bits)


def make_helpers(profile: Profile) -> dict:
    """The operator helpers bound to one profile (a dict merged into generated code's globals)."""
    bits = profile.bits
    mask, half = (1 << bits) - 1, 1 << (bits - 1)
    fround = profile.fround
    fpack, ipack = struct.Struct(profile.ffmt), struct.Struct(profile.ifmt)

    def wrap(v: int) -> int:
        v &= mask
        return v - (1 << bits) if v & half else v

    def num_err(a, b):
        raise BuzzRaise(f"type mismatch: expected numeric operands, got {type_name(a)} and {type_name(b)}")

    def num_pair(a, b):
        """Both operands as floats the way C promotes them (int -> float first)."""
        ca, cb = a.__class__, b.__class__
        if (ca is int or ca is float) and (cb is int or cb is float):
            return (fround(a) if ca is int else a), (fround(b) if cb is int else b)
        num_err(a, b)

    # ``+ - *``: two ints wrap, two floats round, anything else is promoted to float. Each
    # writes its operator out: a NaN result's sign depends on how Python computes it (the
    # interpreter's float fast path or the float type's method), as in generated code
    def add(a, b):
        ca = a.__class__
        if ca is b.__class__:
            if ca is float:
                return fround(a + b)
            if ca is int:
                return wrap(a + b)
        x, y = num_pair(a, b)
        return fround(x + y)

    def sub(a, b):
        ca = a.__class__
        if ca is b.__class__:
            if ca is float:
                return fround(a - b)
            if ca is int:
                return wrap(a - b)
        x, y = num_pair(a, b)
        return fround(x - y)

    def mul(a, b):
        ca = a.__class__
        if ca is b.__class__:
            if ca is float:
                return fround(a * b)
            if ca is int:
                return wrap(a * b)
        x, y = num_pair(a, b)
        return fround(x * y)

    def fdiv(x, y):
        try:
            return x / y
        except ZeroDivisionError:
            if x != x:
                return x
            if x == 0:
                return NEG_NAN
            return math.copysign(INF, x) * math.copysign(1.0, y)

    def div(a, b):
        ca, cb = a.__class__, b.__class__
        if ca is int and cb is int:
            if b == 0:
                raise BuzzRaise("division by zero")
            q = abs(a) // abs(b)
            return wrap(q if (a < 0) == (b < 0) else -q)
        if ca is float and cb is int and b:  # a sum divided by a count: the common mixed case
            return fround(a / fround(b))
        x, y = num_pair(a, b)
        return fround(fdiv(x, y))

    def as_float_bits(i: int) -> float:  # reinterpret an integer's bits as a float (reference quirk)
        return fround(fpack.unpack(ipack.pack(wrap(i)))[0])

    def as_int_bits(f: float) -> int:
        return ipack.unpack(fpack.pack(f))[0]

    def cfmod(x, y):
        try:
            return math.fmod(x, y)
        except ValueError:
            return NEG_NAN

    def mod(a, b):
        ca, cb = a.__class__, b.__class__
        if ca is int and cb is int:
            if b == 0:
                raise BuzzRaise("division by zero")
            r = abs(a) % abs(b)
            r = -r if a < 0 else r  # C remainder keeps the dividend's sign
            if r < 0:
                r += b
            return wrap(r)
        if ca is float and cb is float:
            r = fround(cfmod(a, b))
            return fround(r + b) if r < 0 else r
        if ca is float and cb is int:
            # the reference adds the divisor's bits read as a float (a quirk kept on purpose)
            r = fround(cfmod(a, fround(b)))
            return fround(r + as_float_bits(b)) if r < 0 else r
        if ca is int and cb is float:
            # ... and here the divisor's float bits read as an integer
            r = fround(cfmod(fround(a), b))
            return fround(r + as_int_bits(b)) if r < 0 else r
        num_err(a, b)

    powf = LIBM["pow"]
    single = profile.name == "buzz"

    def pow_(a, b):
        """``a ^ b``: C's ``powf`` of the operands as floats (an integer converted first)."""
        ca, cb = a.__class__, b.__class__
        if (ca is int or ca is float) and (cb is int or cb is float):
            r = powf(a if ca is float else fround(float(a)), b if cb is float else fround(float(b)))
            return r if single else fround(r)
        num_err(a, b)

    def powk(a, y: float, b):
        """``a ^ b`` for a numeric constant ``b`` (``y`` is it as the profile's float)."""
        ca = a.__class__
        if ca is float:
            return powf(a, y) if single else fround(powf(a, y))
        return pow_(a, b)

    def unm(a):
        if a.__class__ is int:
            return wrap(-a)
        if a.__class__ is float:
            return -a
        raise BuzzRaise(f"type mismatch: expected numeric operand, got {type_name(a)}")

    def int_args(a, b):
        if a.__class__ is not int:
            raise BuzzRaise(f"type mismatch: expected integer, got {type_name(a)}")
        if b.__class__ is not int:
            raise BuzzRaise(f"type mismatch: expected integer, got {type_name(b)}")

    def bitwise(op):
        def f(a, b):
            int_args(a, b)
            return wrap(op(a, b))
        return f

    def bnot(a):
        int_args(a, 0)
        return wrap(~a)

    def cmp(a, b) -> int:
        """Three-way comparison exactly as the reference orders values."""
        if a is None:
            return 0 if b is None else -1
        if b is None:
            return 1
        ca, cb = a.__class__, b.__class__
        if (ca is int or ca is float) and (cb is int or cb is float):
            if ca is not cb:  # C compares int with float in float
                a = fround(a) if ca is int else a
                b = fround(b) if cb is int else b
            return -1 if a < b else (1 if a > b else 0)
        if ca is str or cb is str:
            if ca is str and cb is str:
                sa, sb = a, b
            elif ca is str and (cb is int or cb is float):
                sa, sb = a, (str(b) if cb is int else fmt_float(b))
            elif cb is str and (ca is int or ca is float):
                sa, sb = (str(a) if ca is int else fmt_float(a)), b
            else:
                sa = sb = None
            if sa is not None:
                if not (sa.isascii() and sb.isascii()):  # strings compare as bytes (strcmp)
                    sa, sb = str_bytes(sa), str_bytes(sb)
                return -1 if sa < sb else (1 if sa > sb else 0)
        if ca is Table or cb is Table:
            if ca is Table and cb is Table:
                return 0 if a is b else (-1 if id(a) < id(b) else 1)
            return 1 if ca is Table else -1
        if a is b:
            return 0
        raise BuzzRaise(f"type mismatch: can't compare {type_name(a)} with {type_name(b)}")

    def eqb(a, b) -> bool:
        if (a.__class__ is Closure or a.__class__ is HostClosure or
                b.__class__ is Closure or b.__class__ is HostClosure):
            return a is b or (a.__class__ is b.__class__ and a.fn is b.fn and
                              a.self_table is b.self_table and
                              getattr(a, "upvalues", None) == getattr(b, "upvalues", None))
        return cmp(a, b) == 0

    def tget(t, k):
        if t.__class__ is not Table:
            raise BuzzRaise(f"type mismatch: expected table, got {type_name(t)}")
        ck = k.__class__
        if ck is not str and ck is not int and ck is not float:
            raise BuzzRaise(f"type mismatch: a {type_name(k)} value can't be used as table key")
        return t.get(k)

    slot_names: list[str] = []

    def capture(loc: dict, n: int) -> tuple:
        """A lambda's captured slots ``L0 .. L<n-1>`` from the creating function's
        ``locals()`` (nil for a missing argument or a slot not bound)."""
        while len(slot_names) < n:
            slot_names.append(f"L{len(slot_names)}")
        get = loc.get
        return tuple(None if v is MISSING else v for v in map(get, slot_names[:n]))

    def missing():
        raise BuzzRaise("wrong number of local variables: not enough local symbols in stack "
                        "(maybe you called a function with an insufficient number of parameters?)")

    return {
        "_MISSING": MISSING, "_missing": missing, "_capture": capture, "_wrap": wrap,
        "_fround": fround, "_add": add, "_sub": sub, "_mul": mul, "_div": div, "_mod": mod, "_pow": pow_, "_powk": powk,
        "_powf": powf, "_unm": unm, "_band": bitwise(operator.and_), "_bor": bitwise(operator.or_),
        "_bnot": bnot, "_lshift": bitwise(lambda a, b: a << (b & 31)),  # shift counts modulo 32,
        "_rshift": bitwise(lambda a, b: a >> (b & 31)),  # as x86 takes them
        "_cmp": cmp, "_eqb": eqb, "_neqb": lambda a, b: not eqb(a, b),
        "_ltb": lambda a, b: cmp(a, b) < 0, "_lteb": lambda a, b: cmp(a, b) <= 0,
        "_gtb": lambda a, b: cmp(a, b) > 0, "_gteb": lambda a, b: cmp(a, b) >= 0, "_tget": tget,
        "_PLAINV": frozenset((int, float, str, Table)), "_INF": INF, "_NAN": math.nan,
        "_Table": Table, "_Closure": Closure, "_HostClosure": HostClosure,
        # the buzz profile's float rounding as a statement pair, ``_FA[0] = x; y = _FA[0]``
        "_FA": float32_slot(),
    }
