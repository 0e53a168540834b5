/* Lowers a scan through the installed C API and checks the result. */
#include "recurrence-c/Recurrence.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  const char *ir = "func.func @f(%b: tensor<4x2xf32>) -> tensor<4x2xf32> {\n"
                   "  %h_dest = tensor.empty() : tensor<4x2xf32>\n"
                   "  %h = recurrence.scan identity input(%b : tensor<4x2xf32>)"
                   " outs(%h_dest : tensor<4x2xf32>) -> tensor<4x2xf32>\n"
                   "  return %h : tensor<4x2xf32>\n}\n";
  char *error = NULL;
  recurrenceRegisterPasses();
  char *out = recurrenceRunPipeline(ir, "recurrence-to-llvm", &error);
  int ok = out && strstr(out, "llvm.func @f") != NULL;
  printf("consumer-c: %s\n", ok ? "ok" : (error ? error : "no llvm.func"));
  recurrenceFree(out);
  return ok ? 0 : 1;
}
