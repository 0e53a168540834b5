//===- Passes.td - Recurrence transformation passes --------*- tablegen -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_TD
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SplitSequencesPass : Pass<"recurrence-split-sequences"> {
  let summary = "Rewrite scans over packed sequences into plain scans";
  let description = [{
    Rewrites every `recurrence.scan` with `offsets` into the plain scan of
    the same steps whose transition is zero at the first step of each
    sequence (its last one when `reverse`): no state crosses a boundary,
    whatever the schedule, so every lowering runs it. Identity scans run as
    `scalar` ones (1 inside a sequence, 0 at its start). Each sequence's init
    enters as A_s h0_s added to the input of its first step, from a one-step
    scan over the sequences (a factored input is then formed as k v^T);
    each final state is read off the states at the sequence's last step, or
    is the init of an empty sequence. Where a final state is asked for with
    a readout, the scan keeps its states and the readout follows it.

    ```mlir
    %h0 = tensor.empty() : tensor<2x100x64xf32>
    %h = recurrence.scan diagonal transition(%a : tensor<2x100x64xf32>)
        input(%b : tensor<2x100x64xf32>)
        offsets(%cu_seqlens : tensor<4xi32>)
        outs(%h0 : tensor<2x100x64xf32>) -> tensor<2x100x64xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def LowerSequentialPass : Pass<"recurrence-lower-sequential"> {
  let summary = "Lower sequential recurrence.scan ops into loops on tensors";
  let description = [{
    Rewrites every `recurrence.scan` whose schedule is `sequential` into an
    `scf.forall` over
    the batch dims, each running an `scf.for` over time whose body applies
    one transition with `linalg.generic` ops that are parallel over the
    state's channels (and columns). Readout, factored input, init, reverse,
    higher-order stacks and the final state are all handled here; the
    per-structure arithmetic comes from the shared structure algebra.

    With `cores` > 1, a structure whose channels do not mix (identity,
    scalar, diagonal, higher_order, and block_diagonal in whole blocks)
    without a readout is also split into channel tiles when the batch alone
    has fewer elements than cores: upstream `scf::tileUsingSCF`, through the
    op's `TilingInterface`, makes an `scf.forall` over batch x tiles of
    smaller scans, so a single long sequence still uses every core. With static shapes the
    split takes the most tiles of one width that divides N, each of at least
    `min-channel-tile` channels: their per-step loops have a constant trip
    count and vectorize without remainders. Otherwise (dynamic shapes, or no
    such width) tile widths are computed at run time and hold at least
    `min-runtime-channel-tile` channels: on a CPU whose single core nearly
    saturates memory bandwidth, narrow run-time tiles are slower than one
    core streaming whole rows.

    Before:

    ```mlir
    %h0 = tensor.empty() : tensor<4x16x8xf32>
    %h = recurrence.scan diagonal schedule sequential
        transition(%a : tensor<4x16x8xf32>) input(%b : tensor<4x16x8xf32>)
        outs(%h0 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
    ```

    After (abridged):

    ```mlir
    %h = scf.forall (%i) in (4) shared_outs(%out = %empty) -> tensor<4x16x8xf32> {
      %slice = tensor.extract_slice %out[%i, 0, 0] [1, 16, 8] [1, 1, 1]
      %res:2 = scf.for %s = %c0 to %c16 step %c1 iter_args(%h = %zero, %o = %slice) {
        %new = linalg.generic ... // h = a_t * h + b_t
        ...
      }
      scf.forall.in_parallel { tensor.parallel_insert_slice ... }
    }
    ```
  }];
  let options = [
    Option<"cores", "cores", "int64_t", /*default=*/"0",
           "Cores to fill with batch x channel tiles (1: no channel tiles; "
           "0: the num_cores of the module's DLTI \"CPU\" device, else 1)">,
    Option<"minChannelTile", "min-channel-tile", "int64_t", /*default=*/"128",
           "The fewest channels in a tile of static width (times the block "
           "size)">,
    Option<"minRuntimeChannelTile", "min-runtime-channel-tile", "int64_t",
           /*default=*/"512",
           "The fewest channels in a tile whose width is known only at run "
           "time: its loops vectorize with remainders and alias checks, and "
           "narrower ones stream their rows worse than one core streams them "
           "all">,
    Option<"fixedChannelTile", "fixed-channel-tile", "int64_t",
           /*default=*/"0",
           "When positive, tiles of exactly this many channel blocks, "
           "whatever the cores (1: one per GPU thread); a matrix state "
           "gets tiles of one column too">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def DecomposeModelsPass : Pass<"recurrence-decompose-models"> {
  let summary = "Decompose model ops into recurrence.scan and upstream ops";
  let description = [{
    Replaces every `recurrence` op that implements
    `linalg::AggregatedOpInterface` (the model ops `normalize_gates`,
    `hlru`, `bdlru`, `linear_attention`, `delta_rule`, `selective_ssm`) by
    its decomposition: elementwise `linalg.generic` gates and feature maps,
    and `recurrence.scan` ops. The pipelines run it first.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def DifferentiatePass : Pass<"recurrence-differentiate", "::mlir::ModuleOp"> {
  let summary = "Emit the gradient function of every function of scans";
  let description = [{
    For each function with `recurrence.scan` or model ops, adds
    `<name>_grad`: reverse mode over the function's one block. Model ops are
    decomposed first and named linalg ops generalized, in a copy of the
    function: the function itself stays as written. The block's ops may be scans; `arith.addf`, `subf`, `mulf` and
    `negf` on tensors; `linalg.generic` ops with projected-permutation maps
    whose bodies are elementwise arithmetic (add, sub, mul, div, neg, max,
    min, select, exp, log1p, abs) or a sum of it, whose adjoints are
    generics over the same loops (reducing over the dims an operand's map
    leaves out); `tensor.extract_slice`, `insert_slice`, `cast`,
    `collapse_shape` and `expand_shape`; constants, `linalg.fill`, and the `tensor.empty` and
    `tensor.dim` of destinations. So a model's feature maps, gates,
    normalizations and broadcasts are differentiated with its scans. It
    takes the
    function's arguments followed by one cotangent per result, and returns
    one gradient per argument, shaped like it (zeros for arguments nothing
    differentiable reads). The primal ops are copied in first; the ones the
    sweep does not read are dropped.

    Each scan's gradients come from `buildScanAdjoint`: the states
    recomputed by the forward scan, the adjoint recurrence (the same
    structure, transposed transitions, run in the other direction, one step
    further to reach `init`), and the structure's projection of the
    transitions' cotangents. A declaration of `<name>_grad` with that type
    (for calls from the same module) gets this body. Functions without
    scans or model ops are left alone; other ops, and a name `<name>_grad` taken by
    anything else, are errors.

    ```mlir
    func.func @f(%a: tensor<?x?x4xf32>, %b: tensor<?x?x4xf32>)
        -> tensor<?x?x4xf32>
    // gains
    func.func @f_grad(%a: tensor<?x?x4xf32>, %b: tensor<?x?x4xf32>,
                      %dh: tensor<?x?x4xf32>)
        -> (tensor<?x?x4xf32>, tensor<?x?x4xf32>)
    ```
  }];
  let options = [
    Option<"checkpoint", "checkpoint", "int64_t", /*default=*/"0",
           "Recompute the states this many steps at a time from checkpoints "
           "(0: all at once), so that the gradient holds O(T/C + C) states "
           "rather than O(T)">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Where `checkpoint` is 0, the target (cpu or cuda) whose cost "
           "model picks each scan's checkpoint (TargetModel::"
           "adjointCheckpoint); none: every scan's states at once">,
    Option<"results", "results", "bool", /*default=*/"false",
           "The gradient takes the function's results after its arguments "
           "(then the cotangents), and the adjoint of a scan whose output "
           "is returned reads its states there rather than recomputing "
           "them (where the output holds them exactly: no readout, a "
           "first-order state of the output's element type)">,
    ListOption<"functions", "functions", "std::string",
               "Differentiate only these functions (default: every function "
               "of scans or model ops); `functions=f_grad` on the output of "
               "a first run gives second-order gradients">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def BufferizePass : Pass<"recurrence-bufferize", "::mlir::ModuleOp"> {
  let summary = "One-shot bufferization as the recurrence pipelines need it";
  let description = [{
    Runs one-shot module bufferization with function boundaries on plain
    (identity-layout) memrefs, lets loops return fresh buffers (a
    non-elementwise step builds its new state in one), and makes every copy
    a `linalg.copy`, which lowers to a vectorizable loop rather than the
    generic strided `memrefCopy` runtime call that a dynamically shaped
    `memref.copy` becomes.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def LowerChunkedPass : Pass<"recurrence-lower-chunked"> {
  let summary = "Lower chunked recurrence.scan ops with the three-phase algorithm";
  let description = [{
    Rewrites every `recurrence.scan` with schedule `chunked<C>` into three
    parallel phases over the batch and over the K = ceil(T / C) chunks of
    time:

    1. every chunk, in parallel, runs its steps from a zero state and
       composes its transitions: the chunk's local end state e_c and its
       product P_c = A_end ... A_start (in the form the structure keeps under
       composition: dplr densified, higher_order as companion blocks);
    2. a short loop over chunks carries the states across chunk boundaries,
       H_c = P_c H_{c-1} + e_c from H_0 = init, recording each chunk's start
       state (and the final state);
    3. every chunk, in parallel, runs its steps again from its true start
       state and writes its outputs (states or readout), which equals adding
       (A_t ... A_start) H_{c-1} to the local states.

    ```mlir
    %h0 = tensor.empty() : tensor<1x262144x256xf32>
    %h = recurrence.scan diagonal schedule chunked<256>
        transition(%a : tensor<1x262144x256xf32>)
        input(%b : tensor<1x262144x256xf32>)
        outs(%h0 : tensor<1x262144x256xf32>) -> tensor<1x262144x256xf32>
    ```

    With `tile-channels`, a scan whose channels are independent runs each
    phase per channel block as well (through the op's TilingInterface): the
    parallel phases over (batch, chunk, block), the carry over (batch,
    block). The GPU pipeline sets it: one thread per block and chunk, the
    blocks fastest, so that neighbouring threads read neighbouring channels.

    With `one-pass` as well (GPU only, since chunks wait for each other,
    which only a GPU's threads may do; `-recurrence-to-nvvm=one-pass=1`
    asks for it, measured slower than the three kernels), a scan whose lane state
    and composite are small and static runs the three phases in one
    parallel loop over (batch, chunk, block). Each chunk computes and
    publishes its local aggregate (e_c, P_c) in a buffer beside the
    tensors, then looks back over the chunks before it: it composes the
    aggregates it passes until it reaches a chunk that has published its
    inclusive end state H_j (or the first chunk, from init); that gives its
    start state H_{c-1}. It publishes H_c = P_c H_{c-1} + e_c and runs its
    steps again from H_{c-1} to write the outputs. A status per lane and
    chunk, written and read with atomics, orders the publications. The
    inputs stream from memory once instead of twice.
  }];
  let options = [
    Option<"tileChannels", "tile-channels", "bool", /*default=*/"false",
           "Run every phase per channel block where channels are independent">,
    Option<"onePass", "one-pass", "bool", /*default=*/"false",
           "With tile-channels, run the phases as one loop whose chunks look "
           "back for their start states (GPU only)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def LowerScanPass : Pass<"recurrence-lower-scan"> {
  let summary = "Lower scan-scheduled recurrence.scan ops to a Blelloch scan";
  let description = [{
    Rewrites every `recurrence.scan` with schedule `scan` into a
    work-efficient up-sweep / down-sweep scan over time on the pairs
    (A_t, b_t) with the associative combine
    (A2, b2) o (A1, b1) = (A2 A1, A2 b1 + b2): O(T) combines in O(log T)
    parallel levels, each level an `scf.forall` over the batch and the
    combines of that level. Each sweep runs ceil(log2 T) levels (a constant
    for a static T, computed with `math.ctlz` for a dynamic one). The
    initial state is folded into the first pair (b_1 := A_1 h_0 + b_1),
    after which every scanned b_t is h_t.

    Transitions are composed in the form their structure keeps under
    products; dplr<r> is densified to N x N, which is refused for N > 256
    (use `sequential` or `chunked`).

    ```mlir
    %h0 = tensor.empty() : tensor<8x4096x512xf32>
    %h = recurrence.scan block_diagonal<2> schedule scan
        transition(%A : tensor<8x4096x256x2x2xf32>)
        input(%b : tensor<8x4096x512xf32>)
        outs(%h0 : tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def SelectSchedulePass : Pass<"recurrence-select-schedule"> {
  let summary = "Choose a schedule for every `auto` recurrence.scan";
  let description = [{
    Estimates the time of each candidate schedule — `sequential`,
    `chunked<C>` for a few chunk sizes, and `scan` where it is legal — from
    the structure's per-step, composition and byte costs, the sizes (batch,
    T, N, m, r, D, element type) and the target (cores, memory bandwidth,
    compute rate), and writes the cheapest onto each `auto` op. An explicit
    schedule is never changed. With `explain`, each decision is reported as
    a remark listing every candidate's estimated time. When the batch size
    is only known at run time and the cheapest schedule differs between a
    batch smaller than the cores and a larger one, the op is cloned under an
    `scf.if` on the batch size with each regime's choice. On `cuda` the
    parallel units are GPU threads and the tasks lanes (batch elements x
    channel blocks): with a dynamic batch or N the op is cloned under
    `scf.if` on the lanes, the cheapest choice for one batch element below
    the lanes whose sequential threads would stream slower than the chunked
    kernels, sequential above. A scan that no allowed schedule can lower is
    an error.

    ```mlir
    // -recurrence-select-schedule="target=cuda explain=true"
    %h0 = tensor.empty() : tensor<1x262144x256xf32>
    %h = recurrence.scan diagonal transition(%a : tensor<1x262144x256xf32>)
        input(%b : tensor<1x262144x256xf32>)
        outs(%h0 : tensor<1x262144x256xf32>) -> tensor<1x262144x256xf32>
    // remark: schedule chunked<1024> chosen for cuda (270336 threads,
    //         4000 GB/s); estimated seconds: chunked<1024> ... sequential ...
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "The target: cpu or cuda">,
    Option<"cores", "cores", "int64_t", /*default=*/"0",
           "Parallel units (0: the num_cores of the module's DLTI \"CPU\" or "
           "\"GPU\" device, else 1 for cpu and 132 SMs for cuda)">,
    Option<"bandwidth", "bandwidth", "double", /*default=*/"0",
           "Memory bandwidth in GB/s (0: 50 for cpu, 4000 for cuda)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report every decision and the candidates' costs as remarks">,
    ListOption<"schedules", "schedules", "std::string",
               "The schedules to choose among (sequential, chunked, scan; "
               "empty: all three, which both targets lower): `auto` picks "
               "among them, and an explicit other one is an error">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def SinkMaterializeIntoBranchesPass
    : Pass<"recurrence-sink-materialize-into-branches"> {
  let summary = "Write the results of an scf.if into their destinations in "
                "each branch";
  let description = [{
    Where every result of an `scf.if` is written into a buffer by a
    `bufferization.materialize_in_destination` right after it (with nothing
    in between that touches memory), moves those writes into both branches
    and drops the results. A schedule chosen at run time (the cost model's
    `scf.if` over the batch or lanes) then computes straight into the
    caller's buffers: empty-tensor elimination replaces the destinations of
    each branch, where it would only replace those of one branch through
    the `scf.if` and leave the other to a temporary and a full copy.
    Likewise, a result whose only use is a `tensor.insert_slice` into a
    tensor that exists before the `scf.if` (the adjoint's states, padded by
    a step) is inserted in each branch, which then yields the larger tensor.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def UnshareInitTensorsPass : Pass<"recurrence-unshare-init-tensors"> {
  let summary = "Give each destination-style op its own empty or filled "
                "init tensor";
  let description = [{
    Where a `tensor.empty` (or a cast of one), or a `linalg.fill` of
    either, is the init of more than one destination-style op (CSE merges
    the identical fills of two reductions, say), clones it for every use
    but the first, next to that use; uses in exclusive branches of an
    `scf.if` keep sharing it. Runs before empty-tensor elimination: that
    replaces an empty tensor by the buffer a result is materialized in
    (`restrict`), which the bufferization analysis then takes to alias
    nothing else. A second
    result computed from the same fill would live in that buffer too, and
    the first result's write into it overwrites the second before it is
    written out. With one use each, only the first result's chain computes
    in the caller's buffer.

    Elimination follows an init back to an empty tensor through casts
    only, so a slice of one (which an earlier elimination leaves where the
    empty it sliced was a destination, replaced since), or a reshape of
    one, first becomes an empty tensor of its own (upstream's tensor.empty
    folds). The next elimination then puts it in the caller's buffer too,
    rather than leave a whole-sized temporary for one slice of it.

    ```mlir
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %a = linalg.generic ... outs(%z : tensor<4xf32>)
    %b = linalg.generic ... outs(%z : tensor<4xf32>)
    // becomes
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %a = linalg.generic ... outs(%z : tensor<4xf32>)
    %e2 = tensor.empty() : tensor<4xf32>
    %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
    %b = linalg.generic ... outs(%z2 : tensor<4xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def VectorizeBlockStepsPass : Pass<"recurrence-vectorize-block-steps"> {
  let summary = "Multiply a step's small diagonal blocks a vector of blocks at a time";
  let description = [{
    A block_diagonal<m> step is a batch of m x m matrix-vector products,
    `out[g, i] += A[g, i, j] * h[g, j]` (a `linalg.generic` over (g, i, d,
    j) with D = 1). Vectorized over g, each term reads A with a stride of
    m * m, which x86 can only gather; over i, the loop is m long. This pass
    rewrites such a generic on tensors, for m at most `max-block`, into a
    loop over groups of `vector-bits` / (m x element bits) blocks, which
    loads the group's blocks, state and accumulator as three contiguous
    vectors and adds the m terms as whole-vector products: term j takes the
    j-th column of every block (a shuffle of the loaded blocks) times each
    block's j-th state element (a shuffle of the loaded state). The sum
    runs in the loop's order with the body's own mulf and addf, so the
    results are the same bits. Blocks left over after the last whole group
    keep the original generic on their slices.

    ```mlir
    // block_diagonal<4> on f32, vector-bits = 512: 4 blocks per group.
    scf.for %g = %c0 to %whole step %c4 iter_args(%o = %out) {
      %a = vector.transfer_read %A[%g * 16] : tensor<?xf32>, vector<64xf32>
      %h = vector.transfer_read %H[%g * 4] : tensor<?xf32>, vector<16xf32>
      %x = vector.transfer_read %o[%g * 4] : tensor<?xf32>, vector<16xf32>
      %c0 = vector.shuffle %a, %a [0, 4, 8, 12, 16, ...] : vector<64xf32>, ...
      %h0 = vector.shuffle %h, %h [0, 0, 0, 0, 4, 4, 4, 4, ...] : ...
      ...
    }
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "The width of the target's vector registers in bits">,
    Option<"maxBlock", "max-block", "int64_t", /*default=*/"4",
           "The largest block size m vectorized this way">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def UnrollReductionsPass : Pass<"recurrence-unroll-reductions"> {
  let summary = "Write short reductions of linalg.generic ops out as sums";
  let description = [{
    Rewrites a `linalg.generic` on tensors whose only reduction loop of more
    than one iteration has a static extent k, at most `max-extent`, into a
    generic without that loop: each operand indexed by it is passed k times,
    the loop replaced by 0, ..., k-1 in its maps, and the body is applied k
    times in the loop's order, each application taking the previous one's
    results as its accumulators (the ops keep their fastmath flags). The
    sum runs in the loop's order, but each result element is now read and
    written once, not once per term, so code generation keeps the sum in a register without having to
    prove that the result does not alias the operands. A step's small
    contractions are such reductions: block_diagonal's m x m blocks, a
    dense transition or readout over a static N, higher_order's companion.
    Generics that use `linalg.index`, or with a result indexed by the loop,
    are left as they are.
  }];
  let options = [
    Option<"maxExtent", "max-extent", "int64_t", /*default=*/"16",
           "The longest reduction loop written out">,
  ];
}

def GpuLoadsInFlightPass : Pass<"recurrence-gpu-loads-in-flight"> {
  let summary = "Unroll GPU time loops and issue their operand loads first";
  let description = [{
    In every `gpu.launch`, unrolls each innermost `scf.for` whose trip
    count is not a small constant (the time loop of a sequential scan) by
    `unroll` (or by as many steps as issue `loads` loads, where that is
    fewer), then moves the loads of buffers the kernel never writes, with
    the index arithmetic they need, to the start of the loop body. A thread
    then has the operands of `unroll` steps in flight at once instead of one
    step's latency per step. A chunked phase's loop over one chunk, which
    its lowering marks with `recurrence.chunk_steps`, is unrolled by
    `chunk-unroll` instead: its kernel has a thread per chunk, and fewer
    registers per thread keep more of them resident; but by as many steps
    as issue `chunk-loads` loads where that is more (16 steps of a
    diagonal chunk's a_t and b_t). Moving those loads
    above the body's stores is
    sound because the operands a kernel only reads never overlap its
    results (the JIT's calling convention guarantees it).

    With `pipeline`, a time loop of static trip count is then pipelined in
    two stages by upstream's `scf::pipelineForLoop`: the next iteration's
    loads are issued while this one computes, each placed after the last
    reader of the same load of this iteration, so that a thread keeps
    `unroll` steps' loads in flight at all times instead of in bursts.
  }];
  let options = [
    Option<"unroll", "unroll", "int64_t", /*default=*/"8",
           "Steps whose loads are issued together (1: no unrolling)">,
    Option<"chunkUnroll", "chunk-unroll", "int64_t", /*default=*/"4",
           "The same in a chunked phase's loop over one chunk (marked "
           "`recurrence.chunk_steps`), whose kernel has many threads">,
    Option<"chunkLoads", "chunk-loads", "int64_t", /*default=*/"32",
           "A chunk's loop is unrolled by more than chunk-unroll where that "
           "many steps issue fewer loads than this (of the buffers the "
           "kernel only reads)">,
    Option<"pipeline", "pipeline", "bool", /*default=*/"true",
           "Issue the next unrolled iteration's loads while this one "
           "computes (loops of static trip count)">,
    Option<"maxLoads", "loads", "int64_t", /*default=*/"128",
           "A sequential time loop is unrolled by fewer than unroll steps "
           "where those would issue more loads than this (of the buffers "
           "the kernel only reads)">,
    Option<"prefetch", "prefetch", "int64_t", /*default=*/"0",
           "Prefetch into L2 what a sequential time loop's operand loads "
           "read this many steps later (0: none)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def GpuParallelizePass : Pass<"recurrence-gpu-parallelize"> {
  let summary = "Put every buffer access of host code into GPU-mappable loops";
  let description = [{
    After bufferization, for code bound for the GPU: every linalg op that is
    not already inside a parallel loop becomes an `scf.parallel` over its
    parallel dims (an op without any gets a one-iteration one), so that it
    runs as a kernel; the linalg ops inside parallel loops (a thread's step)
    become sequential loops. `memref.copy` becomes `linalg.copy` first.
    Then every outermost `scf.parallel` of a scan (its loop over batch,
    chunks and channel blocks) is flattened to one dim, the innermost
    fastest so that consecutive threads take consecutive channels, and
    tiled by `threads`. An elementwise loop nest becomes blocks over (row,
    tile of the inner run), where the rows are its dims before the last
    dynamic one and the run the rest, its dim that the accesses step at
    unit stride moved innermost (each access weighted by the elements it
    touches in a thread, so that a reduction's reads outweigh its sum's
    store): `elementwise-threads` threads take consecutive elements of the
    run, 4 each (1 where the thread sums a reduction), so that only the row is
    divided out of a flat index by run-time sizes, once per thread (tiles
    past the grid's y limit of 65535 are looped over). A run shorter than
    a block (decided at run time when its size is dynamic) is flattened and
    tiled like a scan's loop instead, so that blocks stay full. Buffers
    that host code allocates become `gpu.alloc` / `gpu.dealloc` on the
    call's stream.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"128",
           "Threads per block of a scan's kernels">,
    Option<"elementwiseThreads", "elementwise-threads", "int64_t",
           /*default=*/"256",
           "Threads per block of elementwise kernels and copies">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def ParallelizeLinalgPass : Pass<"recurrence-parallelize-linalg"> {
  let summary = "Run large linalg ops outside parallel loops on every core";
  let description = [{
    A linalg op on buffers that no parallel loop encloses (the gradient
    contractions between an adjoint's scans, a model's gates that were not
    fused into a scan) becomes a nest of `scf.parallel` over its parallel
    dims, which the OpenMP conversion then shares among the cores, when its
    iteration space holds at least `min-iterations` points; otherwise, and
    inside a scan's parallel loops, where a nested team would only add forks,
    it stays for the serial loops of `-convert-linalg-to-loops`. With sizes
    known only at run time, both forms are emitted behind an `scf.if` on the
    iteration count.
  }];
  let options = [
    Option<"cores", "cores", "int64_t", /*default=*/"0",
           "Cores to share the ops among (1: none is parallelized; 0: the "
           "num_cores of the module's DLTI \"CPU\" device, else 1)">,
    Option<"minIterations", "min-iterations", "int64_t",
           /*default=*/"65536",
           "The fewest points of an iteration space worth a fork and a join "
           "of the thread team">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def OpenMPForkWhenParallelPass : Pass<"recurrence-omp-fork-when-parallel"> {
  let summary = "Run OpenMP parallel loops of one iteration without a fork";
  let description = [{
    Gives every `omp.parallel` whose body is one `omp.wsloop`, with bounds
    defined outside it, the `if` clause `iterations > 1`: a loop of one
    iteration at run time (a decoding step of one batch element, a small
    scan) then runs on the calling thread instead of forking and joining
    the thread team, which costs more than its work.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def DistinctStepBuffersPass : Pass<"recurrence-distinct-step-buffers"> {
  let summary = "Tell code generation that a step loop's buffers do not "
                "overlap";
  let description = [{
    Before each loop over the steps of a scan on buffers (a sequential
    scan's time loop, marked `recurrence.steps` by its lowering, or a
    chunked phase's loop over one chunk, marked `recurrence.chunk_steps`),
    states with `memref.distinct_objects` that each buffer the loop writes
    does not overlap the other buffers it accesses, where their SSA values
    tell them apart: distinct arguments of the function, which the JIT's
    calling convention keeps apart (a result's buffer never overlaps an
    operand's), or distinct allocations. A loop that writes a buffer its
    value does not identify (an `scf.if` result) is left as it is.

    Without it, LLVM vectorizes a step's loop over channels behind run-time
    alias checks, which it hoists out of the time loop at sizes known only
    at run time. Those hoisted checks cannot pass for a reverse scan, whose
    rows descend in memory, so every step ran the scalar loop.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def SeparateStorageToAliasScopesPass
    : Pass<"recurrence-separate-storage-to-alias-scopes"> {
  let summary = "Turn separate-storage assumptions into alias scopes";
  let description = [{
    Replaces each `llvm.intr.assume` whose bundles are all
    `separate_storage` (what `memref.distinct_objects` lowers to) with alias
    scope metadata: every load and store whose address is based on one of
    the two pointers' underlying objects (followed through GEPs and the
    descriptor structs that memrefs lower to) joins that object's scope,
    and those the assumption dominates are marked not to alias the other
    object's scope.

    The assumption alone does not reach the code that needs it: translating
    an OpenMP parallel region outlines its body into a function and drops
    every `llvm.assume` in it, while metadata on loads and stores moves with
    them. Metadata holds on every execution, so only pairs that are apart
    on every execution are restated: two arguments of the function, or an
    argument and an allocation. An assumption about anything else (two
    allocations, which may reuse each other's memory from one iteration to
    the next; a pointer that is not followed back to an argument or an
    allocation) stays as it is, and so does every access of a pointer whose
    object is not found. Calls get no scopes.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def FuseStepProducersPass : Pass<"recurrence-fuse-step-producers"> {
  let summary = "Compute elementwise operands of lowered scans where they are read";
  let description = [{
    After a scan is lowered, its operands are read a slice at a time, inside
    its loops: a channel tile, a chunk, one step's row. When such an operand
    is the result of an elementwise linalg op (a model's gates: exp, sigmoid,
    softplus, a product with a broadcast) and every use of it is a slice,
    each slice is computed where it is read, from slices of the op's
    operands (the producer's TilingInterface tile), repeatedly through
    chains of such ops. The gates then never reach memory.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def GpuWarpScanPass : Pass<"recurrence-gpu-warp-scan"> {
  let summary = "A warp per sequence for scans whose steps are contiguous";
  let description = [{
    On the GPU, lowers a sequential scan that reads and writes the caller's
    buffers with each sequence's steps contiguous (Mamba's [B, N, T] passed
    as a [B, T, N] view) to an `scf.parallel` over lanes, 32 per sequence
    (`recurrence.warp_lanes`), rather than a thread per channel that would
    read across lines. Each warp runs its sequence in tiles of 32 x 4 steps:
    a lane composes its 4 consecutive steps into one pair (A, B), the lanes
    scan their pairs by shuffles (`gpu.shuffle up`), each lane then steps
    its elements from the state its predecessors leave, and the last lane's
    pair carries the tile's end state (`gpu.shuffle idx`) to the next.
    Where there are fewer sequences than the GPU has warps to fill, each is
    split into chunks of whole tiles, a warp each. With `look-back-tiles`
    = k > 0, chunks of at most k tiles run in one kernel: a chunk's warp composes its tiles' pairs, publishes the pair
    behind a status, finds its start state by looking back over the chunks
    before it, 32 at a time (a lane each, the lanes' pairs composed by
    shuffles, up to the nearest chunk that has published its end state),
    publishes its end state and writes its outputs, reading its steps again
    from L2. With 0 (the default), they run in three kernels: the chunks'
    pairs, a carry over them, the outputs.
    Applies to elementwise first-order structures (the step's composite is
    the transition operand) on a vector state (or a matrix state of one
    column) with a plain input, static shapes and an f32 state, whose
    operands are views of the caller's buffers (`bufferization.to_tensor`
    of memrefs, through `tensor.extract_slice`, `expand_shape` and
    `collapse_shape`: the adjoint's shifted transitions and cotangents)
    with time at unit stride. Results materialized in memrefs (the JIT's
    destination-passing wrapper) are written there; others into buffers of
    their own, which the results then read (`bufferization.to_tensor`).
    Other scans are left to the other lowerings.
  }];
  let options = [
    Option<"lookBackTiles", "look-back-tiles", "int64_t",
           /*default=*/"::mlir::recurrence::kDefaultLookBackTiles",
           "The most tiles of 128 steps in a chunk that looks back for its "
           "start state in one kernel (0: chunks in two sweeps around a "
           "carry)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def GpuBlockRowsPass : Pass<"recurrence-gpu-block-rows"> {
  let summary = "A lane per block row for scans of m x m blocks";
  let description = [{
    On the GPU, lowers a sequential scan whose step is m x m blocks given by
    its transition operand (`block_diagonal<m>`, m dividing a warp) to an
    `scf.parallel` with k lanes per row of each block (m / 2, at most
    32 / m so that a block fits in a warp), m / k
    columns each (`recurrence.warp_lanes` = 32: a warp per GPU block),
    rather than a thread per block that would walk its m^2 entries each
    step with batch x N/m threads in all. Each lane loads its columns of its
    row of A_t and the row's input, takes those columns' state elements
    from their rows' lanes (`gpu.shuffle idx`), and the row's k lanes sum
    their products by butterfly (`gpu.shuffle xor`); each keeps the row's
    element. Lanes past the last row (when the rows do not fill the last
    warp) run on copies of it and write nothing. Applies to a vector state
    with a plain input, static shapes with at least one step and an f32
    state, whose operands are `bufferization.to_tensor` of memrefs and
    whose results are materialized in memrefs; other scans are left to the
    other lowerings.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def GpuStateLanesPass : Pass<"recurrence-gpu-state-lanes"> {
  let summary = "A lane per state of each column for matrix scans with a "
                "readout or a low-rank step";
  let description = [{
    On the GPU, lowers a sequential scan of a matrix state [N, D] to an
    `scf.parallel` with lanes per column (`recurrence.warp_lanes`: whole
    warps), rather than a thread per column holding its N states: a lane
    per state where N divides a warp, else a warp per column with N / 32
    states a lane (N up to 256). It takes a diagonal step with a readout
    (the selective SSM), and a diagonal plus low-rank step, with or without
    one (dplr: the delta rule's forward and its gradient's scans). Each
    lane updates its states from its own loads of a_t[n, d] (or a_t[n])
    and b_t[n, d] (or k_t[n] v_t[d]); a low-rank step first adds the
    column's r sums V^T h by butterfly (`gpu.shuffle xor`), then adds U w.
    The column's lanes add their products c_t[n] h_t[n, d] likewise, and
    the first writes y_t[d]; without a readout each lane writes its states
    every step. Each writes its final states. An operand is read from the
    caller's memref that `bufferization.to_tensor` reads, through the
    static slices and reshapes on it, or computed per element from such
    memrefs where an elementwise linalg op produces it (exp(delta A),
    delta x, -beta k), so no [B, T, N, D] operand is built. The results go
    to the caller's memrefs that materialize them, or (states without a
    readout) to buffers of their own that replace them as tensors. Applies
    to static shapes with at least one step and an f32 state; other scans
    are left to the other lowerings.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_TD
