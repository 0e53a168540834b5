//===- JitModuleTest.cpp - The JIT layer on caller-owned buffers ----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "../Support/ScanProblem.h"

#include "gtest/gtest.h"

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
  %h = recurrence.scan diagonal transition(%a : tensor<?x?xf32>)
      input(%b : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %h : tensor<?x?xf32>
}
)mlir";

std::string errorOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : std::string();
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
  %h = recurrence.scan diagonal transition(%a : tensor<4x3xf32>)
      input(%b : tensor<4x3xf32>) -> tensor<4x3xf32>
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
  %h = recurrence.scan diagonal transition(%a : tensor<4x3xf32>)
      input(%b : tensor<4x2xf32>) -> tensor<4x2xf32>
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
