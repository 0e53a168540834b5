//===- HostBuffer.cpp - Typed buffers in host memory ----------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Runtime/HostBuffer.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>

using namespace mlir;
using namespace mlir::recurrence;

static const llvm::fltSemantics &semanticsOf(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return llvm::APFloat::IEEEsingle();
  case ElementType::F64:
    return llvm::APFloat::IEEEdouble();
  case ElementType::F16:
    return llvm::APFloat::IEEEhalf();
  case ElementType::BF16:
    return llvm::APFloat::BFloat();
  case ElementType::I32:
  case ElementType::I64:
    break;
  }
  llvm_unreachable("unknown element type");
}

/// `value` in `type`, as the bits of the narrower formats.
static llvm::APFloat convert(ElementType type, double value) {
  llvm::APFloat result(value);
  bool lost;
  result.convert(semanticsOf(type), llvm::APFloat::rmNearestTiesToEven, &lost);
  return result;
}

static double toDouble(llvm::APFloat value) {
  bool lost;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return value.convertToDouble();
}

double mlir::recurrence::roundTo(ElementType type, double value) {
  return toDouble(convert(type, value));
}

HostBuffer::HostBuffer(ElementType type, std::vector<int64_t> shape,
                       const std::vector<double> &values)
    : type(type), shape(std::move(shape)) {
  unsigned size = elementBytes(type);
  bytes.resize(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i) {
    char *element = bytes.data() + i * size;
    if (type == ElementType::F64) {
      std::memcpy(element, &values[i], size);
    } else if (type == ElementType::F32) {
      float narrow = static_cast<float>(values[i]);
      std::memcpy(element, &narrow, size);
    } else if (type == ElementType::I64) {
      int64_t integer = static_cast<int64_t>(values[i]);
      std::memcpy(element, &integer, size);
    } else if (type == ElementType::I32) {
      int32_t integer = static_cast<int32_t>(values[i]);
      std::memcpy(element, &integer, size);
    } else {
      uint16_t bits = static_cast<uint16_t>(
          convert(type, values[i]).bitcastToAPInt().getZExtValue());
      std::memcpy(element, &bits, size);
    }
  }
}

BufferView HostBuffer::view() {
  return BufferView::contiguous(bytes.data(), type, shape);
}

std::vector<double> HostBuffer::values() const {
  unsigned size = elementBytes(type);
  std::vector<double> values(bytes.size() / size);
  for (size_t i = 0; i < values.size(); ++i) {
    const char *element = bytes.data() + i * size;
    if (type == ElementType::F64) {
      std::memcpy(&values[i], element, size);
    } else if (type == ElementType::F32) {
      float narrow;
      std::memcpy(&narrow, element, size);
      values[i] = narrow;
    } else if (type == ElementType::I64) {
      int64_t integer;
      std::memcpy(&integer, element, size);
      values[i] = static_cast<double>(integer);
    } else if (type == ElementType::I32) {
      int32_t integer;
      std::memcpy(&integer, element, size);
      values[i] = integer;
    } else {
      uint16_t bits;
      std::memcpy(&bits, element, size);
      values[i] =
          toDouble(llvm::APFloat(semanticsOf(type), llvm::APInt(16, bits)));
    }
  }
  return values;
}
