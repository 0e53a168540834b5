"""The persistent compile cache: reused by a later process, rebuilt when an
entry is corrupted or truncated, never torn by concurrent writers."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import reference

# Compiles and runs one chunked block-diagonal scan (a kernel of its own,
# not compiled by other tests) and prints its states.
CHILD = r"""
import json, sys
import numpy as np
import recurrence as rec
rng = np.random.default_rng(11)
a = rng.uniform(-0.6, 0.6, (2, 9, 3, 2, 2))
b = rng.standard_normal((2, 9, 6))
h0 = rng.standard_normal((2, 6))
h = rec.scan(a, b, structure="block_diagonal", init=h0, schedule="chunked",
             chunk_size=4, reverse=True)
print(json.dumps(h.tolist()))
"""


def run_child(cache, count=1):
    """Starts `count` processes at once on the cache folder; returns their
    states."""
    env = dict(os.environ, RECURRENCE_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    children = [subprocess.Popen([sys.executable, "-c", CHILD], env=env,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
                for _ in range(count)]
    results = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        results.append(np.array(json.loads(out)))
    return results


def expected():
    rng = np.random.default_rng(11)
    a = rng.uniform(-0.6, 0.6, (2, 9, 3, 2, 2))
    b = rng.standard_normal((2, 9, 6))
    h0 = rng.standard_normal((2, 6))
    return reference.scan("block_diagonal", a, b, init=h0, reverse=True)[0]


def entries(cache):
    return sorted(p for p in cache.iterdir())


def test_a_second_process_loads_the_entry(tmp_path):
    first, = run_child(tmp_path)
    kernels = entries(tmp_path)
    assert len(kernels) == 1 and kernels[0].suffix == ".kernel"
    inode = kernels[0].stat().st_ino
    second, = run_child(tmp_path)
    # Loaded, not rewritten: an entry is only ever replaced by a rename.
    assert entries(tmp_path) == kernels
    assert kernels[0].stat().st_ino == inode
    np.testing.assert_allclose(first, expected(), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(second, first)


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage"])
def test_a_damaged_entry_is_rebuilt(tmp_path, damage):
    run_child(tmp_path)
    kernel, = entries(tmp_path)
    data = bytearray(kernel.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x40  # inside the object code
    elif damage == "truncate":
        data = data[:len(data) // 2]
    elif damage == "empty":
        data = b""
    else:
        data = b"RECURRENCE-KERNEL 1\n3 4 abc\n1234567"
    kernel.write_bytes(bytes(data))
    inode = kernel.stat().st_ino
    h, = run_child(tmp_path)
    np.testing.assert_allclose(h, expected(), rtol=1e-12, atol=1e-12)
    rebuilt, = entries(tmp_path)
    assert rebuilt == kernel and kernel.stat().st_ino != inode
    assert kernel.read_bytes() != bytes(data)


def test_concurrent_writers_leave_one_whole_entry(tmp_path):
    results = run_child(tmp_path, count=3)
    for h in results:
        np.testing.assert_allclose(h, expected(), rtol=1e-12, atol=1e-12)
    kernel, = entries(tmp_path)  # no temporary files left behind
    assert kernel.suffix == ".kernel"
    again, = run_child(tmp_path)
    np.testing.assert_array_equal(again, results[0])


def test_cache_off(tmp_path):
    env = dict(os.environ, RECURRENCE_CACHE_DIR="off",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, text=True,
                         capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr
    np.testing.assert_allclose(np.array(json.loads(out.stdout)), expected(),
                               rtol=1e-12, atol=1e-12)
    assert not any(tmp_path.rglob("*.kernel"))
