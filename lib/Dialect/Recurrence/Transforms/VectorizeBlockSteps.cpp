//===- VectorizeBlockSteps.cpp - Small block products a vector at a time --===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A block_diagonal<m> step multiplies G blocks of m x m by G vectors of m.
// LLVM vectorizes such a loop nest over the blocks, where every term's
// operand lies m * m elements from the next block's (a gather), or not at
// all. For small m a group of blocks fills a vector register exactly: load
// the group's blocks, states and accumulators contiguously, and shuffle the
// loaded values into place for each term.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_VECTORIZEBLOCKSTEPSPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {
/// The mulf and addf of `out + a * h`, the body of a block product, or
/// failure.
FailureOr<std::pair<arith::MulFOp, arith::AddFOp>>
matchMultiplyAdd(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return failure();
  auto mul = dyn_cast<arith::MulFOp>(body.front());
  auto add = dyn_cast<arith::AddFOp>(*std::next(body.begin()));
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!mul || !add || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != add.getResult())
    return failure();
  Value a = body.getArgument(0), h = body.getArgument(1),
        out = body.getArgument(2);
  bool multipliesInputs = (mul.getLhs() == a && mul.getRhs() == h) ||
                          (mul.getLhs() == h && mul.getRhs() == a);
  bool addsToOut = (add.getLhs() == out && add.getRhs() == mul.getResult()) ||
                   (add.getRhs() == out && add.getLhs() == mul.getResult());
  if (!multipliesInputs || !addsToOut)
    return failure();
  return std::make_pair(mul, add);
}

} // namespace

