//===- JitModuleTest.cpp - The JIT layer on caller-owned buffers ----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "../Support/ScanProblem.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::testing;

namespace {

class JitModuleTest : public ::testing::Test {
protected:
  void SetUp() override { context = makeContext(); }
  std::unique_ptr<MLIRContext> context;
};

constexpr const char *kDiagonal = R"mlir(
func.func @scan(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?xf32>
  %h_dest = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<?x?xf32>)
      input(%b : tensor<?x?xf32>)
      outs(%h_dest : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %h : tensor<?x?xf32>
}
)mlir";

std::string errorOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : std::string();
}

/// Calls kDiagonal's @scan on contiguous [T, 2] arrays a and b into h: the
/// error's message, or "".
std::string callOnColumnPairs(JitModule &jit, std::vector<float> &a,
                              std::vector<float> &b, std::vector<float> &h) {
  int64_t steps = static_cast<int64_t>(h.size()) / 2;
  return errorOf(jit.call(
      "scan",
      {BufferView::contiguous(a.data(), ElementType::F32, {steps, 2}),
       BufferView::contiguous(b.data(), ElementType::F32, {steps, 2})},
      {BufferView::contiguous(h.data(), ElementType::F32, {steps, 2})}));
}

TEST_F(JitModuleTest, RunsOnStridedBuffers) {
  auto jit = JitModule::compileSource(context.get(), kDiagonal, {"scan"});
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  // T = 3, N = 2, read from every other column of a 3 x 4 buffer.
  std::vector<float> a = {0.5f,  -1, 0.25f, -1, 0.5f,  -1,
                          0.25f, -1, 0.5f,  -1, 0.25f, -1};
  std::vector<float> b(6, 1.0f), h(6, 0.0f);
  BufferView aView{a.data(), ElementType::F32, {3, 2}, {4, 2}};
  BufferView bView = BufferView::contiguous(b.data(), ElementType::F32, {3, 2});
  BufferView hView = BufferView::contiguous(h.data(), ElementType::F32, {3, 2});
  ASSERT_EQ(errorOf((*jit)->call("scan", {aView, bView}, {hView})), "");
  EXPECT_EQ(h, (std::vector<float>{1, 1, 1.5f, 1.25f, 1.75f, 1.3125f}));
}

TEST_F(JitModuleTest, RunsTheSameCodeFromTheCompileCache) {
  llvm::SmallString<128> cache;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("recurrence-cache", cache));
  JitOptions options;
  options.cacheDirectory = cache.str().str();
  for (int round = 0; round < 2; ++round) {
    // Compiled and cached in the first round, loaded in the second.
    auto jit =
        JitModule::compileSource(context.get(), kDiagonal, {"scan"}, options);
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    EXPECT_EQ((*jit)->isCached(), round == 1);
    std::vector<float> a = {0.5f, 0.25f, 0.5f, 0.25f}, b(4, 1.0f), h(4, 0.0f);
    ASSERT_EQ(callOnColumnPairs(**jit, a, b, h), "");
    EXPECT_EQ(h, (std::vector<float>{1, 1, 1.5f, 1.25f})) << "round " << round;
  }
  llvm::sys::fs::remove_directories(cache);
}

TEST_F(JitModuleTest, StagesRowsOfTransposedBuffers) {
  // Operands and the result as transposed views of [N, T] buffers (T = 3,
  // N = 2): every staged row has a stride of 3, in and out.
  auto jit = JitModule::compileSource(context.get(), kDiagonal, {"scan"});
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  std::vector<float> a = {0.5f, 0.5f, 0.5f, 0.25f, 0.25f, 0.25f}; // [2, 3]
  std::vector<float> b = {1, 2, 3, 4, 5, 6};                      // [2, 3]
  std::vector<float> h(6, 0.0f);                                  // [2, 3]
  BufferView aView{a.data(), ElementType::F32, {3, 2}, {1, 3}};
  BufferView bView{b.data(), ElementType::F32, {3, 2}, {1, 3}};
  BufferView hView{h.data(), ElementType::F32, {3, 2}, {1, 3}};
  ASSERT_EQ(errorOf((*jit)->call("scan", {aView, bView}, {hView})), "");
  // Channel 0: a = 0.5, b = 1, 2, 3; channel 1: a = 0.25, b = 4, 5, 6.
  EXPECT_EQ(h, (std::vector<float>{1, 2.5f, 4.25f, 4, 6, 7.5f}));
}

