//===- HostBuffer.h - Typed buffers in host memory --------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A contiguous buffer of any element type a compiled function takes, written
// and read as doubles: for tools and tests that hold their values in double
// and call kernels on f32, f64, f16 or bf16 buffers.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_RUNTIME_HOSTBUFFER_H
#define RECURRENCE_RUNTIME_HOSTBUFFER_H

#include "recurrence/Runtime/JitModule.h"

#include <cstdint>
#include <vector>

namespace mlir::recurrence {

/// `value` rounded to the nearest value of `type` (ties to even).
double roundTo(ElementType type, double value);

class HostBuffer {
public:
  /// A buffer of `shape` holding `values` (row-major), each rounded to
  /// `type`.
  HostBuffer(ElementType type, std::vector<int64_t> shape,
             const std::vector<double> &values);

  ElementType getType() const { return type; }
  /// A view of the whole buffer, for JitModule::call.
  BufferView view();
  /// The values, read back as doubles.
  std::vector<double> values() const;

private:
  ElementType type;
  std::vector<int64_t> shape;
  std::vector<char> bytes;
};

} // namespace mlir::recurrence

#endif // RECURRENCE_RUNTIME_HOSTBUFFER_H
