//===- StructureInterface.td - What a structure is ---------*- tablegen -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_IR_STRUCTUREINTERFACE_TD
#define RECURRENCE_DIALECT_RECURRENCE_IR_STRUCTUREINTERFACE_TD

include "mlir/IR/OpBase.td"

def RecurrenceStructureInterface : AttrInterface<"RecurrenceStructureInterface"> {
  let cppNamespace = "::mlir::recurrence";
  let description = [{
    Everything the compiler knows about one structure of the transitions
    A_t: its operands and their shapes, how its channels split, its
    arithmetic as linalg on tensors, the form its products take, its costs
    and the schedules it allows. The verifier, the tiling, the cost model
    and every schedule are generic code over this interface; an attribute
    that implements it, in any dialect, is a structure `recurrence.scan`
    accepts.

    States are canonical: a vector state [N] is an N x 1 matrix [N, D], and
    a structure with a state depth m carries the stack [m, N, D] of its m
    most recent states, newest first.
  }];

  let methods = [
    //===------------------------------------------------------------------===//
    // Operands
    //===------------------------------------------------------------------===//
    InterfaceMethod<"The structure's name in diagnostics, e.g. `dplr<2>`.",
      "std::string", "getStructureName">,
    InterfaceMethod<[{
        How the structure is written with its parameter named, e.g.
        `block_diagonal<m>`, for messages and front doors.
      }],
      "std::string", "getSyntax", (ins), [{}],
      [{ return $_attr.getStructureName(); }]>,
    InterfaceMethod<[{
        The same structure with parameter `param` (the block size, rank or
        order), or null when it takes none or `param` is below 1. Front doors
        read the parameter off operand shapes with it.
      }],
      "::mlir::Attribute", "withParameter", (ins "int64_t":$param),
      [{}], [{ return {}; }]>,
    InterfaceMethod<"The number of transition operands.",
      "unsigned", "getNumTransitionOperands">,
    InterfaceMethod<[{
        The name of transition operand `index` in messages and front doors,
        e.g. `a`, or `d`, `U`, `V`.
      }],
      "std::string", "getTransitionOperandName", (ins "unsigned":$index),
      [{}], [{ return "a"; }]>,
    InterfaceMethod<[{
        The shape of transition operand `index` at one step of one batch
        element, for state size `size` and `columns` columns (either may be
        ShapedType::kDynamic). `perElement` asks for the per-element variant.
      }],
      "::llvm::SmallVector<int64_t>", "getTransitionStep",
      (ins "unsigned":$index, "int64_t":$size, "int64_t":$columns,
           "bool":$perElement)>,
    InterfaceMethod<[{
        Whether the first operand may also be given per state element, with
        a trailing D dim on a matrix state.
      }],
      "bool", "allowsPerElement", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<"Checks a static state size N; emits and fails if unfit.",
      "::llvm::LogicalResult", "verifyStateSize",
      (ins "int64_t":$size,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError),
      [{}], [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{
        The number m of past states the recurrence reads (the state is the
        stack [m, N, D]), or 0 for a plain [N, D] state.
      }],
      "int64_t", "getStateDepth", (ins), [{}], [{ return 0; }]>,

    //===------------------------------------------------------------------===//
    // Channels
    //===------------------------------------------------------------------===//
    InterfaceMethod<[{
        The size g of the channel groups that evolve independently (channel
        n reads only channels of its own group of g), or 0 when A_t couples
        all channels. Channel tiles are whole groups.
      }],
      "int64_t", "getChannelGroup">,
    InterfaceMethod<[{
        The dim of transition operand `index`'s step shape that indexes
        channel groups (it has N / g entries), or std::nullopt when the
        operand is shared by all channels.
      }],
      "std::optional<unsigned>", "getChannelDim", (ins "unsigned":$index),
      [{}], [{ return 0u; }]>,
    InterfaceMethod<[{
        Whether these operands make every A_t the identity, so that the
        scan may drop them.
      }],
      "bool", "isIdentity", (ins "::mlir::ValueRange":$operands),
      [{}], [{ return false; }]>,
    InterfaceMethod<[{
        The structure that runs packed sequences (`offsets`), which restart
        by a zero transition: one whose operands scaled by zero give
        A_t = 0. The structure itself by default; one without operands
        (A_t = I) names one whose operands filled with ones give A_t = I.
        Only first-order structures run packed sequences.
      }],
      "::mlir::Attribute", "getRestartingStructure", (ins), [{}],
      [{ return $_attr; }]>,

    //===------------------------------------------------------------------===//
    // Arithmetic
    //===------------------------------------------------------------------===//
    InterfaceMethod<[{
        Builds A_t h + b_t as an [N, D] tensor: the new newest state. The
        operands are sliced to their step shapes (scalars for rank 0);
        `state` is canonical (a stack when the depth is m > 0).
      }],
      "::mlir::Value", "buildApply",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::ValueRange":$operands, "bool":$perElement,
           "::mlir::Value":$state,
           "const ::mlir::recurrence::StepInput &":$input)>,
    InterfaceMethod<[{
        Whether the step runs in place: buildApply writes A_t h + b_t over
        `state`, and buildApplyAndCopy has a fused form.
      }],
      "bool", "hasApplyAndCopy", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        For structures whose step runs in place (elementwise ones, dplr):
        A_t h + b_t computed in place of `state` and written into `copy` by
        the same loop; returns {new state, new
        copy}. std::nullopt where the structure has no such form.
      }],
      "std::optional<std::pair<::mlir::Value, ::mlir::Value>>",
      "buildApplyAndCopy",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::ValueRange":$operands, "bool":$perElement,
           "::mlir::Value":$state,
           "const ::mlir::recurrence::StepInput &":$input,
           "::mlir::Value":$copy),
      [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        The form that products A_j ... A_i take (dplr is not closed under
        products and densifies), and its block size for blocked forms.
      }],
      "::mlir::recurrence::CompositeForm", "getCompositeForm">,
    InterfaceMethod<"The m of a Blocks or Companion composite form.",
      "int64_t", "getCompositeBlockSize", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<[{
        The rank r where each step is a diagonal plus a low-rank term,
        A_t = diag(d) + U V^T, its transition operands being d, U and V in
        that order ([N], [N, r] and [N, r] per step); std::nullopt for any
        other step. Lowerings that spread a column's states over lanes read
        it: such a step needs only r sums over the column.
      }],
      "std::optional<int64_t>", "getLowRankUpdate", (ins), [{}],
      [{ return std::nullopt; }]>,
    InterfaceMethod<"One step's A_t in the composite form.",
      "::mlir::Value", "buildStepComposite",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::ValueRange":$operands, "bool":$perElement)>,

    //===------------------------------------------------------------------===//
    // Derivatives
    //===------------------------------------------------------------------===//
    InterfaceMethod<[{
        The transitions of the adjoint recurrence. `operands` are the full
        transition operands [B, T, step...] of a forward scan with one batch
        dim; the result holds operands of the same structure over T + m
        steps (m the state depth, 0 for a first-order state) that a reverse
        scan runs to get the cotangents of h_{1-m} ... h_T. For a first-order
        state, step p holds A_{p+1}^T, the transpose of forward step p + 1
        (the adjoint reads it shifted by a step: a view, not a copy). For a
        state of depth m, step p holds, for lag i, the coefficient of forward
        step p + i + 1 (the transition that maps h_s, s = p + 1 - m,
        forward); zeros where that step is outside 1..T.
      }],
      "::llvm::SmallVector<::mlir::Value>", "buildAdjointTransition",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::ValueRange":$operands, "bool":$perElement)>,
    InterfaceMethod<[{
        The gradients of the transition operands [B, T, step...]: the dense
        cotangent of A_t, sum over d of `cotangent`[b, t, :, d] (the
        cotangent of each step's new state, [B, T, N, D]) times
        `previous`[b, t, :, d] (the state each step read, [B, T, N, D] or
        the stack [B, T, m, N, D]) transposed, projected onto the entries
        the structure has. One value per operand, shaped like it.
      }],
      "::llvm::SmallVector<::mlir::Value>", "buildTransitionGradient",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::ValueRange":$operands, "bool":$perElement,
           "::mlir::Value":$cotangent, "::mlir::Value":$previous)>,

    //===------------------------------------------------------------------===//
    // Policy
    //===------------------------------------------------------------------===//
    InterfaceMethod<[{
        Per-step work and sizes at state size `size` and `columns` columns,
        read by the cost model.
      }],
      "::mlir::recurrence::StructureCosts", "getCosts",
      (ins "double":$size, "double":$columns, "bool":$perElement)>,
    InterfaceMethod<[{
        Whether `schedule` may evaluate this structure at a static state size
        `size` (ShapedType::kDynamic: unknown); emits the reason through
        `emitError` when it may not. Callers that only ask pass an emitter of
        empty diagnostics.
      }],
      "::llvm::LogicalResult", "checkSchedule",
      (ins "::mlir::recurrence::ScheduleKind":$schedule, "int64_t":$size,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError),
      [{}], [{ return ::mlir::success(); }]>,
  ];
}

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_STRUCTUREINTERFACE_TD
