//===- LruStructure.cpp - A structure defined outside Recurrence ----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A new structure in one file, as a downstream project writes it: the `lru`
// dialect with one attribute, `#lru.rotation`, that implements
// RecurrenceStructureInterface. It is the LRU's complex diagonal stored as
// 2 x 2 rotation-scaling blocks, each given by its magnitude and angle (2
// numbers per pair of channels instead of 4):
//
//   [h_{2k}, h_{2k+1}]_t = rho_t[k] R(theta_t[k]) [h_{2k}, h_{2k+1}]_{t-1}
//                          + [b_{2k}, b_{2k+1}]_t
//
// with rho, theta: [..., T, N/2] and R(theta) = [[cos, -sin], [sin, cos]].
// Products of rotation-scalings are 2 x 2 blocks, so every schedule runs it
// through the Blocks composite form. Nothing of Recurrence is linked: the
// symbols come from the tool that loads the plugin, so a stock mlir-opt must
// load libRecurrencePlugin.so first (else this one fails to load, with a
// message).
//
//   recurrence-opt --load-dialect-plugin=libLruStructure.so ...
//   mlir-opt --load-dialect-plugin=libRecurrencePlugin.so \
//            --load-dialect-plugin=libLruStructure.so ...
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;
using namespace mlir::recurrence;

