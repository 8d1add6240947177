"""The operators' inline fast paths in generated code agree with the runtime helpers.

Generated code handles two ints, two floats, and a number with a numeric constant inline
(with the profile's float rounding done in place) and calls the helpers of
``swarmstack.buzz.runtime`` for everything else. Here each operator runs both ways on the
same operands — variable/variable, variable/constant and constant/variable — and must give
bit-identical results (NaN signs and -0.0 included) or the same error, in both profiles.
"""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.buzz.errors import BuzzRaise, BuzzRuntimeError
from swarmstack.buzz.runtime import Profile, make_helpers
from swarmstack.buzz.vm import BuzzVM

BINARY = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div", "%": "_mod", "^": "_pow",
          "==": "_eqb", "!=": "_neqb", "<": "_ltb", "<=": "_lteb", ">": "_gtb", ">=": "_gteb"}
PROFILES = ("buzz", "bittybuzz")

# constants as Buzz writes them (the scanner reads plain decimals)
INT_CONSTS = (0, 1, 2, 3, 4, 7, 100, 32767, 2147483647)
FLOAT_CONSTS = (0.0, 0.5, 1.0, 2.0, 2.5, 3.25, 1000.0, 65504.0)

_SPECIAL_FLOATS = (0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 3.4028234663852886e38,
                   -3.4028234663852886e38, 1e-45, 6.1e-05, 65504.0, 65520.0, 0.1, -2.5)
_SPECIAL_INTS = (0, 1, -1, 2, -2, 32767, -32768, 2147483647, -2147483648, 65536, 7)

operands = st.one_of(
    st.sampled_from(_SPECIAL_FLOATS),
    st.sampled_from(_SPECIAL_INTS),
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.integers(min_value=-(2**31), max_value=2**31 - 1),
    st.integers(min_value=-20, max_value=20),
    st.sampled_from((None, "s")),
)


def _key(v):
    """Bit-exact identity of a Buzz value (NaN sign and payload, -0.0)."""
    if v.__class__ is float:
        return ("f", struct.pack("<d", v))
    if v.__class__ is bool:
        return ("i", int(v))
    return (type(v).__name__, v)


def _source() -> str:
    lines = []
    for i, op in enumerate(BINARY):
        lines.append(f"function vv{i}(a, b) {{ return a {op} b }}")
        for j, c in enumerate(INT_CONSTS + FLOAT_CONSTS):
            lit = repr(c) if isinstance(c, float) else str(c)
            lines.append(f"function vc{i}_{j}(a) {{ return a {op} {lit} }}")
            lines.append(f"function cv{i}_{j}(b) {{ return {lit} {op} b }}")
    lines.append("function neg(a) { return -a }")
    return "\n".join(lines) + "\n"


SOURCE = _source()
_VMS: dict[str, BuzzVM] = {}


def _vm(profile: str) -> BuzzVM:
    vm = _VMS.get(profile)
    if vm is None or vm.failed:
        vm = _VMS[profile] = BuzzVM(SOURCE, filename="fast.bzz", profile=profile,
                                     log=lambda s: None, raise_errors=True)
        vm.run_top_level()
    return vm


def _run_vm(profile: str, name: str, *args):
    vm = _vm(profile)
    try:
        return ("ok", _key(vm.call(name, *args)))
    except BuzzRuntimeError as e:
        _VMS.pop(profile, None)
        return ("err", e.message)


def _run_helper(profile: str, helper: str, *args):
    h = make_helpers(Profile(profile))[helper]
    try:
        r = h(*args)
    except BuzzRaise as e:
        return ("err", e.message)
    if helper in ("_eqb", "_neqb", "_ltb", "_lteb", "_gtb", "_gteb"):
        r = 1 if r else 0
    return ("ok", _key(r))


def _as_value(profile: str, v):
    """The operand as the VM holds it (the host's numbers converted to the profile)."""
    p = Profile(profile)
    if v.__class__ is int:
        return p.wrap(v)
    if v.__class__ is float:
        return p.fround(v)
    return v


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=150, deadline=None)
@given(a=operands, b=operands)
def test_variable_operands_match_the_helpers(profile, a, b):
    a, b = _as_value(profile, a), _as_value(profile, b)
    for i, (op, helper) in enumerate(BINARY.items()):
        assert _run_vm(profile, f"vv{i}", a, b) == _run_helper(profile, helper, a, b), (op, a, b)
    assert _run_vm(profile, "neg", a) == _run_helper(profile, "_unm", a), ("neg", a)


@pytest.mark.parametrize("profile", PROFILES)
def test_special_operand_pairs_match_the_helpers(profile):
    specials = [_as_value(profile, v) for v in _SPECIAL_FLOATS + _SPECIAL_INTS + (None, "s")]
    for a in specials:
        assert _run_vm(profile, "neg", a) == _run_helper(profile, "_unm", a), ("neg", a)
        for b in specials:
            for i, (op, helper) in enumerate(BINARY.items()):
                assert _run_vm(profile, f"vv{i}", a, b) == _run_helper(profile, helper, a, b), (op, a, b)


@pytest.mark.parametrize("profile", PROFILES)
@settings(max_examples=60, deadline=None)
@given(a=operands)
def test_constant_operands_match_the_helpers(profile, a):
    a = _as_value(profile, a)
    consts = INT_CONSTS + FLOAT_CONSTS
    for i, (op, helper) in enumerate(BINARY.items()):
        for j, c in enumerate(consts):
            c = _as_value(profile, c)
            assert _run_vm(profile, f"vc{i}_{j}", a) == _run_helper(profile, helper, a, c), (op, a, c)
            assert _run_vm(profile, f"cv{i}_{j}", a) == _run_helper(profile, helper, c, a), (op, c, a)


def test_float32_rounding_matches_struct():
    """The one-slot float array rounds exactly as packing to binary32 does."""
    fround = Profile("buzz").fround
    samples = list(_SPECIAL_FLOATS) + [1e300, -1e300, 3.4028235677973366e38, 5e-324, 7e-46,
                                       1.401298464324817e-45 / 2, 0.30000000000000004]
    samples += [struct.unpack("<d", struct.pack("<Q", (i * 0x9E3779B97F4A7C15) % 2**64))[0]
                for i in range(20000)]
    for x in samples:
        try:
            want = struct.unpack("<f", struct.pack("<f", x))[0]
        except OverflowError:
            want = math.copysign(math.inf, x)
        assert _key(fround(x)) == _key(want), x
