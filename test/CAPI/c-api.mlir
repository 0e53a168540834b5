// REQUIRES: shared-libs
// The C API from a C program: run a pipeline, compile a scan, call it on
// caller-owned buffers, derive and run its gradient, and get errors back as
// strings.
//
// RUN: recurrence-capi-test | FileCheck %s

// CHECK: lowered: ok
// h = 1, 1.5, 1.75 for a = 0.5 and 1, 1.25, 1.3125 for a = 0.25.
// CHECK: states: 1 1 1.5 1.25 1.75 1.3125
// CHECK: bad buffer: argument #1: expected rank 2, got 1
// CHECK: bf16 buffer: argument #1: expected f64 elements, got bf16
// CHECK: unknown dtype: recurrenceCall: argument #1: unknown dtype 7
// CHECK: negative rank: recurrenceCall: argument #1: a negative rank, or no sizes or strides
// The adjoint mu_t = a_{t+1} mu_{t+1} + 1 is 1.75, 1.5, 1 (a = 0.5) and
// 1.3125, 1.25, 1 (a = 0.25); db_t = mu_t and da_t = mu_t h_{t-1}, h_0 = 0.
// CHECK: da: 0 0 1.5 1.25 1.5 1.25
// CHECK: db: 1.75 1.3125 1.5 1.25 1 1
// CHECK: bad ir: cannot parse the module:
// CHECK-NEXT: loc("-":1:13): expected
// A scan from a JSON spec (reversed, f64, no batch dim): its signature and
// the same states run backwards.
// CHECK: signature: {"arg_strides":[null,null],"arg_types":["f64","f64"],"args":{{\[\[}}-1,-1],[-1,-1]],"result_strides":[null],"result_types":["f64"],"results":{{\[\[}}-1,-1]]}
// CHECK: reversed: 1.75 1.3125 1.5 1.25 1 1
// Its gradient (recurrenceCompileScan's `gradient` 1), and the one that
// reads the states from that output (3): the same numbers.
// CHECK: reversed gradient 1: [[GRADIENT:.+]]
// CHECK-NEXT: reversed gradient 3: [[GRADIENT]]{{$}}
// The same specialized to T = 3, N = 2 (recurrenceCompileScanAt): static
// signature, the same states, and a call at other shapes refused.
// CHECK: sized signature: {"arg_strides":[null,null],"arg_types":["f64","f64"],"args":{{\[\[}}3,2],[3,2]],"result_strides":[null],"result_types":["f64"],"results":{{\[\[}}3,2]]}
// CHECK: sized reversed: 1.75 1.3125 1.5 1.25 1 1
// CHECK: sized wrong shape: {{.*}}
// CHECK: bad sizes: sizes: 'steps' must be a size >= 0
// CHECK: empty sizes: sizes: a scan is compiled for static sizes only when every size is at least 1 (pass no sizes for an empty problem)
// CHECK: batch rank: sizes: expected 2 batch size(s), the spec's batch_rank, got 1
// block_diagonal steps [3, 2, 2] with an input of 6: m = 2, N = 6.
// CHECK: fit: {"param":2,"size":6}
// CHECK: shapes: {"final_state":[5,4],"operands":{{\[\[}}5,7,4],[5,7,4,2],[5,7,4,2],[5,7,4],[5,4]],"output":[5,7,4]}
// CHECK: model scans: [{"factored":true,"init":false,"matrix":true,"name":"identity","readout":true,"reverse":false,"structure":"identity"},{"factored":false,"init":false,"matrix":false,"name":"identity","readout":true,"reverse":false,"structure":"identity"}]
// CHECK: model scans: [{"factored":false,"init":false,"matrix":false,"name":"block_diagonal<4>","readout":false,"reverse":false,"structure":"block_diagonal"}]
// CHECK: in place: {"in_place":true,"reason":""}
// CHECK: in place: {"in_place":false,"reason":"not an elementwise first-order structure"}
// The gradient of sum(h): lambda = (1 + a_2, 1); da_2 = h_1 = 2, dc_t =
// lambda_t v_t, dv_t = lambda_t c_t.
// CHECK: hlru dgates: 0 1.5 2 4 dv: 3 3
// Compiled for the call's shapes: static sizes in the signature.
// CHECK: sized model gradient: {"arg_strides":[null,null,null],"arg_types":["f64","f64","f64"],"args":{{\[\[}}1,2,1,2],[1,2,1],[1,2,1]],"result_strides":[null,null],"result_types":["f64","f64"],"results":{{\[\[}}1,2,1,2],[1,2,1]]}
// CHECK: sized hlru dgates: 0 1.5 2 4 dv: 3 3
// CHECK: misfit shapes: loc("hlru"): arg_shapes[0]: expected a shape that fits 'tensor<?x?x?x2xf32>' with every size at least 1 (give no shapes for an empty problem), got [1, 2, 1, 3]
// CHECK: bad model gradient: loc("mamba"): unknown model 'mamba'
// CHECK: host cache: live 0 cached 0
// CHECK: host buffer: aligned 1 live 2097152 cached 0
// CHECK: host buffer freed: live 0 cached 2097152
// CHECK: host buffer again: same 1 reused 1
// CHECK: negative host buffer: 1
// CHECK: bad model param: loc("hlru"): unknown model 'hlru' (or a parameter 0 below 1)
// CHECK: bad schedule: scan spec: unknown schedule 'fast'
// CHECK: gradient 2: recurrenceCompileScan: a second-order gradient is compiled for static sizes (recurrenceCompileScanAt)
// CHECK: gradient 4: recurrenceCompileScan: gradient must be 0, 1, 2 or 3, got 4
// CHECK: no chunk: scan spec: schedule 'chunked' needs a chunk_size of at least 1, got 0
// CHECK: bad type: scan spec: 'reverse' must be a boolean
// CHECK: bad json: model spec: [1:10, byte=10]: Unexpected EOF
// CHECK: bad model: loc("mamba"): unknown model 'mamba'
// CHECK: version: {{[0-9]+\.[0-9]+\.[0-9]+}}