namespace lru {

class RotationAttr
    : public Attribute::AttrBase<RotationAttr, Attribute, AttributeStorage,
                                 RecurrenceStructureInterface::Trait> {
public:
  using Base::Base;
  static constexpr StringLiteral name = "lru.rotation";

  static RotationAttr get(MLIRContext *context) { return Base::get(context); }

  std::string getStructureName() const { return "#lru.rotation"; }
  unsigned getNumTransitionOperands() const { return 2; }
  std::string getTransitionOperandName(unsigned index) const {
    return index == 0 ? "rho" : "theta";
  }

  /// rho and theta: one number per pair of channels.
  SmallVector<int64_t> getTransitionStep(unsigned, int64_t size, int64_t,
                                         bool) const {
    return {ShapedType::isDynamic(size) ? size : size / 2};
  }

  LogicalResult
  verifyStateSize(int64_t size,
                  function_ref<InFlightDiagnostic()> emitError) const {
    if (size % 2 == 0)
      return success();
    return emitError() << "#lru.rotation acts on pairs of channels and needs "
                          "an even N, got N = "
                       << size;
  }

  int64_t getChannelGroup() const { return 2; }

  /// The [N/2, 2, 2] blocks rho R(theta).
  Value buildBlocks(OpBuilder &b, Location loc, ValueRange operands) const {
    Value rho = operands[0], theta = operands[1];
    auto type = cast<RankedTensorType>(rho.getType());
    SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, rho, 0),
                                       b.getIndexAttr(2), b.getIndexAttr(2)};
    Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
    MLIRContext *context = b.getContext();
    AffineMap pairs = AffineMap::get(3, 0, {b.getAffineDimExpr(0)}, context);
    AffineMap all = AffineMap::getMultiDimIdentityMap(3, context);
    auto parallel = utils::IteratorType::parallel;
    auto op = linalg::GenericOp::create(
        b, loc, empty.getType(), ValueRange{rho, theta}, empty,
        ArrayRef<AffineMap>{pairs, pairs, all},
        SmallVector<utils::IteratorType>(3, parallel),
        [](OpBuilder &nb, Location nl, ValueRange args) {
          // Row i, column j: cos on the diagonal, -sin above, sin below.
          Value i = linalg::IndexOp::create(nb, nl, 1);
          Value j = linalg::IndexOp::create(nb, nl, 2);
          Value cos = math::CosOp::create(nb, nl, args[1]);
          Value sin = math::SinOp::create(nb, nl, args[1]);
          Value negSin = arith::NegFOp::create(nb, nl, sin);
          Value diagonal =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, i, j);
          Value above =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, i, j);
          Value off = arith::SelectOp::create(nb, nl, above, negSin, sin);
          Value entry = arith::SelectOp::create(nb, nl, diagonal, cos, off);
          linalg::YieldOp::create(
              nb, nl, Value(arith::MulFOp::create(nb, nl, args[0], entry)));
        });
    return op.getResult(0);
  }

  Value buildApply(OpBuilder &b, Location loc, ValueRange operands, bool,
                   Value state, const StepInput &input) const {
    return applyBlocks(b, loc, 2, buildBlocks(b, loc, operands), state,
                       materializeInput(b, loc, input));
  }

  CompositeForm getCompositeForm() const { return CompositeForm::Blocks; }
  int64_t getCompositeBlockSize() const { return 2; }

  Value buildStepComposite(OpBuilder &b, Location loc, ValueRange operands,
                           bool) const {
    return buildBlocks(b, loc, operands);
  }

  /// The adjoint runs the transposes rho R(-theta).
  SmallVector<Value> buildAdjointTransition(OpBuilder &b, Location loc,
                                            ValueRange operands, bool) const {
    Value theta = operands[1];
    Value negated = linalg::NegFOp::create(b, loc, ValueRange{theta},
                                           ValueRange{emptyLike(b, loc, theta)})
                        .getResult(0);
    return {operands[0], negated};
  }

  /// With G the cotangent of a block (sum_d lambda h^T per pair):
  /// drho = <G, R(theta)> and dtheta = rho <G, R'(theta)>.
  SmallVector<Value> buildTransitionGradient(OpBuilder &b, Location loc,
                                             ValueRange operands, bool,
                                             Value cotangent,
                                             Value previous) const {
    auto parallel = utils::IteratorType::parallel;
    auto reduction = utils::IteratorType::reduction;
    Value rho = operands[0], theta = operands[1];
    // Loops (b, t, k, i, j, d): G[b, t, k, i, j] += lambda[b, t, k, i, d] *
    // h[b, t, k, j, d].
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, rho);
    sizes.append({b.getIndexAttr(2), b.getIndexAttr(2)});
    Type elementType = cast<RankedTensorType>(rho.getType()).getElementType();
    Value blocks =
        contract(b, loc, 6, splitDim(b, loc, cotangent, 2, 2), {0, 1, 2, 3, 5},
                 splitDim(b, loc, previous, 2, 2), {0, 1, 2, 4, 5},
                 zeroTensor(b, loc, sizes, elementType), {0, 1, 2, 3, 4},
                 {parallel, parallel, parallel, parallel, parallel, reduction});
    MLIRContext *context = b.getContext();
    AffineMap pairs = AffineMap::get(
        5, 0,
        {b.getAffineDimExpr(0), b.getAffineDimExpr(1), b.getAffineDimExpr(2)},
        context);
    AffineMap all = AffineMap::getMultiDimIdentityMap(5, context);
    Value dRho = zerosLike(b, loc, rho), dTheta = zerosLike(b, loc, theta);
    auto op = linalg::GenericOp::create(
        b, loc, TypeRange{dRho.getType(), dTheta.getType()},
        ValueRange{rho, theta, blocks}, ValueRange{dRho, dTheta},
        ArrayRef<AffineMap>{pairs, pairs, all, pairs, pairs},
        {parallel, parallel, parallel, reduction, reduction},
        [](OpBuilder &nb, Location nl, ValueRange args) {
          // R[i][j] and its derivative R'[i][j]: (cos, -sin; sin, cos) and
          // (-sin, -cos; cos, -sin).
          Value i = linalg::IndexOp::create(nb, nl, 3);
          Value j = linalg::IndexOp::create(nb, nl, 4);
          Value cos = math::CosOp::create(nb, nl, args[1]);
          Value sin = math::SinOp::create(nb, nl, args[1]);
          Value negSin = arith::NegFOp::create(nb, nl, sin);
          Value negCos = arith::NegFOp::create(nb, nl, cos);
          Value diagonal =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, i, j);
          Value above =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, i, j);
          Value entry = arith::SelectOp::create(
              nb, nl, diagonal, cos,
              arith::SelectOp::create(nb, nl, above, negSin, sin));
          Value slope = arith::SelectOp::create(
              nb, nl, diagonal, negSin,
              arith::SelectOp::create(nb, nl, above, negCos, cos));
          Value g = args[2];
          Value rhoSum = arith::AddFOp::create(
              nb, nl, args[3], arith::MulFOp::create(nb, nl, g, entry));
          Value thetaSum = arith::AddFOp::create(
              nb, nl, args[4],
              arith::MulFOp::create(nb, nl, args[0],
                                    arith::MulFOp::create(nb, nl, g, slope)));
          linalg::YieldOp::create(nb, nl, ValueRange{rhoSum, thetaSum});
        });
    return {op.getResult(0), op.getResult(1)};
  }

  StructureCosts getCosts(double n, double d, bool) const {
    // Building a block costs a sine, a cosine and four products.
    return {4 * n * d + 3 * n, 4 * n, 4 * n * d, n, 2 * n, n * d};
  }
};

class LruDialect : public Dialect {
public:
  explicit LruDialect(MLIRContext *context)
      : Dialect(getDialectNamespace(), context, TypeID::get<LruDialect>()) {
    addAttributes<RotationAttr>();
    getContext()
        ->loadDialect<RecurrenceDialect, linalg::LinalgDialect,
                      math::MathDialect, tensor::TensorDialect>();
  }
  static StringRef getDialectNamespace() { return "lru"; }

  Attribute parseAttribute(DialectAsmParser &parser, Type) const override {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return {};
    if (keyword == "rotation")
      return RotationAttr::get(getContext());
    parser.emitError(loc) << "unknown attribute '" << keyword
                          << "' in dialect 'lru'; expected 'rotation'";
    return {};
  }

  void printAttribute(Attribute attr,
                      DialectAsmPrinter &printer) const override {
    if (isa<RotationAttr>(attr))
      printer << "rotation";
  }
};

} // namespace lru

MLIR_DECLARE_EXPLICIT_TYPE_ID(lru::LruDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(lru::LruDialect)

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {
      MLIR_PLUGIN_API_VERSION, "LruStructure", LLVM_VERSION_STRING,
      [](DialectRegistry *registry) { registry->insert<lru::LruDialect>(); }};
}
