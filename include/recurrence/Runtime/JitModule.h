//===- JitModule.h - Compile and call recurrence code on the CPU -*- C++
//-*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Compiles functions on tensors through -recurrence-to-llvm (or
// -recurrence-to-nvvm) to object code, links it into an ORC JIT and calls
// them on caller-owned strided buffers: inputs are read in place and results
// are written straight into the caller's memory.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_RUNTIME_JITMODULE_H
#define RECURRENCE_RUNTIME_JITMODULE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir {
namespace recurrence {

/// The element types buffers hold; the numbering is the C API's
/// (RECURRENCE_F32, ...). The integer ones hold sequence offsets.
enum class ElementType : int32_t {
  F32 = 0,
  F64 = 1,
  F16 = 2,
  BF16 = 3,
  I32 = 4,
  I64 = 5
};

/// The size of one element in bytes, and the MLIR spelling ("f32", ...).
unsigned elementBytes(ElementType type);
llvm::StringRef elementTypeName(ElementType type);
/// The element type spelled `name` ("f32", ...), if any.
std::optional<ElementType> elementTypeNamed(llvm::StringRef name);
/// The buffer element type of an MLIR type (a float type, i32 or i64), if
/// it is one of them.
std::optional<ElementType> elementTypeOf(Type type);

/// A strided view of caller memory; strides count elements.
struct BufferView {
  void *data = nullptr;
  ElementType dtype = ElementType::F32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;

  /// Whether the view is row-major contiguous (unit dims may have any
  /// stride).
  bool isContiguous() const;

  /// A contiguous row-major view.
  static BufferView contiguous(void *data, ElementType dtype,
                               std::vector<int64_t> sizes);
};

/// How a module is compiled for the host.
struct JitOptions {
  /// Cores the generated code plans for; 0: $RECURRENCE_CORES when set,
  /// otherwise this machine's.
  int64_t cores = 0;
  /// Where compiled kernels persist between processes (CompileCache.h);
  /// empty: compile every time.
  std::string cacheDirectory;
  /// "cpu", or "cuda": kernels for the GPU (-recurrence-to-nvvm), called on
  /// device buffers.
  std::string target = "cpu";
};

/// Adds the function the JIT calls for `entry` (a function from ranked
/// tensors to ranked tensors): `func @_recurrence_dps_<entry>` on memrefs,
/// which reads the arguments in place and materializes the results in the
/// caller's buffers (contiguous, or of the layout the entry states with
/// `bufferization.buffer_layout`), and returns it. With it inlined, the
/// lowerings see the scans as a call compiles them: the GPU's kernels that
/// read and write the caller's buffers in place need them.
func::FuncOp addCallerBufferWrapper(ModuleOp module, func::FuncOp entry);

class JitModule {
public:
  ~JitModule();

  /// Compiles `module`, whose `entries` are functions from ranked tensors to
  /// ranked tensors, for the host CPU. The module is lowered in place.
  static llvm::Expected<std::unique_ptr<JitModule>>
  compile(ModuleOp module, ArrayRef<std::string> entries,
          const JitOptions &options = {});

  /// Parses `source` and compiles it.
  static llvm::Expected<std::unique_ptr<JitModule>>
  compileSource(MLIRContext *context, StringRef source,
                ArrayRef<std::string> entries, const JitOptions &options = {});

  /// Calls `entry` on `args`, writing its results into `results`. Sizes,
  /// ranks and element types are checked against the function's signature;
  /// result buffers must not overlap any other buffer. Contiguous views are
  /// used in place, and so are those of a layout the entry states
  /// (`bufferization.buffer_layout`), which must have its strides; other
  /// strided views are staged through contiguous copies. A module compiled
  /// for cuda takes device buffers, which cannot be staged, and runs on
  /// `stream` (a CUstream; null: a stream of its own, waited for); errors
  /// of the launch come back here.
  llvm::Error call(StringRef entry, ArrayRef<BufferView> args,
                   ArrayRef<BufferView> results, void *stream = nullptr);

  /// Whether the module runs on the GPU.
  bool isCuda() const { return cuda; }
  /// Whether the code was loaded from the compile cache (else compiled).
  bool isCached() const { return cached; }

  /// The (ranked) shapes of an entry's arguments and results.
  struct Signature {
    std::vector<std::vector<int64_t>> args, results;
    std::vector<ElementType> argTypes, resultTypes;
    /// The strides of each buffer's stated layout (empty: contiguous).
    std::vector<std::vector<int64_t>> argStrides, resultStrides;
    /// {"args": [[sizes]], "arg_types": ["f32", ...], "arg_strides":
    /// [[strides] or null], "results": [[sizes]], "result_types": [...],
    /// "result_strides": [...]}, -1 for a dynamic size or stride; and back.
    llvm::json::Value toJson() const;
    static std::optional<Signature> fromJson(const llvm::json::Value &value);
    /// The packed entry point, looked up once at compile time.
    void (*packed)(void **) = nullptr;
  };
  const Signature *getSignature(StringRef entry) const;

private:
  JitModule() = default;
  /// Links object code (compiled here or read from the compile cache) into
  /// a JIT of its own, runs its constructors and looks up the entries.
  llvm::Error load(llvm::StringRef object);
  /// Runs the linked code's constructors (loading cuda kernels) and looks
  /// up the entries' packed entry points.
  llvm::Error start();

  /// The object code, compiled here or read from the cache, linked into a
  /// JIT of its own.
  std::unique_ptr<llvm::orc::LLJIT> loaded;
  llvm::StringMap<Signature> signatures;
  bool cuda = false;
  bool cached = false;
};

} // namespace recurrence
} // namespace mlir

#endif // RECURRENCE_RUNTIME_JITMODULE_H
