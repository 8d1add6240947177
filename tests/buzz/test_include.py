"""include: path resolution, include-once, and the bundled libraries."""

import pytest

from swarmstack.buzz.errors import BuzzSyntaxError
from tests.buzz.conftest import run_lines


def test_include_once_and_include_path(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.bzz").write_text('log("a loaded")\nA = 1\n')
    (lib / "b.bzz").write_text('include "a.bzz"\nlog("b loaded")\n')
    src = 'include "a.bzz"\ninclude "b.bzz"\ninclude "a.bzz"\nlog(A)\n'
    assert run_lines(src, str(tmp_path / "main.bzz"), include_path=[str(lib)]) == ["a loaded", "b loaded", "1"]


def test_include_relative_to_the_including_file(tmp_path):
    (tmp_path / "helper.bzz").write_text("function h() { return 3 }\n")
    (tmp_path / "main.bzz").write_text('include "helper.bzz"\nlog(h())\n')
    from swarmstack.buzz.vm import BuzzVM
    out = []
    vm = BuzzVM.from_file(str(tmp_path / "main.bzz"), log=out.append, raise_errors=True)
    vm.run_top_level()
    assert out == ["3"]


def test_missing_include_is_a_located_error():
    with pytest.raises(BuzzSyntaxError) as e:
        run_lines('x = 1\ninclude "nope.bzz"\n', "m.bzz")
    assert e.value.location_message() == "m.bzz:2:1: Can't read 'nope.bzz'"


def test_errors_inside_included_files_name_that_file(tmp_path):
    (tmp_path / "bad.bzz").write_text("x = = 1\n")
    with pytest.raises(BuzzSyntaxError) as e:
        run_lines('include "bad.bzz"\n', str(tmp_path / "m.bzz"))
    assert e.value.file.endswith("bad.bzz") and e.value.line == 1


def test_vec2():
    src = ('include "vec2.bzz"\nv = math.vec2.new(3, 4)\nlog(math.vec2.length(v))\n'
           "n = math.vec2.norm(v)\nlog(n.x, ' ', n.y)\n"
           "a = math.vec2.add(v, math.vec2.new(1, 1))\nlog(a.x, ' ', a.y)\n"
           "s = math.vec2.sub(v, math.vec2.scale(v, 2))\nlog(s.x, ' ', s.y)\n"
           "log(math.vec2.dot(v, v), ' ', math.vec2.angle(math.vec2.new(0, 1)))\n"
           "r = math.vec2.rotate(math.vec2.new(1, 0), math.pi / 2)\nlog(math.round(r.x), ' ', math.round(r.y))\n"
           "p = math.vec2.newp(2, 0)\nlog(p.x, ' ', p.y)")
    assert run_lines(src) == ["5.000000", "0.600000 0.800000", "4 5", "-3 -4", "25 1.570796", "0 1",
                              "2.000000 0.000000"]


def test_matrix():
    src = ('include "matrix.bzz"\nA = math.matrix.identity(2)\nA[0][1] = 3\n'
           "math.matrix.print(math.matrix.multiply(A, math.matrix.scale(2, A)))\n"
           "math.matrix.print(math.matrix.add(A, A))\nmath.matrix.print(math.matrix.sub(A, A))\n"
           "log(math.matrix.equal(A, A), math.matrix.equal(A, math.matrix.new(2, 2)))\n"
           "T = math.matrix.transpose(A)\nmath.matrix.print(T)\n"
           "math.matrix.print(math.matrix.newv(math.vec2))")
    out = run_lines(src.replace("math.matrix.newv(math.vec2)", "math.matrix.newv({.x = 1, .y = 2})"))
    assert out == ["[[2, 12], [0, 2]]", "[[2, 6], [0, 2]]", "[[0, 0], [0, 0]]", "10",
                   "[[0, 0], [0, 0]]", "[[1, 0], [3, 1]]", "[[1, 2]]"]


def test_string_library():
    src = ('include "string.bzz"\nlog(string.charat("abc", 1), string.indexoffirst("hello", "l"),'
           ' string.indexoflast("hello", "l"), string.indexoffirst("hello", "z"))\n'
           't = string.split("a,b;;c", ",;")\nlog(size(t), t[0], t[1], t[2])')
    assert run_lines(src) == ["b23[nil]", "3abc"]


def test_table_library():
    src = ('include "table.bzz"\nt = {}\ntable.append(t, 5)\ntable.append(t, 3)\ntable.append(t, 9)\n'
           "log(size(t), table.max(t), table.min(t), table.maxkey(t), table.minkey(t))\n"
           "table.sort(t, table.cmp_number)\ntable.print(t)\n"
           "c = table.copy({.a = {.b = 1}})\nlog(c.a.b)\n"
           "table.swap(t, 0, 2)\nlog(t[0], t[2])\n"
           "math.rng.setseed(3)\ntable.shuffle(t)\nlog(size(t))")
    assert run_lines(src) == ["39320", "0 -> 3", "1 -> 5", "2 -> 9", "1", "93", "3"]


def test_queue_library():
    src = ('include "queue.bzz"\nq = queue.new(3)\nlog(queue.empty(q))\n'
           "queue.push(q, 1)\nqueue.push(q, 2)\nqueue.push(q, 3)\nqueue.push(q, 4)\n"
           "log(queue.full(q), queue.size(q))\nqueue.print(q)\n"
           "log(queue.pop(q))\nqueue.print(q)\nqueue.pop(q)\nqueue.pop(q)\nqueue.pop(q)\nqueue.print(q)")
    assert run_lines(src) == ["1", "Item could not be inserted, queue is full.", "13", "[1, 2, 3]",
                              "1", "[2, 3]", "Queue is empty.", "[]"]
