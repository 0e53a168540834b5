"""Argument checks shared by the public functions: clear TypeError and
ValueError messages instead of crashes or silent broadcasting."""

import numpy as np

from ._recurrence import ml_dtypes

# float32 and float64; float16 and (with ml_dtypes) bfloat16 operands run
# with a float32 state.
FLOAT_TYPES = (np.float32, np.float64, np.float16) + (
    (ml_dtypes.bfloat16,) if ml_dtypes else ())
NARROW_TYPES = {np.dtype(np.float16): "f16"}
if ml_dtypes:
    NARROW_TYPES[np.dtype(ml_dtypes.bfloat16)] = "bf16"


def as_float_array(name, value, dtype=None):
    """Returns `value` as a float ndarray of the given dtype."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name}: expected a numpy.ndarray, got "
                        f"{type(value).__name__}")
    if dtype is not None and value.dtype == np.dtype(dtype):
        return value
    if value.dtype.type not in FLOAT_TYPES:
        raise TypeError(f"{name}: expected dtype float32, float64, float16 "
                        f"or bfloat16, got {value.dtype}")
    if dtype is not None and value.dtype != dtype:
        raise TypeError(f"{name}: expected dtype {np.dtype(dtype)} like the "
                        f"other arguments, got {value.dtype}")
    return value


def check_shape(name, value, expected):
    """Raises ValueError unless value.shape == expected."""
    if tuple(value.shape) != tuple(expected):
        raise ValueError(f"{name}: expected shape {tuple(expected)}, got "
                         f"{tuple(value.shape)}")


def check_signature_shape(name, got, shape):
    """Raises ValueError unless `got` matches a compiled signature's `shape`
    (-1: a dynamic size, any)."""
    if len(got) != len(shape) or any(want not in (-1, size)
                                     for want, size in zip(shape, got)):
        raise ValueError(f"{name}: expected shape "
                         f"{tuple('?' if s < 0 else s for s in shape)}, got "
                         f"{tuple(got)}")


def check_rank(name, value, least, layout):
    if value.ndim < least:
        raise ValueError(f"{name}: expected at least {least} dimensions "
                         f"({layout}), got shape {tuple(value.shape)}")


def check_choice(name, value, choices):
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a string, got "
                        f"{type(value).__name__}")
    if value not in choices:
        raise ValueError(f"{name}: expected one of {', '.join(choices)}, got "
                         f"'{value}'")


def check_out(name, out, shape, dtype):
    """Checks a caller's output array (out=): an ndarray of exactly `shape`
    and `dtype`, writable. Returns it, or None when `out` is None."""
    if out is None:
        return None
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name}: expected a numpy.ndarray, got "
                        f"{type(out).__name__}")
    if out.dtype != np.dtype(dtype):
        raise TypeError(f"{name}: expected dtype {np.dtype(dtype)}, got "
                        f"{out.dtype}")
    check_shape(name, out, shape)
    if not out.flags.writeable:
        raise ValueError(f"{name}: the array is read-only")
    return out


def unaliased(inputs, outs, in_place=None):
    """The inputs, each copied if it shares memory with an output, so that a
    result is the same as if `out=` did not overlap the inputs (as NumPy
    ufuncs guarantee). `in_place`, an input that is itself an output which
    the function reads element by element before writing it, is passed as
    it is."""
    targets = [out for out in outs if out is not None]
    if not targets:
        return list(inputs)
    return [x if x is in_place else
            x.copy() if any(np.may_share_memory(x, out) for out in targets)
            else x for x in inputs]