TEST_F(JitModuleTest, ReadsAndWritesStatedLayoutsInPlace) {
  // The transposed [N, T] buffers of the test above, through layouts the
  // entry states: static for the transition and the result, dynamic for
  // the input. The signature comes back from the compile cache the same.
  constexpr const char *kStatedLayouts = R"mlir(
func.func @scan(
    %a: tensor<3x2xf32> {bufferization.buffer_layout = strided<[1, 3]>},
    %b: tensor<3x2xf32> {bufferization.buffer_layout = strided<[?, ?]>})
    -> (tensor<3x2xf32> {bufferization.buffer_layout = strided<[1, 3]>}) {
  %h_dest = tensor.empty() : tensor<3x2xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<3x2xf32>)
      input(%b : tensor<3x2xf32>)
      outs(%h_dest : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %h : tensor<3x2xf32>
}
)mlir";

  llvm::SmallString<128> cache;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("recurrence-cache", cache));
  JitOptions options;
  options.cacheDirectory = cache.str().str();
  for (int round = 0; round < 2; ++round) {
    auto jit = JitModule::compileSource(context.get(), kStatedLayouts, {"scan"},
                                        options);
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    EXPECT_EQ((*jit)->isCached(), round == 1);
    const JitModule::Signature *signature = (*jit)->getSignature("scan");
    EXPECT_EQ(signature->argStrides,
              (std::vector<std::vector<int64_t>>{
                  {1, 3}, {ShapedType::kDynamic, ShapedType::kDynamic}}));
    EXPECT_EQ(signature->resultStrides,
              (std::vector<std::vector<int64_t>>{{1, 3}}));
    std::vector<float> a = {0.5f, 0.5f, 0.5f, 0.25f, 0.25f, 0.25f};
    std::vector<float> b = {1, 2, 3, 4, 5, 6};
    std::vector<float> h(6, 0.0f);
    BufferView aView{a.data(), ElementType::F32, {3, 2}, {1, 3}};
    BufferView bView{b.data(), ElementType::F32, {3, 2}, {1, 3}};
    BufferView hView{h.data(), ElementType::F32, {3, 2}, {1, 3}};
    ASSERT_EQ(errorOf((*jit)->call("scan", {aView, bView}, {hView})), "");
    EXPECT_EQ(h, (std::vector<float>{1, 2.5f, 4.25f, 4, 6, 7.5f}));
    // A dynamic stride takes any; a static one only its own.
    std::vector<float> bRows = {1, 4, 2, 5, 3, 6};
    BufferView bRowMajor =
        BufferView::contiguous(bRows.data(), ElementType::F32, {3, 2});
    ASSERT_EQ(errorOf((*jit)->call("scan", {aView, bRowMajor}, {hView})), "");
    EXPECT_EQ(h, (std::vector<float>{1, 2.5f, 4.25f, 4, 6, 7.5f}));
    BufferView aRowMajor =
        BufferView::contiguous(a.data(), ElementType::F32, {3, 2});
    EXPECT_EQ(errorOf((*jit)->call("scan", {aRowMajor, bView}, {hView})),
              "argument #0: expected strides [1, 3] (the entry's layout), "
              "got [2, 1]");
  }
  llvm::sys::fs::remove_directories(cache);
}