LogicalResult mlir::recurrence::vectorizeBlockProduct(RewriterBase &rewriter,
                                                      linalg::GenericOp op,
                                                      int64_t vectorBits,
                                                      int64_t maxBlock) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 4)
    return rewriter.notifyMatchFailure(op, "not a product of two tensors");
  using utils::IteratorType;
  if (op.getIteratorTypesArray() !=
      SmallVector<IteratorType>{IteratorType::parallel, IteratorType::parallel,
                                IteratorType::parallel,
                                IteratorType::reduction})
    return rewriter.notifyMatchFailure(op, "not (g, i, d) by j");
  MLIRContext *context = op.getContext();
  AffineExpr g, i, d, j;
  bindDims(context, g, i, d, j);
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(4, 0, results, context);
  };
  if (op.getIndexingMapsArray() !=
      SmallVector<AffineMap>{map({g, i, j}), map({g, j, d}), map({g, i, d})})
    return rewriter.notifyMatchFailure(op, "not a batch of block products");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t m = ranges[1];
  if (ShapedType::isDynamic(m) || m < 2 || m > maxBlock || ranges[3] != m ||
      ranges[2] != 1)
    return rewriter.notifyMatchFailure(op, "not small square blocks, D = 1");
  FailureOr<std::pair<arith::MulFOp, arith::AddFOp>> body =
      matchMultiplyAdd(op);
  if (failed(body))
    return rewriter.notifyMatchFailure(op, "not a multiply-add");
  Type element = body->first.getType();
  Value blocks = op.getDpsInputs()[0], state = op.getDpsInputs()[1],
        out = op.getDpsInits()[0];
  for (Value operand : {blocks, state, out})
    if (getElementTypeOrSelf(operand) != element)
      return rewriter.notifyMatchFailure(op, "mixed element types");
  int64_t bits = element.getIntOrFloatBitWidth();
  // Blocks per group: a group's states and accumulators fill one vector.
  int64_t group = vectorBits / (bits * m);
  if (group < 2 || group * m * bits != vectorBits)
    return rewriter.notifyMatchFailure(op, "blocks do not fill a vector");

  Location loc = op.getLoc();
  auto flat = [&](Value tensor) {
    return tensor::CollapseShapeOp::create(
        rewriter, loc, tensor, SmallVector<ReassociationIndices>{{0, 1, 2}});
  };
  Value flatBlocks = flat(blocks), flatState = flat(state), flatOut = flat(out);
  OpFoldResult count = tensor::getMixedSize(rewriter, loc, blocks, 0);
  Value countValue = getValueOrCreateConstantIndexOp(rewriter, loc, count);
  Value groupSize = arith::ConstantIndexOp::create(rewriter, loc, group);
  Value whole = arith::MulIOp::create(
      rewriter, loc,
      arith::DivUIOp::create(rewriter, loc, countValue, groupSize), groupSize);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value padding = arith::ConstantOp::create(rewriter, loc, element,
                                            rewriter.getZeroAttr(element));
  auto lanes = VectorType::get({group * m}, element);
  auto blockLanes = VectorType::get({group * m * m}, element);

  auto loop = scf::ForOp::create(
      rewriter, loc, zero, whole, groupSize, ValueRange{flatOut},
      [&](OpBuilder &b, Location loc, Value first, ValueRange iterArgs) {
        auto offset = [&](int64_t elements) -> Value {
          return arith::MulIOp::create(
              b, loc, first, arith::ConstantIndexOp::create(b, loc, elements));
        };
        Value stateOffset = offset(m), blockOffset = offset(m * m);
        auto read = [&](VectorType type, Value from, Value at) -> Value {
          return vector::TransferReadOp::create(b, loc, type, from,
                                                ValueRange{at}, padding,
                                                ArrayRef<bool>{true});
        };
        Value a = read(blockLanes, flatBlocks, blockOffset);
        Value h = read(lanes, flatState, stateOffset);
        Value acc = read(lanes, iterArgs[0], stateOffset);
        for (int64_t term : llvm::seq(m)) {
          // Lane (k, r): block k's row r, its term-th column and state.
          SmallVector<int64_t> column, stateOfBlock;
          for (int64_t k : llvm::seq(group))
            for (int64_t r : llvm::seq(m)) {
              column.push_back((k * m + r) * m + term);
              stateOfBlock.push_back(k * m + term);
            }
          Value columnValues = vector::ShuffleOp::create(b, loc, a, a, column);
          Value stateValues =
              vector::ShuffleOp::create(b, loc, h, h, stateOfBlock);
          Value product = arith::MulFOp::create(
              b, loc, columnValues, stateValues, body->first.getFastmathAttr());
          acc = arith::AddFOp::create(b, loc, acc, product,
                                      body->second.getFastmathAttr());
        }
        Value written = vector::TransferWriteOp::create(
                            b, loc, acc, iterArgs[0], ValueRange{stateOffset},
                            ArrayRef<bool>{true})
                            .getResult();
        scf::YieldOp::create(b, loc, written);
      });
  auto outType = cast<RankedTensorType>(out.getType());
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, outType, loop.getResult(0),
      SmallVector<ReassociationIndices>{{0, 1, 2}},
      tensor::getMixedSizes(rewriter, loc, out));

  std::optional<int64_t> staticCount = getConstantIntValue(count);
  if (staticCount && *staticCount % group == 0) {
    rewriter.replaceOp(op, result);
    return success();
  }
  // The blocks after the last whole group: the same product on slices.
  OpFoldResult left =
      arith::SubIOp::create(rewriter, loc, countValue, whole).getResult();
  // Offsets and strides of the left-over slices, read and written back.
  SmallVector<OpFoldResult> offsets(3, rewriter.getIndexAttr(0)),
      strides(3, rewriter.getIndexAttr(1));
  offsets[0] = whole;
  auto slice = [&](Value tensor) -> Value {
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, tensor);
    sizes[0] = left;
    return tensor::ExtractSliceOp::create(rewriter, loc, tensor, offsets, sizes,
                                          strides);
  };
  Value restBlocks = slice(blocks), restState = slice(state),
        restOut = slice(result);
  auto rest = cast<linalg::GenericOp>(rewriter.clone(*op));
  rest->setOperands({restBlocks, restState, restOut});
  rest->getResult(0).setType(restOut.getType());
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
      op, rest->getResult(0), result, offsets,
      tensor::getMixedSizes(rewriter, loc, restOut), strides);
  return success();
}

namespace {
struct VectorizeBlockStepsPass
    : recurrence::impl::VectorizeBlockStepsPassBase<VectorizeBlockStepsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Each product once: the generic left for the remainder matches too.
    SmallVector<linalg::GenericOp> products;
    getOperation()->walk([&](linalg::GenericOp op) { products.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : products) {
      rewriter.setInsertionPoint(op);
      (void)vectorizeBlockProduct(rewriter, op, vectorBits, maxBlock);
    }
  }
};
} // namespace
