# -*- Python -*-
# lit configuration for the Recurrence tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Recurrence"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.recurrence_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%runner_utils", config.runner_utils))
config.substitutions.append(("%c_runner_utils", config.c_runner_utils))
config.substitutions.append(("%recurrence_plugin", config.recurrence_plugin))
config.substitutions.append(("%lru_plugin", config.lru_plugin))
config.substitutions.append(("%librecurrence", config.recurrence_library))

# The C API and the plugin are shared libraries, not built with sanitizers.
if config.recurrence_sanitize.upper() not in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("shared-libs")
    if config.recurrence_static_llvm.upper() in ("ON", "1", "TRUE", "YES"):
        config.available_features.add("static-llvm")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# %run below names mlir-runner bare, after the tool substitutions have been
# made: put the LLVM tools (mlir-runner among them) on PATH so it is found
# whether or not /usr/lib/llvm-22/bin is on the caller's PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.recurrence_tools_dir, config.llvm_tools_dir]
tools = ["recurrence-opt", "recurrence-run", "recurrence-capi-test", "mlir-opt",
         "mlir-runner",
         "FileCheck", "not", "count"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Runs lowered IR on the CPU JIT with the runtime libraries for printing,
# optimized at -O3 as the users' JIT does (an alias scope wrongly stated
# shows only once LLVM's optimizer acts on it).
config.substitutions.append(
    (
        "%run",
        "mlir-runner -O3 -e main -entry-point-result=void "
        "-shared-libs=%s,%s,%s"
        % (config.runner_utils, config.c_runner_utils, config.openmp_runtime),
    )
)