TEST_F(JitModuleTest, ComputesElementwiseGatesInsideTheSteps) {
  // a = exp(-softplus(raw)) computed per step inside the scan's loop
  // (-recurrence-fuse-step-producers), reversed, from an initial state:
  // the same values as the plain loop below.
  auto jit = JitModule::compileSource(context.get(), R"mlir(
func.func @gated(%raw: tensor<?x?x?xf64>, %b: tensor<?x?x?xf64>, %h0: tensor<?x?xf64>) -> tensor<?x?x?xf64> {
  %e = math.exp %raw : tensor<?x?x?xf64>
  %s = math.log1p %e : tensor<?x?x?xf64>
  %n = arith.negf %s : tensor<?x?x?xf64>
  %a = math.exp %n : tensor<?x?x?xf64>
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf64>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf64>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf64>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf64>
  %h = recurrence.scan diagonal reverse transition(%a : tensor<?x?x?xf64>)
      input(%b : tensor<?x?x?xf64>) init(%h0 : tensor<?x?xf64>)
      outs(%h_dest : tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  return %h : tensor<?x?x?xf64>
}
)mlir",
                                      {"gated"});
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  const int64_t batch = 2, steps = 7, channels = 5;
  std::vector<double> raw, b, h0, h(batch * steps * channels);
  for (int64_t i = 0; i < batch * steps * channels; ++i) {
    raw.push_back(std::sin(0.7 * i) * 2);
    b.push_back(std::cos(1.3 * i));
  }
  for (int64_t i = 0; i < batch * channels; ++i)
    h0.push_back(0.1 * i - 0.3);
  auto view = [&](std::vector<double> &v, std::vector<int64_t> sizes) {
    return BufferView::contiguous(v.data(), ElementType::F64, sizes);
  };
  ASSERT_EQ(errorOf((*jit)->call("gated",
                                 {view(raw, {batch, steps, channels}),
                                  view(b, {batch, steps, channels}),
                                  view(h0, {batch, channels})},
                                 {view(h, {batch, steps, channels})})),
            "");
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t n = 0; n < channels; ++n) {
      double state = h0[i * channels + n];
      for (int64_t t = steps - 1; t >= 0; --t) {
        int64_t at = (i * steps + t) * channels + n;
        double gate = 1 / (1 + std::exp(raw[at])); // exp(-softplus(raw))
        state = gate * state + b[at];
        EXPECT_NEAR(h[at], state, 1e-12)
            << "batch " << i << " step " << t << " channel " << n;
      }
    }
}

TEST_F(JitModuleTest, WritesResultsOfOneSharedFillEachToItsOwnBuffer) {
  // Two sums into one zero fill (as CSE leaves them), both returned: each
  // is written into its own caller's buffer, not both into the first.
  auto jit = JitModule::compileSource(context.get(), R"mlir(
#in = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (i)>
func.func @sums(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %sx = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf64>) outs(%z : tensor<3xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %r = arith.addf %acc, %v : f64
    linalg.yield %r : f64
  } -> tensor<3xf64>
  %sy = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<3x4xf64>) outs(%z : tensor<3xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %r = arith.addf %acc, %v : f64
    linalg.yield %r : f64
  } -> tensor<3xf64>
  return %sx, %sy : tensor<3xf64>, tensor<3xf64>
}
)mlir",
                                      {"sums"});
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  std::vector<double> x, y, sx(3, -1.0), sy(3, -1.0);
  for (int i = 0; i < 12; ++i) {
    x.push_back(i);
    y.push_back(100.0 * i);
  }
  auto view = [](std::vector<double> &v, std::vector<int64_t> sizes) {
    return BufferView::contiguous(v.data(), ElementType::F64, sizes);
  };
  ASSERT_EQ(errorOf((*jit)->call("sums", {view(x, {3, 4}), view(y, {3, 4})},
                                 {view(sx, {3}), view(sy, {3})})),
            "");
  EXPECT_EQ(sx, (std::vector<double>{6, 22, 38}));
  EXPECT_EQ(sy, (std::vector<double>{600, 2200, 3800}));
}

TEST_F(JitModuleTest, RejectsWrongBuffers) {
  auto jit = JitModule::compileSource(context.get(), kDiagonal, {"scan"});
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  std::vector<float> data(64, 0.0f);
  std::vector<double> wide(64, 0.0);
  BufferView good =
      BufferView::contiguous(data.data(), ElementType::F32, {4, 3});
  BufferView otherShape =
      BufferView::contiguous(data.data(), ElementType::F32, {4, 2});
  BufferView rank3 =
      BufferView::contiguous(data.data(), ElementType::F32, {1, 4, 3});
  BufferView f64 =
      BufferView::contiguous(wide.data(), ElementType::F64, {4, 3});

  EXPECT_EQ(errorOf((*jit)->call("scan", {good}, {good})),
            "'scan' takes 2 argument(s) and 1 result(s), got 1 and 1");
  EXPECT_EQ(errorOf((*jit)->call("other", {good, good}, {good})),
            "no compiled function 'other'");
  EXPECT_EQ(errorOf((*jit)->call("scan", {good, rank3}, {good})),
            "argument #1: expected rank 2, got 3");
  EXPECT_EQ(errorOf((*jit)->call("scan", {good, f64}, {good})),
            "argument #1: expected f32 elements, got f64");
  EXPECT_EQ(errorOf((*jit)->call("scan", {good, good}, {rank3})),
            "result #0: expected rank 2, got 3");
  // Dynamic sizes are accepted, but the op's shape rules still hold at run
  // time only through the caller; a static mismatch is caught here.
  auto fixed = JitModule::compileSource(context.get(), R"mlir(
func.func @scan(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %h_dest = tensor.empty() : tensor<4x3xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<4x3xf32>)
      input(%b : tensor<4x3xf32>)
      outs(%h_dest : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %h : tensor<4x3xf32>
}
)mlir",
                                        {"scan"});
  ASSERT_TRUE(static_cast<bool>(fixed)) << llvm::toString(fixed.takeError());
  std::string message =
      errorOf((*fixed)->call("scan", {good, otherShape}, {good}));
  EXPECT_NE(message.find("expected shape [4, 3], got [4, 2]"),
            std::string::npos)
      << message;
}

