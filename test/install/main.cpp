// Builds, compiles and runs a scan through the installed C++ runtime.
#include "recurrence/Pipelines/Pipelines.h"
#include "recurrence/Runtime/JitModule.h"
#include "recurrence/Runtime/ScanSpec.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdio>

using namespace mlir;
using namespace mlir::recurrence;

int main() {
  DialectRegistry registry;
  registerAllRecurrenceDialects(registry);
  MLIRContext context(registry);
  ScanSpec spec; // diagonal, one batch dim, f32
  OwningOpRef<ModuleOp> module = buildScanModule(&context, spec);
  auto jit = JitModule::compile(*module, {"scan"});
  if (!jit) {
    std::printf("consumer-cxx: %s\n", llvm::toString(jit.takeError()).c_str());
    return 1;
  }
  float a[3] = {0.5f, 0.5f, 0.5f}, b[3] = {1, 1, 1}, h[3] = {0, 0, 0};
  std::vector<BufferView> args = {
      BufferView::contiguous(a, ElementType::F32, {1, 3, 1}),
      BufferView::contiguous(b, ElementType::F32, {1, 3, 1})};
  if (llvm::Error error = (*jit)->call(
          "scan", args,
          {BufferView::contiguous(h, ElementType::F32, {1, 3, 1})})) {
    std::printf("consumer-cxx: %s\n", llvm::toString(std::move(error)).c_str());
    return 1;
  }
  bool ok = h[0] == 1.0f && h[1] == 1.5f && h[2] == 1.75f;
  std::printf("consumer-cxx: %s (%g %g %g)\n", ok ? "ok" : "wrong", h[0], h[1],
              h[2]);
  return ok ? 0 : 1;
}
