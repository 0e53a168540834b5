"""Recurrence: structured linear recurrences compiled with MLIR.

    h_t = A_t h_{t-1} + b_t

Every function here builds recurrence IR, runs the same pipeline as
``recurrence-opt -recurrence-to-llvm``, JIT-compiles it and calls the code on
NumPy arrays. Compiled functions are cached with dynamic shapes, so calling
again with other sizes does not recompile.
"""

from ._recurrence import (Module, host_cache, release_host_cache,
                          set_host_cache_limit)
from .api import compile, explain, scan, step, structures
from .models import (bdlru, bdlru_gradient, bdlru_step, delta_rule,
                     delta_rule_gradient, delta_rule_step, hlru,
                     hlru_gradient, hlru_step, linear_attention,
                     linear_attention_gradient, linear_attention_step,
                     normalize_gates, selective_ssm, selective_ssm_gradient,
                     selective_ssm_step)

__all__ = [
    "Module", "compile", "explain", "scan", "step", "structures",
    "host_cache", "set_host_cache_limit", "release_host_cache",
    "linear_attention", "linear_attention_gradient",
    "delta_rule", "delta_rule_gradient",
    "selective_ssm", "selective_ssm_gradient", "normalize_gates",
    "hlru", "hlru_gradient", "bdlru", "bdlru_gradient",
    "linear_attention_step", "delta_rule_step", "selective_ssm_step",
    "hlru_step", "bdlru_step",
]