/// Sets an environment variable for a scope, then puts back what was there.
class ScopedEnvironment {
public:
  ScopedEnvironment(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old;
    ::setenv(name, value, /*overwrite=*/1);
  }
  ~ScopedEnvironment() {
    if (previous)
      ::setenv(name, previous->c_str(), /*overwrite=*/1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> previous;
};

TEST_F(JitModuleTest, CompilesAtTheOptimizationLevelsTheEnvironmentSets) {
  llvm::SmallString<128> cache;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("recurrence-cache", cache));
  JitOptions options;
  options.cacheDirectory = cache.str().str();
  // (IR optimizer, instruction selection): each pair compiles anew, since
  // the levels are part of the cache key, and computes the same values.
  const char *levels[][2] = {{"3", "3"}, {"0", "0"}, {"3", "0"}, {"1", "2"}};
  for (auto [opt, codeGen] : levels) {
    ScopedEnvironment optLevel("RECURRENCE_OPT_LEVEL", opt);
    ScopedEnvironment codeGenLevel("RECURRENCE_CODEGEN_OPT_LEVEL", codeGen);
    auto jit =
        JitModule::compileSource(context.get(), kDiagonal, {"scan"}, options);
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    EXPECT_FALSE((*jit)->isCached()) << "-O" << opt << ", codegen " << codeGen;
    std::vector<float> a = {0.5f, 0.25f, 0.5f, 0.25f, 2, 4},
                       b = {1, 2, 3, 4, 5, 6};
    std::vector<float> h(6, 0.0f);
    ASSERT_EQ(callOnColumnPairs(**jit, a, b, h), "");
    EXPECT_EQ(h, (std::vector<float>{1, 2, 3.5f, 4.5f, 12, 24}))
        << "-O" << opt << ", codegen " << codeGen;
  }
  llvm::sys::fs::remove_directories(cache);
  for (const char *name :
       {"RECURRENCE_OPT_LEVEL", "RECURRENCE_CODEGEN_OPT_LEVEL"})
    for (const char *bad : {"4", "fast", "-1"}) {
      ScopedEnvironment level(name, bad);
      auto jit = JitModule::compileSource(context.get(), kDiagonal, {"scan"});
      ASSERT_FALSE(static_cast<bool>(jit)) << name << "=" << bad;
      EXPECT_EQ(llvm::toString(jit.takeError()),
                std::string("$") + name + ": '" + bad +
                    "' is not an optimization level 0 to 3");
    }
}

TEST_F(JitModuleTest, ReportsParseAndLookupErrors) {
  auto garbled =
      JitModule::compileSource(context.get(), "func.func @scan(", {"scan"});
  ASSERT_FALSE(static_cast<bool>(garbled));
  EXPECT_NE(llvm::toString(garbled.takeError()).find("cannot parse"),
            std::string::npos);
  auto missing = JitModule::compileSource(context.get(), kDiagonal, {"nope"});
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("no function 'nope'"),
            std::string::npos);
  auto invalid = JitModule::compileSource(context.get(), R"mlir(
func.func @scan(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %h_dest = tensor.empty() : tensor<4x2xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<4x3xf32>)
      input(%b : tensor<4x2xf32>)
      outs(%h_dest : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %h : tensor<4x2xf32>
}
)mlir",
                                          {"scan"});
  ASSERT_FALSE(static_cast<bool>(invalid));
  EXPECT_NE(llvm::toString(invalid.takeError())
                .find("expected transition operand #0 of shape [4, 2]"),
            std::string::npos);
}

} // namespace
