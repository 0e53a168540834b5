//===- SeparateStorageToAliasScopes.cpp - Assumptions as alias metadata ---===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `memref.distinct_objects` lowers to `llvm.assume` with `separate_storage`
// bundles, which LLVM's alias analysis reads. But a scan's loops run inside
// OpenMP parallel regions, and translating one outlines its body into a
// function through LLVM's CodeExtractor, which erases the assumptions in
// it. Scoped-noalias metadata on the loads and stores stays with them, so
// this pass restates each such assumption as alias scopes.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Dominance.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_SEPARATESTORAGETOALIASSCOPESPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
constexpr StringLiteral kSeparateStorage = "separate_storage";

/// The value that `pointer` is based on, followed back through GEPs and
/// through the insertions of a struct (a memref descriptor) to the pointer
/// inserted at the extracted position: a function argument, an
/// allocation's result, or the first value it cannot see through.
Value underlyingObject(Value pointer) {
  while (Operation *def = pointer.getDefiningOp()) {
    if (auto gep = dyn_cast<LLVM::GEPOp>(def)) {
      pointer = gep.getBase();
      continue;
    }
    auto extract = dyn_cast<LLVM::ExtractValueOp>(def);
    if (!extract)
      break;
    Value container = extract.getContainer();
    auto insert = container.getDefiningOp<LLVM::InsertValueOp>();
    while (insert && insert.getPosition() != extract.getPosition())
      insert = insert.getContainer().getDefiningOp<LLVM::InsertValueOp>();
    if (!insert)
      break;
    pointer = insert.getValue();
  }
  return pointer;
}

/// The objects an assumption states apart, or nullopt where it states
/// something else too (it is then left as it is).
std::optional<SmallVector<std::pair<Value, Value>>>
separatePairs(LLVM::AssumeOp assume) {
  if (!matchPattern(assume.getCond(), m_One()) ||
      assume.getOpBundleTags() == std::nullopt)
    return std::nullopt;
  SmallVector<std::pair<Value, Value>> pairs;
  for (auto [tag, operands] :
       llvm::zip(*assume.getOpBundleTags(), assume.getOpBundleOperands())) {
    if (cast<StringAttr>(tag).getValue() != kSeparateStorage ||
        operands.size() != 2)
      return std::nullopt;
    pairs.emplace_back(underlyingObject(operands[0]),
                       underlyingObject(operands[1]));
  }
  return pairs;
}

/// `scopes` with `scope` added, as an array attribute.
ArrayAttr withScope(ArrayAttr scopes, Attribute scope) {
  SmallVector<Attribute> all;
  if (scopes)
    llvm::append_range(all, scopes.getValue());
  if (!llvm::is_contained(all, scope))
    all.push_back(scope);
  return ArrayAttr::get(scope.getContext(), all);
}

void restateAssumptions(LLVM::LLVMFuncOp func) {
  SmallVector<std::pair<LLVM::AssumeOp, SmallVector<std::pair<Value, Value>>>>
      assumptions;
  func.walk([&](LLVM::AssumeOp assume) {
    if (std::optional<SmallVector<std::pair<Value, Value>>> pairs =
            separatePairs(assume))
      assumptions.emplace_back(assume, std::move(*pairs));
  });
  if (assumptions.empty())
    return;
  MLIRContext *ctx = func.getContext();
  auto domain = LLVM::AliasScopeDomainAttr::get(
      ctx, StringAttr::get(ctx, "separate storage"));
  DenseMap<Value, LLVM::AliasScopeAttr> scopes;
  auto scopeOf = [&](Value object) {
    auto [it, inserted] = scopes.try_emplace(object);
    if (inserted)
      it->second = LLVM::AliasScopeAttr::get(domain);
    return it->second;
  };
  for (auto &[assume, pairs] : assumptions)
    for (auto [one, other] : pairs)
      if (one != other) {
        scopeOf(one);
        scopeOf(other);
      }

  DominanceInfo dominance(func);
  func.walk([&](LLVM::AliasAnalysisOpInterface access) {
    SmallVector<Value> pointers = access.getAccessedOperands();
    // An access of several pointers (a memcpy) would need all of them in
    // the scopes it joins.
    if (pointers.size() != 1)
      return;
    Value object = underlyingObject(pointers.front());
    auto scope = scopes.lookup(object);
    if (!scope)
      return;
    access.setAliasScopes(withScope(access.getAliasScopesOrNull(), scope));
    for (auto &[assume, pairs] : assumptions) {
      if (!dominance.properlyDominates(assume, access))
        continue;
      for (auto [one, other] : pairs) {
        if (one == other || (object != one && object != other))
          continue;
        access.setNoAliasScopes(withScope(access.getNoAliasScopesOrNull(),
                                          scopes[object == one ? other : one]));
      }
    }
  });
  for (auto &[assume, pairs] : assumptions)
    assume.erase();
}

struct SeparateStorageToAliasScopesPass
    : recurrence::impl::SeparateStorageToAliasScopesPassBase<
          SeparateStorageToAliasScopesPass> {
  void runOnOperation() override { getOperation()->walk(restateAssumptions); }
};
} // namespace
