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
// this pass restates such assumptions as alias scopes.
//
// Metadata holds for every execution of an access, while an assumption
// holds where it is made. The two agree for a pair of objects that are
// apart on every execution: a function's arguments (the same buffers all
// through the call) against each other or against an allocation (fresh
// memory never overlaps a buffer the caller holds). Two allocations may
// reuse each other's memory from one loop iteration to the next, and a
// pointer followed back to anything else may change from one to the next,
// so such pairs keep their assumption.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_SEPARATESTORAGETOALIASSCOPESPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
constexpr StringLiteral kSeparateStorage = "separate_storage";

using ObjectPairs = SmallVector<std::pair<Value, Value>>;

/// The pointer inserted into the struct that `extract` reads, at its
/// position, or null where an insertion of an enclosing or enclosed part
/// (a prefix of the position, or the position a prefix of it) or anything
/// but an insertion stands in between.
Value insertedAt(LLVM::ExtractValueOp extract) {
  ArrayRef<int64_t> position = extract.getPosition();
  auto insert = extract.getContainer().getDefiningOp<LLVM::InsertValueOp>();
  for (; insert;
       insert = insert.getContainer().getDefiningOp<LLVM::InsertValueOp>()) {
    ArrayRef<int64_t> written = insert.getPosition();
    size_t common = std::min(written.size(), position.size());
    if (written.take_front(common) != position.take_front(common))
      continue;
    return written == position ? insert.getValue() : nullptr;
  }
  return nullptr;
}

/// Whether `value` is an allocation's result: a stack slot or a call of the
/// C allocation functions the memref lowering emits.
bool isAllocation(Value value) {
  if (value.getDefiningOp<LLVM::AllocaOp>())
    return true;
  auto call = value.getDefiningOp<LLVM::CallOp>();
  std::optional<StringRef> callee = call ? call.getCallee() : std::nullopt;
  return callee &&
         llvm::is_contained({StringRef("malloc"), StringRef("aligned_alloc"),
                             StringRef("calloc")},
                            *callee);
}

/// The object `pointer` points into, followed back through GEPs and through
/// the insertions of a struct (a memref descriptor) to the pointer inserted
/// at the extracted position: an argument of `func`'s entry block or an
/// allocation's result. Null for anything else.
Value underlyingObject(Value pointer, LLVM::LLVMFuncOp func) {
  while (pointer) {
    if (auto argument = dyn_cast<BlockArgument>(pointer))
      return argument.getOwner() == &func.getBody().front() ? pointer : nullptr;
    if (isAllocation(pointer))
      return pointer;
    if (auto gep = pointer.getDefiningOp<LLVM::GEPOp>())
      pointer = gep.getBase();
    else if (auto extract = pointer.getDefiningOp<LLVM::ExtractValueOp>())
      pointer = insertedAt(extract);
    else
      return nullptr;
  }
  return nullptr;
}

/// The objects an assumption states apart, or nullopt where it states
/// something else too, or a pair whose separation may not hold on every
/// execution (the assumption is then left as it is).
std::optional<ObjectPairs> separatePairs(LLVM::AssumeOp assume,
                                         LLVM::LLVMFuncOp func) {
  if (!matchPattern(assume.getCond(), m_One()) || !assume.getOpBundleTags())
    return std::nullopt;
  ObjectPairs pairs;
  for (auto [tag, operands] :
       llvm::zip(*assume.getOpBundleTags(), assume.getOpBundleOperands())) {
    if (cast<StringAttr>(tag).getValue() != kSeparateStorage ||
        operands.size() != 2)
      return std::nullopt;
    Value one = underlyingObject(operands[0], func);
    Value other = underlyingObject(operands[1], func);
    if (!one || !other || one == other ||
        (isAllocation(one) && isAllocation(other)))
      return std::nullopt;
    pairs.emplace_back(one, other);
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

/// Puts `access` of `object` in its scope and, for each assumption that
/// dominates it, out of the scopes of the objects stated apart from it.
void annotate(LLVM::AliasAnalysisOpInterface access, Value object,
              ArrayRef<std::pair<LLVM::AssumeOp, ObjectPairs>> assumptions,
              const DenseMap<Value, LLVM::AliasScopeAttr> &scopes,
              DominanceInfo &dominance) {
  access.setAliasScopes(
      withScope(access.getAliasScopesOrNull(), scopes.lookup(object)));
  for (const auto &[assume, pairs] : assumptions) {
    if (!dominance.properlyDominates(assume, access))
      continue;
    for (auto [one, other] : pairs)
      if (object == one || object == other)
        access.setNoAliasScopes(
            withScope(access.getNoAliasScopesOrNull(),
                      scopes.lookup(object == one ? other : one)));
  }
}

void restateAssumptions(LLVM::LLVMFuncOp func) {
  SmallVector<std::pair<LLVM::AssumeOp, ObjectPairs>> assumptions;
  func.walk([&](LLVM::AssumeOp assume) {
    if (std::optional<ObjectPairs> pairs = separatePairs(assume, func))
      assumptions.emplace_back(assume, std::move(*pairs));
  });
  if (assumptions.empty())
    return;
  MLIRContext *ctx = func.getContext();
  auto domain = LLVM::AliasScopeDomainAttr::get(
      ctx, StringAttr::get(ctx, "separate storage"));
  DenseMap<Value, LLVM::AliasScopeAttr> scopes;
  for (const auto &[assume, pairs] : assumptions)
    for (auto [one, other] : pairs)
      for (Value object : {one, other})
        if (!scopes.count(object))
          scopes[object] = LLVM::AliasScopeAttr::get(domain);

  // Loads and stores only: the scopes of a call would cover all the memory
  // its callee reaches, not just its pointer argument.
  DominanceInfo dominance(func);
  func.walk([&](Operation *op) {
    if (!isa<LLVM::LoadOp, LLVM::StoreOp>(op))
      return;
    auto access = cast<LLVM::AliasAnalysisOpInterface>(op);
    Value object = underlyingObject(access.getAccessedOperands().front(), func);
    if (object && scopes.count(object))
      annotate(access, object, assumptions, scopes, dominance);
  });
  for (auto &entry : assumptions)
    entry.first.erase();
}

struct SeparateStorageToAliasScopesPass
    : recurrence::impl::SeparateStorageToAliasScopesPassBase<
          SeparateStorageToAliasScopesPass> {
  void runOnOperation() override { getOperation()->walk(restateAssumptions); }
};
} // namespace
