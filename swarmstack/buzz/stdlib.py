"""The Buzz standard library, as the reference VM registers it.

Globals: ``id``, ``log``, ``type``, ``int``, ``float``, ``clone``, ``size``, ``foreach``,
``map``, ``reduce``, ``filter``, ``isnil`` … ``isuserdata``; tables ``math`` (with
``math.rng``), ``string`` and — only when the host passes ``io_enabled=True`` — ``io``.

Behaviour follows the reference C code, quirks included where a script could see them
(``math.min`` with nil, ``math.rng.gaussian``'s second argument, ``string.sub`` bounds).
``math.rng`` is the reference's Mersenne Twister; each VM seeds it from the host's seed and
its robot id, so runs are reproducible (the reference seeds from the clock).

Tables are iterated (``foreach``/``map``/``reduce``/``filter``) in the reference's order:
its tables are 10-bucket hash tables (integers hash to ``k % 10``, strings to their string
id ``% 10``) iterated bucket by bucket, each bucket in insertion order.
"""

from __future__ import annotations

import functools
import math
import re

from swarmstack.buzz.errors import BuzzRaise
from swarmstack.buzz.runtime import LIBM, NEG_NAN, Profile, fmt_float, strtof, type_name
from swarmstack.buzz.values import Closure, HostClosure, Table, byte_len, bytes_str, canonical, str_bytes

f32 = Profile("buzz").fround  # C's double -> float conversion (+-inf past the range)


def fmt_value(vm, v) -> str:
    """How ``log`` and ``io.fwrite`` print one value."""
    c = v.__class__
    if c is str:
        return v
    if c is int:
        return str(v)
    if c is float:
        return fmt_float(v)
    if v is None:
        return "[nil]"
    if c is Table:
        return f"[table with {len(v)} elems]"
    if c is Closure:
        return f"[n-closure @{v.code.addr}]"
    if c is HostClosure:
        return f"[c-closure @{vm.host_id(v)}]"
    return f"[userdata @{id(v):#x}]"


def _lnum(args, n: int) -> None:
    if len(args) != n:
        raise BuzzRaise(f"wrong number of local variables: expected {n} parameters, got {len(args)}")


def _want(v, *types) -> None:
    if v.__class__ not in types:
        want = {int: "integer", float: "float", str: "string", Table: "table", Closure: "closure"}[types[0]]
        raise BuzzRaise(f"type mismatch: expected {want}, got {type_name(v)}")


def _want_closure(v) -> None:
    if v.__class__ is not Closure and v.__class__ is not HostClosure:
        raise BuzzRaise(f"type mismatch: expected closure, got {type_name(v)}")


def bucket(vm, k) -> int:
    c = k.__class__
    if c is int:
        r = abs(k) % 10
        return ((-r if k < 0 else r) & 0xFFFFFFFF) % 10
    if c is float:
        try:
            return (int(k) & 0xFFFFFFFF) % 10
        except (OverflowError, ValueError):
            return 0
    return vm.string_id(k) % 10


def ordered_items(vm, t: Table) -> list:
    """The table's items in the reference VM's iteration order."""
    return sorted(t.items(), key=lambda kv: bucket(vm, kv[0]))


# --------------------------------------------------------------------- Mersenne Twister
class MT19937:
    """The reference VM's random generator (32-bit Mersenne Twister)."""

    def __init__(self, seed: int):
        self.state: list[int] = []
        self.idx = 625
        self.pending: int | None = seed & 0xFFFFFFFF  # seeded lazily: most scripts never draw

    def seed(self, seed: int) -> None:
        self.pending = None
        s = self.state = [0] * 624
        s[0] = seed & 0xFFFFFFFF
        for i in range(1, 624):
            # the reference keeps the state in *signed* 32-bit words, so this shift is
            # arithmetic: reproduce it to get the reference's sequences
            p = s[i - 1] - (1 << 32) if s[i - 1] & 0x80000000 else s[i - 1]
            s[i] = (1812433253 * ((p ^ (p >> 30)) & 0xFFFFFFFF) + i) & 0xFFFFFFFF
        self.idx = 624

    def next32(self) -> int:
        if self.pending is not None:
            self.seed(self.pending)
        s = self.state
        if self.idx >= 624:
            for kk in range(624):
                y = (s[kk] & 0x80000000) | (s[(kk + 1) % 624] & 0x7FFFFFFF)
                s[kk] = s[(kk + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.idx = 0
        y = s[self.idx]
        self.idx += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y


# Names the reference VM registers in its string table at start-up, in order, after the
# script's own strings (neighbours, id, basics, stigmergy, swarm, math, io, string, log).
# String ids decide table iteration order, so we assign ids the same way.
REFERENCE_STARTUP_STRINGS = (
    "get filter kin nonkin foreach map reduce count broadcast listen ignore neighbors id "
    "type int float clone size foreach map reduce filter isnil isint isfloat isstring istable "
    "isclosure isuserdata stigmergy create swarm create union intersection difference id "
    "math abs floor ceil round log log2 log10 exp sqrt sin cos tan asin acos atan min max pi "
    "rng setseed uniform gaussian exponential fopen fclose fsize fforeach fwrite io io errno "
    "error_message"
).split() + ["No error"] + "length sub concat tostring toint tofloat string log".split()

# The reference numbers C closures by registration order; `log` shows the number
# ("[c-closure @N]"). Host closures named like these get the same numbers.
REFERENCE_CLOSURE_IDS = {name: i for i, name in enumerate(
    [f"neighbors.{n}" for n in "get filter kin nonkin foreach map reduce count broadcast listen ignore".split()]
    + "type int float clone size foreach map reduce filter isnil isint isfloat isstring istable isclosure isuserdata".split()
    + ["stigmergy.create"]
    + [f"swarm.{n}" for n in "create union intersection difference id".split()]
    + [f"math.{n}" for n in "abs floor ceil round log log2 log10 exp sqrt sin cos tan asin acos atan min max".split()]
    + [f"math.rng.{n}" for n in "setseed uniform gaussian exponential".split()]
    + [f"io.{n}" for n in "fopen fclose fsize fforeach fwrite".split()]
    + [f"string.{n}" for n in "length sub concat tostring toint tofloat".split()]
    + ["log"])}

_UMAX = 0xFFFFFFFF
_FUMAX = f32(float(_UMAX))


def _num_arg(v, which: str = "") -> float:
    if v.__class__ is float:
        return v
    if v.__class__ is int:
        return f32(float(v))
    if which:
        raise BuzzRaise(f"type mismatch: expected float or integer for argument {which}, got {type_name(v)}")
    raise BuzzRaise(f"type mismatch: expected float or integer, got {type_name(v)}")


@functools.lru_cache(maxsize=None)
def unary_math(profile: str, name: str):
    """The host function of a one-argument ``math`` function (``math.sin`` ...) for a profile:
    ``m(vm, x)``, with ``m.direct(closure, x)`` the fast entry in the buzz profile. It computes
    C's single-precision function, as the reference does (``LIBM[name]``). Shared by every VM
    of the profile (it needs none of them), so generated code can recognise it."""
    single = profile == "buzz"
    fround = Profile(profile).fround
    cfn = LIBM[name]

    def m(vm_, *a):
        if len(a) != 1:
            _lnum(a, 1)
        x = a[0]
        if x.__class__ is not float:
            x = _num_arg(x)
        return cfn(x) if single else fround(cfn(x))
    if single:
        def direct(_c, x):
            if x.__class__ is float:
                return cfn(x)
            return m(None, x)
        m.direct = direct
    return m


# ``math`` functions that generated code of the buzz profile computes inline when the callee
# is the standard one (each takes any float and returns a binary32 value)
INLINE_MATH = ("sin", "cos", "sqrt")


def inline_math_helpers(profile: str) -> dict:
    """Names generated code uses to inline ``INLINE_MATH`` calls (empty for other profiles)."""
    if profile != "buzz":
        return {}
    out = {}
    for name in INLINE_MATH:
        out[f"_MD_{name}"] = unary_math(profile, name).direct
        out[f"_libm_{name}"] = LIBM[name]
    return out


def install(vm) -> None:
    """Install the standard library into ``vm.globals``."""
    G = vm.globals
    for name in REFERENCE_STARTUP_STRINGS:
        vm.string_id(name)
    sid = vm.string_id
    wrap = vm._prof.wrap
    fround = vm._prof.fround
    cmp = vm._helpers["_cmp"]
    tput = vm._env.tput
    call = vm.call_value
    mt = MT19937(((vm.seed & 0xFFFFFFFF) ^ ((vm.robot_id * 0x9E3779B1) & 0xFFFFFFFF)))
    vm.rng = mt

    def host(name, fn) -> HostClosure:
        hc = HostClosure(fn, name)
        if getattr(fn, "direct", None) is not None:
            hc.direct, hc.arity = fn.direct, 1
        vm.host_id(hc)
        return hc

    def table_of(name: str, fns: dict) -> Table:
        t = Table()
        for k, fn in fns.items():
            tput(t, k, host(f"{name}.{k}", fn))
        return t

    # ---------------------------------------------------------------- basics
    def b_type(vm_, *a):
        _lnum(a, 1)
        r = type_name(a[0])
        sid(r)
        return r

    def to_int_c(x: float) -> int:
        return wrap(int(x)) if math.isfinite(x) else wrap(-(2 ** 31))

    def conversion(to_int: bool):
        """``int(x)`` / ``float(x)`` of a number."""
        def convert(vm_, *a):
            _lnum(a, 1)
            v = a[0]
            if v.__class__ is int:
                return v if to_int else fround(float(v))
            if v.__class__ is float:
                return to_int_c(v) if to_int else v
            raise BuzzRaise(f"type mismatch: expected int or float, got {type_name(v)}")
        return convert

    def clone_value(v, memo):
        c = v.__class__
        if c is Table:
            if id(v) in memo:
                return memo[id(v)]
            t = memo[id(v)] = Table()
            for k, x in v.items():
                t[clone_value(k, memo)] = clone_value(x, memo)
            return t
        if c is Closure:
            return Closure(v.code, v.name, tuple(v.upvalues), v.self_table, v.fn, v.nparams, v.env, v.gget)
        if c is HostClosure:
            return HostClosure(v.fn, v.name, v.self_table, v.direct, v.arity)
        return v

    def b_clone(vm_, *a):
        _lnum(a, 1)
        return clone_value(a[0], {})

    def b_size(vm_, *a):
        _lnum(a, 1)
        _want(a[0], Table)
        return len(a[0])

    def table_and_closure(a, n):
        """Checks shared by foreach/map/reduce/filter: (table, closure[, …]) arguments."""
        _lnum(a, n)
        _want(a[0], Table)
        _want_closure(a[1])
        return a[0], a[1]

    def b_foreach(vm_, *a):
        t, f = table_and_closure(a, 2)
        for k, v in ordered_items(vm, t):
            call(f, k, v)

    def b_map(vm_, *a):
        t, f = table_and_closure(a, 2)
        out = Table()
        for k, v in ordered_items(vm, t):
            r = call(f, k, v)
            if r is not None:
                tput(out, k, r)
        return out

    def b_reduce(vm_, *a):
        t, f = table_and_closure(a, 3)
        acc = a[2]
        for k, v in ordered_items(vm, t):
            acc = call(f, k, v, acc)
        return acc

    def b_filter(vm_, *a):
        t, f = table_and_closure(a, 2)
        out = Table()
        for k, v in ordered_items(vm, t):
            r = call(f, k, v)
            if not (r is None or (r.__class__ is int and r == 0)):
                tput(out, k, v)
        return out

    def b_log(vm_, *a):
        vm.log("".join(fmt_value(vm, v) for v in a))

    for name, fn in (("type", b_type), ("int", conversion(True)), ("float", conversion(False)),
                     ("clone", b_clone), ("size", b_size), ("foreach", b_foreach), ("map", b_map),
                     ("reduce", b_reduce), ("filter", b_filter)):
        G[name] = host(name, fn)
    for tname, buzz_type in (("nil", "nil"), ("int", "integer"), ("float", "float"), ("string", "string"),
                             ("table", "table"), ("closure", "closure"), ("userdata", "userdata")):
        def is_fn(vm_, *a, _t=buzz_type):
            _lnum(a, 1)
            return 1 if type_name(a[0]) == _t else 0
        G["is" + tname] = host("is" + tname, is_fn)

    # ---------------------------------------------------------------- math
    def m_abs(vm_, *a):
        _lnum(a, 1)
        v = a[0]
        if v.__class__ is float:
            return abs(v)
        if v.__class__ is int:
            return wrap(abs(v))
        _num_arg(v)

    def rounding(fn):
        def m(vm_, *a):
            _lnum(a, 1)
            v = a[0]
            if v.__class__ is int:
                return v
            if v.__class__ is float:
                return to_int_c(fn(v)) if math.isfinite(v) else to_int_c(v)
            _num_arg(v)
        return m

    def c_round(x: float) -> float:
        return math.copysign(math.floor(abs(x) + 0.5), x)

    atan2f, logf = LIBM["atan2"], LIBM["log"]

    def m_atan(vm_, *a):
        _lnum(a, 2)
        return fround(atan2f(_num_arg(a[0], "1"), _num_arg(a[1], "2")))

    def m_min(vm_, *a):
        _lnum(a, 2)
        x, y = a
        c = cmp(x, y)
        return x if (y is None or (c != 1 and x is not None)) else y

    def m_max(vm_, *a):
        _lnum(a, 2)
        x, y = a
        return x if cmp(x, y) >= 0 else y

    def r_setseed(vm_, *a):
        _lnum(a, 1)
        _want(a[0], int)
        mt.seed(a[0] & 0xFFFFFFFF)

    def r_uniform(vm_, *a):
        u64 = 0xFFFFFFFFFFFFFFFF
        if len(a) == 0:
            return wrap(mt.next32())
        if len(a) == 1:
            mx = a[0]
            if mx.__class__ is int:
                return wrap(((mt.next32() * (mx & u64)) & u64) // _UMAX)
            if mx.__class__ is float:
                return fround(f32(f32(f32(float(mt.next32())) * mx) / _FUMAX))
            _num_arg(mx)
        if len(a) == 2:
            lo, hi = a
            if lo.__class__ is int and hi.__class__ is int:
                span = (hi - lo) & 0xFFFFFFFF
                span = span - (1 << 32) if span & 0x80000000 else span
                return wrap((((mt.next32() * (span & u64)) & u64) // _UMAX + (lo & u64)) & u64)
            if lo.__class__ in (int, float) and hi.__class__ in (int, float):
                flo, fhi = _num_arg(lo), _num_arg(hi)
                # C: (uint64_t)r * (max - min) / INT_MAX + min, every step in float
                return fround(f32(f32(f32(f32(float(mt.next32())) * f32(fhi - flo)) / _FUMAX) + flo))
            raise BuzzRaise(f"type mismatch: expected float or integer for arguments, got "
                            f"{type_name(lo)} for argument 1 and {type_name(hi)} for argument 2)")
        raise BuzzRaise(f"wrong number of local variables: expected 0, 1, or 2 parameters, got {len(a)}")

    def r_gaussian(vm_, *a):
        stddev, mean = 1.0, 0.0
        if len(a) > 0:
            stddev = _num_arg(a[0], "1")
            if len(a) == 2:
                mean = _num_arg(a[0], "2")  # the reference reads argument 1 again
            elif len(a) != 1:
                raise BuzzRaise(f"wrong number of local variables: expected 0, 1, or 2 parameters, got {len(a)}")
        # C: n = (float)r * 2.0f / INT_MAX - 1.0 (float product and quotient, the subtraction
        # in double); sq = n1 * n1 + n2 * n2 in float
        while True:
            n1 = f32(f32(f32(f32(float(mt.next32())) * 2.0) / _FUMAX) - 1.0)
            n2 = f32(f32(f32(f32(float(mt.next32())) * 2.0) / _FUMAX) - 1.0)
            sq = f32(f32(n1 * n1) + f32(n2 * n2))
            if sq < 1.0:
                break
        if sq == 0.0:  # logf(0) / 0 is inf, and 0 * inf the x86 NaN
            return mean if mean != mean else NEG_NAN
        # C: mean + stddev * n1 * sqrt(-2.0f * logf(sq) / sq): the argument of sqrt in float,
        # sqrt and what follows in double, rounded to float once
        return fround(f32(mean + f32(stddev * n1) * math.sqrt(f32(f32(-2.0 * logf(sq)) / sq))))

    def r_exponential(vm_, *a):
        _lnum(a, 1)
        mean = _num_arg(a[0])
        u = f32(f32(float(mt.next32())) / _FUMAX)
        return fround(f32(-logf(u) * mean))  # C: -logf((float)r / INT_MAX) * mean, in float

    rng = table_of("math.rng", {"setseed": r_setseed, "uniform": r_uniform,
                                "gaussian": r_gaussian, "exponential": r_exponential})
    mtab = table_of("math", {
        "abs": m_abs, "floor": rounding(math.floor), "ceil": rounding(math.ceil),
        "round": rounding(c_round),
        **{n: unary_math(vm.profile, n) for n in ("log", "log2", "log10", "exp", "sqrt", "sin",
                                                   "cos", "tan", "asin", "acos")},
        "atan": m_atan, "min": m_min, "max": m_max})
    tput(mtab, "pi", fround(f32(math.pi)))
    tput(mtab, "rng", rng)
    G["math"] = mtab

    # ---------------------------------------------------------------- string
    def s_length(vm_, *a):
        _lnum(a, 1)
        _want(a[0], str)
        return byte_len(a[0])

    def s_sub(vm_, *a):
        if len(a) not in (2, 3):
            raise BuzzRaise(f"wrong number of local variables: expected 2 or 3 parameters, got {len(a)}")
        _want(a[0], str)
        b = a[0]
        if not b.isascii():
            b = str_bytes(b)  # strings are bytes: the bounds count bytes
        ls = len(b)
        _want(a[1], int)
        n = a[1]
        if n >= ls:
            return None
        m = ls
        if len(a) == 3:
            _want(a[2], int)
            m = a[2]
            if m < n:
                return None
            if m >= ls:
                m = ls
        if n < 0:
            # the reference copies from before the string's first byte, where a string
            # terminator sits: the result reads as empty
            r = ""
        else:
            # a cut through a multi-byte character keeps its bytes (see values.py)
            r = b[n:m] if b.__class__ is str else bytes_str(b[n:m])
        sid(r)
        return r

    def s_concat(vm_, *a):
        if len(a) < 2:
            raise BuzzRaise(f"wrong number of local variables: expected at least 2 parameters, got {len(a)}")
        for v in a:
            _want(v, str)
        r = "".join(a)
        if not r.isascii():
            r = canonical(r)  # the bytes of a character cut apart may meet again
        sid(r)
        return r

    def s_tostring(vm_, *a):
        _lnum(a, 1)
        v = a[0]
        if v.__class__ is int:
            r = str(v)
        elif v.__class__ is float:
            r = fmt_float(v)
        else:
            # the reference formats a non-number's storage as a float: "0.000000" in practice
            r = "0.000000"
        sid(r)
        return r

    int_re = re.compile(r"[ \t\n\r\f\v]*([+-]?[0-9]+)")

    def s_toint(vm_, *a):
        # C: int32_t i = strtol(s, &end, 10); nil when no digit was read, or when ERANGE
        # was set and the truncated value is 0
        _lnum(a, 1)
        _want(a[0], str)
        m = int_re.match(a[0])
        if not m:
            return None
        digits = m.group(1)
        if len(digits.lstrip("+-").lstrip("0")) > 19:  # far out of a long's range
            v, erange = (-(2 ** 63) if digits.startswith("-") else 2 ** 63 - 1), True
        else:
            v = int(digits)
            erange = not -(2 ** 63) <= v < 2 ** 63
            v = max(min(v, 2 ** 63 - 1), -(2 ** 63))
        r = wrap(v)
        return None if erange and r == 0 else r

    def s_tofloat(vm_, *a):
        # C: float f = strtof(s, &end); nil when nothing was read, or when ERANGE was set and
        # f is 0 (an underflow)
        _lnum(a, 1)
        _want(a[0], str)
        v, n, erange = strtof(a[0])
        if n == 0 or (erange and v == 0.0):
            return None
        return fround(v)

    G["string"] = table_of("string", {"length": s_length, "sub": s_sub, "concat": s_concat,
                                      "tostring": s_tostring, "toint": s_toint, "tofloat": s_tofloat})

    # ---------------------------------------------------------------- io
    if vm.io_enabled:
        _install_io(vm, table_of, tput)

    G["log"] = host("log", b_log)
    G["id"] = vm.robot_id
    vm._builtin_names = set(G)


def _install_io(vm, table_of, tput) -> None:
    import errno as _errno
    import os

    handles: dict[int, object] = {}

    def set_error(err: int) -> None:
        tput(iot, "errno", err)
        tput(iot, "error_message", os.strerror(err) if err else "No error")

    def handle(t):
        _want(t, Table)
        h = t.get("handle")
        f = handles.get(h) if h.__class__ is int else None
        if f is None:
            raise BuzzRaise("type mismatch: expected a file handle table")
        return f

    def fopen(vm_, *a):
        _lnum(a, 2)
        _want(a[0], str)
        _want(a[1], str)
        try:
            f = open(a[0], a[1].replace("t", ""), encoding="utf-8", errors="surrogateescape") \
                if "b" not in a[1] else open(a[0], a[1])
        except OSError as e:
            set_error(e.errno or _errno.EIO)
            return None
        except ValueError:
            set_error(_errno.EINVAL)
            return None
        set_error(0)
        hid = len(handles) + 1
        handles[hid] = f
        t = Table()
        tput(t, "handle", hid)
        tput(t, "name", a[0])
        return t

    def fclose(vm_, *a):
        _lnum(a, 1)
        f = handle(a[0])
        f.close()
        set_error(0)

    def fsize(vm_, *a):
        _lnum(a, 1)
        f = handle(a[0])
        cur = f.tell()
        f.seek(0, os.SEEK_END)
        sz = f.tell()
        f.seek(cur)
        set_error(0)
        return sz

    def fforeach(vm_, *a):
        _lnum(a, 2)
        f = handle(a[0])
        _want_closure(a[1])
        for line in f:
            vm.call_value(a[1], line[:-1] if line.endswith("\n") else line)
        set_error(0)

    def fwrite(vm_, *a):
        if len(a) < 2:
            raise BuzzRaise(f"wrong number of local variables: expected at least 2 parameters, got {len(a)}")
        f = handle(a[0])
        f.write("".join(fmt_value(vm, v) for v in a[1:]) + "\n")
        set_error(0)

    iot = table_of("io", {"fopen": fopen, "fclose": fclose, "fsize": fsize,
                          "fforeach": fforeach, "fwrite": fwrite})
    set_error(0)
    vm.globals["io"] = iot
