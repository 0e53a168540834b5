//===- JitModule.cpp - Compile and call recurrence code on the CPU --------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Runtime/JitModule.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/Transforms/Target.h"
#include "recurrence/Pipelines/Pipelines.h"
#include "recurrence/Runtime/CompileCache.h"
#include "recurrence/Runtime/CudaRuntime.h"
#include "recurrence/Runtime/HostAllocator.h"
#include "recurrence/Runtime/RuntimeLibraries.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstring>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace mlir::recurrence;

JitModule::~JitModule() {
  // Global destructors unload GPU modules; what they report concerns no
  // call.
  if (loaded)
    llvm::consumeError(loaded->deinitialize(loaded->getMainJITDylib()));
  llvm::consumeError(cuda::takeError());
}

unsigned mlir::recurrence::elementBytes(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::F64:
  case ElementType::I64:
    return 8;
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  }
  llvm_unreachable("unknown element type");
}

StringRef mlir::recurrence::elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  }
  llvm_unreachable("unknown element type");
}

std::optional<ElementType> mlir::recurrence::elementTypeOf(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF64())
    return ElementType::F64;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isSignlessInteger(32))
    return ElementType::I32;
  if (type.isSignlessInteger(64))
    return ElementType::I64;
  return std::nullopt;
}

BufferView BufferView::contiguous(void *data, ElementType dtype,
                                  std::vector<int64_t> sizes) {
  BufferView view;
  view.data = data;
  view.dtype = dtype;
  view.strides.assign(sizes.size(), 1);
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 2; i >= 0; --i)
    view.strides[i] = view.strides[i + 1] * std::max<int64_t>(sizes[i + 1], 1);
  view.sizes = std::move(sizes);
  return view;
}

static llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The name of the destination-passing wrapper of `entry`.
static std::string wrapperName(StringRef entry) {
  return ("_recurrence_dps_" + entry).str();
}

/// The layout that an argument (or result) of `entry` states for the
/// caller's buffer with `bufferization.buffer_layout`, or null (contiguous).
/// Upstream's bufferization reads the attribute on arguments; the wrapper
/// below gives it the same meaning on results.
static MemRefLayoutAttrInterface bufferLayout(func::FuncOp entry,
                                              unsigned index, bool result) {
  StringRef name = bufferization::BufferizationDialect::kBufferLayoutAttrName;
  return result
             ? entry.getResultAttrOfType<MemRefLayoutAttrInterface>(index, name)
             : entry.getArgAttrOfType<MemRefLayoutAttrInterface>(index, name);
}

// The wrapper's buffers are contiguous unless the entry states a layout:
// contiguous layouts let the compiled loops use unit strides and vectorize,
// and call() stages other strided views; a stated layout is the one the
// caller's buffers have, read and written in place (a transposed view, say,
// where the kernel that suits it differs).
func::FuncOp mlir::recurrence::addCallerBufferWrapper(ModuleOp module,
                                                      func::FuncOp entry) {
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = entry.getLoc();
  auto memrefOf = [&](Type type, unsigned index, bool result) -> MemRefType {
    auto tensor = cast<RankedTensorType>(type);
    return MemRefType::get(tensor.getShape(), tensor.getElementType(),
                           bufferLayout(entry, index, result));
  };
  SmallVector<Type> memrefs;
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes()))
    memrefs.push_back(memrefOf(type, i, /*result=*/false));
  for (auto [i, type] : llvm::enumerate(entry.getResultTypes()))
    memrefs.push_back(memrefOf(type, i, /*result=*/true));
  auto wrapper = func::FuncOp::create(b, loc, wrapperName(entry.getName()),
                                      b.getFunctionType(memrefs, {}));
  wrapper->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                   b.getUnitAttr());
  Block *body = wrapper.addEntryBlock();
  b.setInsertionPointToEnd(body);
  unsigned numArgs = entry.getNumArguments();
  SmallVector<Value> tensors;
  for (auto [type, buffer] :
       llvm::zip(entry.getArgumentTypes(), body->getArguments()))
    tensors.push_back(bufferization::ToTensorOp::create(
        b, loc, type, buffer, /*restrict=*/true, /*writable=*/false));
  auto call = func::CallOp::create(b, loc, entry, tensors);
  for (auto [result, buffer] :
       llvm::zip(call.getResults(), body->getArguments().drop_front(numArgs))) {
    auto materialize = bufferization::MaterializeInDestinationOp::create(
        b, loc, result, buffer);
    materialize.setRestrict(true);
    materialize.setWritable(true);
  }
  func::ReturnOp::create(b, loc);
  return wrapper;
}

/// Reads the signature of an entry, which must be on ranked float tensors.
static llvm::Expected<JitModule::Signature> readSignature(func::FuncOp entry) {
  JitModule::Signature signature;
  auto add = [&](TypeRange types, std::vector<std::vector<int64_t>> &shapes,
                 std::vector<ElementType> &elements,
                 std::vector<std::vector<int64_t>> &allStrides,
                 bool result) -> llvm::Error {
    StringRef what = result ? "result" : "argument";
    for (auto [i, type] : llvm::enumerate(types)) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      std::optional<ElementType> element =
          tensor ? elementTypeOf(tensor.getElementType()) : std::nullopt;
      if (!element)
        return makeError("entry '" + entry.getName() + "' has a " + what +
                         " that is not a ranked tensor of f32, f64, f16 or "
                         "bf16");
      shapes.emplace_back(tensor.getShape().begin(), tensor.getShape().end());
      elements.push_back(*element);
      std::vector<int64_t> &strides = allStrides.emplace_back();
      MemRefLayoutAttrInterface layout = bufferLayout(entry, i, result);
      if (!layout)
        continue;
      SmallVector<int64_t> layoutStrides;
      int64_t offset;
      if (failed(layout.getStridesAndOffset(tensor.getShape(), layoutStrides,
                                            offset)) ||
          offset != 0 || llvm::any_of(layoutStrides, [](int64_t s) {
            return s <= 0 && !ShapedType::isDynamic(s);
          }))
        return makeError("entry '" + entry.getName() + "': the layout of " +
                         what + " #" + Twine(i) +
                         " must be strided, with positive (or dynamic) "
                         "strides and offset 0");
      strides.assign(layoutStrides.begin(), layoutStrides.end());
    }
    return llvm::Error::success();
  };
  if (llvm::Error error =
          add(entry.getArgumentTypes(), signature.args, signature.argTypes,
              signature.argStrides, /*result=*/false))
    return std::move(error);
  if (llvm::Error error =
          add(entry.getResultTypes(), signature.results, signature.resultTypes,
              signature.resultStrides, /*result=*/true))
    return std::move(error);
  return signature;
}

/// float -> bfloat16, rounding to nearest with ties to even: what LLVM
/// calls for `fptrunc float to bfloat` on x86-64 CPUs without a bf16
/// conversion instruction (before AVX512-BF16), which libgcc provides only
/// from GCC 13 on. NaNs stay NaNs (quiet), infinities stay infinite.
static __bf16 truncFloatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t rounded =
      (bits & 0x7fffffffu) > 0x7f800000u
          ? static_cast<uint16_t>((bits >> 16) | 0x40u)
          : static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  __bf16 result;
  std::memcpy(&result, &rounded, sizeof(result));
  return result;
}

/// The functions of our own that generated code may call, for both JITs.
static llvm::orc::SymbolMap
runtimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto define = [&](StringRef name, auto *function) {
    symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                               llvm::JITSymbolFlags::Exported};
  };
  define("memrefCopy", &recurrenceMemrefCopy);
  // The IR keeps libc's names, which LLVM knows as allocation functions
  // (noalias results, removable pairs); they resolve to the host cache.
  define("aligned_alloc", &recurrenceHostAlignedAlloc);
  define("malloc", &recurrenceHostMalloc);
  define("calloc", &recurrenceHostCalloc);
  define("realloc", &recurrenceHostRealloc);
  define("free", &recurrenceHostFree);
  define("__truncsfbf2", &truncFloatToBFloat16);
  for (auto [name, address] : cuda::entryPoints())
    symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                               llvm::JITSymbolFlags::Exported};
  return symbols;
}

/// A signature as JSON, and back, for the compile cache.
std::optional<ElementType> mlir::recurrence::elementTypeNamed(StringRef name) {
  for (ElementType type :
       {ElementType::F32, ElementType::F64, ElementType::F16, ElementType::BF16,
        ElementType::I32, ElementType::I64})
    if (elementTypeName(type) == name)
      return type;
  return std::nullopt;
}

llvm::json::Value JitModule::Signature::toJson() const {
  auto shapes = [](const std::vector<std::vector<int64_t>> &all) {
    llvm::json::Array list;
    for (const std::vector<int64_t> &shape : all) {
      llvm::json::Array sizes;
      for (int64_t size : shape)
        sizes.push_back(ShapedType::isDynamic(size) ? -1 : size);
      list.push_back(std::move(sizes));
    }
    return list;
  };
  auto names = [](const std::vector<ElementType> &all) {
    llvm::json::Array list;
    for (ElementType type : all)
      list.push_back(elementTypeName(type));
    return list;
  };
  // A contiguous buffer's strides are null.
  auto layouts = [&](const std::vector<std::vector<int64_t>> &all) {
    llvm::json::Array list;
    for (const std::vector<int64_t> &strides : all)
      list.push_back(strides.empty() ? llvm::json::Value(nullptr)
                                     : llvm::json::Value(shapes({strides})[0]));
    return list;
  };
  return llvm::json::Object{{"args", shapes(args)},
                            {"arg_types", names(argTypes)},
                            {"arg_strides", layouts(argStrides)},
                            {"results", shapes(results)},
                            {"result_types", names(resultTypes)},
                            {"result_strides", layouts(resultStrides)}};
}

std::optional<JitModule::Signature>
JitModule::Signature::fromJson(const llvm::json::Value &value) {
  Signature s;
  std::vector<std::string> argNames, resultNames;
  llvm::json::Path::Root root;
  llvm::json::ObjectMapper mapper(value, root);
  std::vector<std::optional<std::vector<int64_t>>> argStrides, resultStrides;
  if (!mapper || !mapper.map("args", s.args) ||
      !mapper.map("results", s.results) || !mapper.map("arg_types", argNames) ||
      !mapper.map("result_types", resultNames) ||
      !mapper.map("arg_strides", argStrides) ||
      !mapper.map("result_strides", resultStrides) ||
      argStrides.size() != s.args.size() ||
      resultStrides.size() != s.results.size())
    return std::nullopt;
  for (auto [from, to] : {std::pair(&argStrides, &s.argStrides),
                          std::pair(&resultStrides, &s.resultStrides)})
    for (const std::optional<std::vector<int64_t>> &strides : *from)
      to->push_back(strides.value_or(std::vector<int64_t>()));
  auto read = [](ArrayRef<std::string> names, std::vector<ElementType> &types) {
    for (const std::string &name : names) {
      std::optional<ElementType> type = elementTypeNamed(name);
      if (!type)
        return false;
      types.push_back(*type);
    }
    return true;
  };
  if (!read(argNames, s.argTypes) || !read(resultNames, s.resultTypes) ||
      s.argTypes.size() != s.args.size() ||
      s.resultTypes.size() != s.results.size())
    return std::nullopt;
  for (auto *shapes : {&s.args, &s.results, &s.argStrides, &s.resultStrides})
    for (std::vector<int64_t> &shape : *shapes)
      for (int64_t &size : shape)
        if (size == -1)
          size = ShapedType::kDynamic;
  return s;
}

/// The symbol of the packed entry point of `entry`'s wrapper: "_mlir_" and
/// the name of its C interface, as the MLIR ExecutionEngine names them (so
/// kernels cached by earlier versions still load).
static std::string packedSymbol(StringRef entry) {
  return "_mlir__mlir_ciface_" + wrapperName(entry);
}

/// Adds `void <packedSymbol(entry)>(void **args)`, which calls the C
/// interface of `entry`'s wrapper on the values `args` point to: one entry
/// point of a fixed type, whatever the function's arity.
static llvm::Error addPackedEntry(llvm::Module &module, StringRef entry) {
  std::string name = "_mlir_ciface_" + wrapperName(entry);
  llvm::Function *function = module.getFunction(name);
  if (!function || function->isDeclaration())
    return makeError("no function '" + name + "' in the lowered module");
  llvm::IRBuilder<> b(module.getContext());
  auto *packed = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), b.getPtrTy(), false),
      llvm::GlobalValue::ExternalLinkage, packedSymbol(entry), module);
  b.SetInsertPoint(
      llvm::BasicBlock::Create(module.getContext(), "entry", packed));
  SmallVector<llvm::Value *> values;
  for (llvm::Argument &argument : function->args()) {
    llvm::Value *slot = b.CreateConstGEP1_64(b.getPtrTy(), packed->getArg(0),
                                             argument.getArgNo());
    values.push_back(
        b.CreateLoad(argument.getType(), b.CreateLoad(b.getPtrTy(), slot)));
  }
  llvm::Value *result = b.CreateCall(function, values);
  if (!result->getType()->isVoidTy()) {
    llvm::Value *slot = b.CreateConstGEP1_64(b.getPtrTy(), packed->getArg(0),
                                             function->arg_size());
    b.CreateStore(result, b.CreateLoad(b.getPtrTy(), slot));
  }
  b.CreateRetVoid();
  return llvm::Error::success();
}

/// The name of the LLVM module of compiled code, whose object is cached
/// (the JIT compiles modules of its own too).
constexpr llvm::StringLiteral kModuleName = "recurrence.compiled";

/// The LLVM IR of a module lowered to the LLVM dialect, for `machine`, with
/// a packed entry point per entry, optimized at -O`optLevel`.
static llvm::Expected<llvm::orc::ThreadSafeModule>
translate(ModuleOp module, llvm::TargetMachine &machine,
          ArrayRef<std::string> entries, unsigned optLevel) {
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, *context);
  if (!llvmModule)
    return makeError("cannot translate the lowered module to LLVM IR");
  llvmModule->setModuleIdentifier(kModuleName);
  llvmModule->setDataLayout(machine.createDataLayout());
  llvmModule->setTargetTriple(machine.getTargetTriple());
  for (const std::string &entry : entries)
    if (llvm::Error error = addPackedEntry(*llvmModule, entry))
      return std::move(error);
  if (llvm::Error error =
          makeOptimizingTransformer(optLevel, 0, &machine)(llvmModule.get()))
    return std::move(error);
  return llvm::orc::ThreadSafeModule(std::move(llvmModule), std::move(context));
}

/// The optimization level 0 to 3 that the environment variable `name` sets,
/// 3 where it is unset or empty.
static llvm::Expected<unsigned> levelFromEnvironment(const char *name) {
  const char *value = std::getenv(name);
  unsigned level = 3;
  if (!value || !*value)
    return level;
  if (StringRef(value).getAsInteger(10, level) || level > 3)
    return makeError(Twine("$") + name + ": '" + value +
                     "' is not an optimization level 0 to 3");
  return level;
}

namespace {
/// Keeps the object code of the compiled module, for the compile cache.
struct KeptObject : llvm::ObjectCache {
  std::string object;
  void notifyObjectCompiled(const llvm::Module *module,
                            llvm::MemoryBufferRef buffer) override {
    if (module->getModuleIdentifier() == kModuleName)
      object = buffer.getBuffer().str();
  }
  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module *) override {
    return nullptr;
  }
};

/// ORC's compiler, which holds on to where it keeps what it compiles (the
/// JIT compiles again later, e.g. its platform's deinitializers).
struct KeepingCompiler : llvm::orc::ConcurrentIRCompiler {
  KeepingCompiler(llvm::orc::JITTargetMachineBuilder machine,
                  std::shared_ptr<KeptObject> kept)
      : ConcurrentIRCompiler(std::move(machine), kept.get()),
        kept(std::move(kept)) {}
  std::shared_ptr<KeptObject> kept;
};
} // namespace

/// The width of this CPU's widest vector registers in bits: 512 with
/// AVX-512, 256 with AVX, else 128 (SSE, NEON).
static int64_t hostVectorBits() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    return 512;
  if (features.lookup("avx"))
    return 256;
  return 128;
}

/// A JIT whose code finds libc (allocation), the OpenMP runtime and our
/// runtime symbols (memrefCopy, mgpu*). It compiles IR for `machine` and
/// hands the object code to `kept`, if given.
///
/// Compiled and cached code are linked alike, by ORC's own linker. (The
/// MLIR ExecutionEngine links through RuntimeDyld, whose teardown
/// unregistered a cuda module's unwind tables wrongly under the libgcc of
/// GCC 13 and later: the heap was corrupted when the module was freed.)
static llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
createJit(llvm::orc::JITTargetMachineBuilder machine,
          std::shared_ptr<KeptObject> kept) {
  auto created =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(machine))
          .setCompileFunctionCreator(
              [kept](llvm::orc::JITTargetMachineBuilder builder)
                  -> llvm::Expected<
                      std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                return std::make_unique<KeepingCompiler>(std::move(builder),
                                                         kept);
              })
          .create();
  if (!created)
    return created.takeError();
  llvm::orc::LLJIT &jit = **created;
  llvm::orc::JITDylib &dylib = jit.getMainJITDylib();
  char prefix = jit.getDataLayout().getGlobalPrefix();
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  dylib.addGenerator(std::move(*process));
  std::string openmp = findOpenMPRuntime();
  auto openmpGenerator =
      llvm::orc::DynamicLibrarySearchGenerator::Load(openmp.c_str(), prefix);
  if (!openmpGenerator)
    return openmpGenerator.takeError();
  dylib.addGenerator(std::move(*openmpGenerator));
  if (llvm::Error error = dylib.define(llvm::orc::absoluteSymbols(
          runtimeSymbols(llvm::orc::MangleAndInterner(jit.getExecutionSession(),
                                                      jit.getDataLayout())))))
    return std::move(error);
  return created;
}

llvm::Expected<std::unique_ptr<JitModule>>
JitModule::compile(ModuleOp module, ArrayRef<std::string> entries,
                   const JitOptions &jitOptions) {
  static std::once_flag initTarget;
  std::call_once(initTarget, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  MLIRContext *context = module.getContext();
  context->loadDialect<bufferization::BufferizationDialect, func::FuncDialect,
                       LLVM::LLVMDialect>();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);

  bool cuda = jitOptions.target == "cuda";
  if (!cuda && jitOptions.target != "cpu")
    return makeError("unknown target '" + jitOptions.target +
                     "'; expected cpu or cuda");
  if (cuda)
    if (llvm::Error error = cuda::ensureDriver())
      return error;
  // $RECURRENCE_NVVM_OPTIONS tunes the GPU pipeline (`-recurrence-to-nvvm`'s
  // options, e.g. "unroll=8 threads=64"); it is part of the cache key.
  RecurrenceToNVVMOptions cudaOptions;
  if (const char *nvvmOptions = std::getenv("RECURRENCE_NVVM_OPTIONS");
      cuda && nvvmOptions) {
    std::string problems;
    llvm::raw_string_ostream problemStream(problems);
    if (failed(cudaOptions.parseFromString(nvvmOptions, problemStream)))
      return makeError("$RECURRENCE_NVVM_OPTIONS: cannot parse '" +
                       Twine(nvvmOptions) + "' as -recurrence-to-nvvm options" +
                       (problems.empty() ? "" : ": " + problems));
  }

  // The JIT compiles for this machine, and says so: the cores asked for,
  // $RECURRENCE_CORES, the module's own DLTI target spec, or this machine's.
  RecurrenceToLLVMOptions pipelineOptions;
  const char *coresVariable = std::getenv("RECURRENCE_CORES");
  if (jitOptions.cores > 0)
    pipelineOptions.cores = jitOptions.cores;
  else if (coresVariable && std::atoi(coresVariable) > 0)
    pipelineOptions.cores = std::atoi(coresVariable);
  else if (!targetCores(module, "CPU"))
    pipelineOptions.cores = std::max(1u, std::thread::hardware_concurrency());

  // LLVM optimizes the host code and selects its instructions at -O3, or
  // at the levels $RECURRENCE_OPT_LEVEL and $RECURRENCE_CODEGEN_OPT_LEVEL
  // say (both part of the cache key).
  llvm::Expected<unsigned> optLevel =
      levelFromEnvironment("RECURRENCE_OPT_LEVEL");
  if (!optLevel)
    return optLevel.takeError();
  llvm::Expected<unsigned> codeGenLevel =
      levelFromEnvironment("RECURRENCE_CODEGEN_OPT_LEVEL");
  if (!codeGenLevel)
    return codeGenLevel.takeError();

  // Optimize for this very CPU (its vector width and features).
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return machineBuilder.takeError();
  machineBuilder->setCodeGenOptLevel(
      *llvm::CodeGenOpt::getLevel(static_cast<int>(*codeGenLevel)));
  // A step's small contractions (block_diagonal's m x m blocks) read their
  // blocks row by row; vectorized across rows, every column becomes a gather,
  // which measured 2 to 5x slower than scalar code here. Keep them out.
  if (machineBuilder->getTargetTriple().isX86())
    machineBuilder->getFeatures().AddFeature("prefer-no-gather");
  // Small block steps fill this CPU's vector registers with blocks.
  pipelineOptions.vectorBits = hostVectorBits();

  // A kernel compiled before, by this process or another, is loaded as it is.
  std::string cachePath;
  if (!jitOptions.cacheDirectory.empty()) {
    std::string text, options;
    llvm::raw_string_ostream textStream(text), optionStream(options);
    module->print(textStream);
    if (cuda)
      cudaOptions.print(optionStream);
    else
      pipelineOptions.print(optionStream);
    SmallVector<std::string> parts = {text, options, machineBuilder->getCPU(),
                                      machineBuilder->getFeatures().getString(),
                                      "O" + std::to_string(*optLevel) +
                                          " codegen O" +
                                          std::to_string(*codeGenLevel)};
    llvm::append_range(parts, entries);
    SmallString<256> path(jitOptions.cacheDirectory);
    llvm::sys::path::append(path, cacheKey(parts) + ".kernel");
    cachePath = path.str().str();
    if (std::optional<CachedKernel> cached = readCachedKernel(cachePath)) {
      std::unique_ptr<JitModule> jit(new JitModule());
      jit->cuda = cuda;
      llvm::Expected<llvm::json::Value> metadata =
          llvm::json::parse(cached->metadata);
      bool complete = static_cast<bool>(metadata);
      if (!metadata)
        llvm::consumeError(metadata.takeError());
      for (const std::string &name : entries) {
        const llvm::json::Object *object =
            complete ? metadata->getAsObject() : nullptr;
        const llvm::json::Value *entry = object ? object->get(name) : nullptr;
        std::optional<Signature> signature =
            entry ? Signature::fromJson(*entry) : std::nullopt;
        complete = signature.has_value();
        if (complete)
          jit->signatures[name] = *signature;
      }
      if (complete) {
        if (llvm::Error error = jit->load(cached->object)) {
          llvm::consumeError(std::move(error)); // compiled again below
        } else {
          jit->cached = true;
          return std::move(jit);
        }
      }
    }
  }

  std::unique_ptr<JitModule> jit(new JitModule());
  jit->cuda = cuda;
  for (const std::string &name : entries) {
    auto entry = module.lookupSymbol<func::FuncOp>(name);
    if (!entry || entry.isExternal())
      return makeError("no function '" + name + "' to compile");
    llvm::Expected<Signature> signature = readSignature(entry);
    if (!signature)
      return signature.takeError();
    jit->signatures[name] = std::move(*signature);
    addCallerBufferWrapper(module, entry);
  }

  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    os << diag.getLocation() << ": " << diag << "\n";
    return success();
  });
  PassManager pm(context);
  if (cuda)
    buildRecurrenceToNVVMPipeline(pm, cudaOptions);
  else
    buildRecurrenceToLLVMPipeline(pm, pipelineOptions);
  if (failed(pm.run(module)))
    return makeError("lowering failed:\n" + diagnostics);

  auto machine = machineBuilder->createTargetMachine();
  if (!machine)
    return machine.takeError();
  llvm::Expected<llvm::orc::ThreadSafeModule> llvmModule =
      translate(module, **machine, entries, *optLevel);
  if (!llvmModule)
    return llvmModule.takeError();
  auto kept = std::make_shared<KeptObject>();
  auto created = createJit(*machineBuilder, kept);
  if (!created)
    return created.takeError();
  jit->loaded = std::move(*created);
  if (llvm::Error error = jit->loaded->addIRModule(std::move(*llvmModule)))
    return error;
  if (llvm::Error error = jit->start())
    return error;
  std::string &object = kept->object;
  // RECURRENCE_DUMP_OBJECT=<file> writes the generated object code there.
  if (const char *objectDump = std::getenv("RECURRENCE_DUMP_OBJECT")) {
    std::error_code error;
    llvm::raw_fd_ostream file(objectDump, error);
    if (!error)
      file << object;
  }
  // A cache that cannot be written only costs the next process a compile.
  if (!cachePath.empty() && !object.empty()) {
    llvm::json::Object metadata;
    for (auto &[name, signature] : jit->signatures)
      metadata[name] = signature.toJson();
    std::string metadataText;
    llvm::raw_string_ostream metadataStream(metadataText);
    metadataStream << llvm::json::Value(std::move(metadata));
    llvm::consumeError(
        writeCachedKernel(cachePath, {metadataText, std::move(object)}));
  }
  return std::move(jit);
}

llvm::Error JitModule::load(StringRef object) {
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return machineBuilder.takeError();
  auto created = createJit(std::move(*machineBuilder), nullptr);
  if (!created)
    return created.takeError();
  loaded = std::move(*created);
  if (llvm::Error error = loaded->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(object, "cached kernel")))
    return error;
  return start();
}

llvm::Error JitModule::start() {
  // Global constructors load the GPU modules of cuda kernels.
  if (llvm::Error error = loaded->initialize(loaded->getMainJITDylib()))
    return error;
  if (llvm::Error error = cuda::takeError())
    return error;
  // Each entry is looked up now: a lookup per call would cost more than a
  // small scan.
  for (auto &[name, signature] : signatures) {
    auto address = loaded->lookup(packedSymbol(name));
    if (!address)
      return address.takeError();
    signature.packed = address->toPtr<void (*)(void **)>();
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<JitModule>>
JitModule::compileSource(MLIRContext *context, StringRef source,
                         ArrayRef<std::string> entries,
                         const JitOptions &options) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      os << diag.getLocation() << ": " << diag << "\n";
      return success();
    });
    module = parseSourceString<ModuleOp>(source, context);
  }
  if (!module)
    return makeError("cannot parse the module:\n" + diagnostics);
  return compile(*module, entries, options);
}

const JitModule::Signature *JitModule::getSignature(StringRef entry) const {
  auto it = signatures.find(entry);
  return it == signatures.end() ? nullptr : &it->second;
}

/// Checks one buffer against the signature and packs its memref descriptor:
/// {allocated, aligned, offset, sizes..., strides...}.
/// A buffer with a stated layout (`strides` not empty) must have those
/// strides, wherever they are static and the size is more than 1.
static llvm::Error packDescriptor(const BufferView &view,
                                  ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> strides, ElementType dtype,
                                  const Twine &what,
                                  std::vector<int64_t> &descriptor) {
  if (view.sizes.size() != shape.size() || view.strides.size() != shape.size())
    return makeError(what + ": expected rank " + Twine(shape.size()) +
                     ", got " + Twine(view.sizes.size()));
  if (!shapesCompatible(view.sizes, shape))
    return makeError(what + ": expected shape " + formatShape(shape) +
                     ", got " + formatShape(view.sizes));
  if (view.dtype != dtype)
    return makeError(what + ": expected " + elementTypeName(dtype) +
                     " elements, got " + elementTypeName(view.dtype));
  for (auto [size, stride, got] : llvm::zip(view.sizes, strides, view.strides))
    if (size > 1 && !ShapedType::isDynamic(stride) && stride != got)
      return makeError(what + ": expected strides " + formatShape(strides) +
                       " (the entry's layout), got " +
                       formatShape(view.strides));
  auto address = reinterpret_cast<intptr_t>(view.data);
  descriptor = {address, address, 0};
  llvm::append_range(descriptor, view.sizes);
  llvm::append_range(descriptor, view.strides);
  return llvm::Error::success();
}

bool BufferView::isContiguous() const {
  // An empty buffer has no element out of place, whatever its strides
  // (torch gives empty tensors arbitrary ones).
  if (llvm::is_contained(sizes, 0))
    return true;
  int64_t expected = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != expected)
      return false;
    expected *= sizes[i];
  }
  return true;
}

/// Copies between a strided view and a contiguous buffer, either way.
/// Copies a strided view to or from dense memory, a row (the innermost dim)
/// at a time with typed loads and stores.
template <typename Bits>
static void copyRows(const BufferView &view, char *packed, bool toPacked) {
  int64_t rank = view.sizes.size();
  Bits *dense = reinterpret_cast<Bits *>(packed);
  Bits *base = static_cast<Bits *>(view.data);
  if (rank == 0) {
    if (toPacked)
      *dense = *base;
    else
      *base = *dense;
    return;
  }
  int64_t inner = view.sizes.back(), step = view.strides.back();
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows *= view.sizes[d];
  if (inner == 0)
    return;
  std::vector<int64_t> index(rank - 1, 0);
  for (int64_t row = 0; row < rows; ++row, dense += inner) {
    int64_t offset = 0;
    for (int64_t d = 0; d + 1 < rank; ++d)
      offset += index[d] * view.strides[d];
    Bits *strided = base + offset;
    if (toPacked)
      for (int64_t i = 0; i < inner; ++i)
        dense[i] = strided[i * step];
    else
      for (int64_t i = 0; i < inner; ++i)
        strided[i * step] = dense[i];
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < view.sizes[d])
        break;
      index[d] = 0;
    }
  }
}

static void copyStrided(const BufferView &view, char *packed, bool toPacked) {
  switch (elementBytes(view.dtype)) {
  case 2:
    return copyRows<uint16_t>(view, packed, toPacked);
  case 4:
    return copyRows<uint32_t>(view, packed, toPacked);
  default:
    return copyRows<uint64_t>(view, packed, toPacked);
  }
}

namespace {
/// A contiguous stand-in for a strided view, copied in (arguments) or out
/// (results) around the call.
struct StagedView {
  BufferView original;
  std::unique_ptr<char[]> packed; // not zeroed: every element is written
  BufferView view;

  StagedView(const BufferView &original, bool copyIn, bool inPlace)
      : original(original) {
    if (inPlace || original.isContiguous()) {
      view = original;
      return;
    }
    int64_t total = 1;
    for (int64_t size : original.sizes)
      total *= size;
    packed.reset(
        new char[std::max<int64_t>(1, total) * elementBytes(original.dtype)]);
    if (copyIn)
      copyStrided(original, packed.get(), /*toPacked=*/true);
    view = BufferView::contiguous(packed.get(), original.dtype, original.sizes);
  }

  void copyOut() {
    if (packed)
      copyStrided(original, packed.get(), /*toPacked=*/false);
  }
};
} // namespace

/// Calls the packed entry point on one memref descriptor per argument and
/// result.
static void invokePacked(const JitModule::Signature &signature,
                         std::vector<std::vector<int64_t>> &descriptors) {
  std::vector<void *> pointers;
  for (std::vector<int64_t> &descriptor : descriptors)
    pointers.push_back(descriptor.data());
  std::vector<void *> packed;
  for (void *&pointer : pointers)
    packed.push_back(&pointer);
  signature.packed(packed.data());
}

llvm::Error JitModule::call(StringRef entry, ArrayRef<BufferView> args,
                            ArrayRef<BufferView> results, void *stream) {
  const Signature *signature = getSignature(entry);
  if (!signature)
    return makeError("no compiled function '" + entry + "'");
  if (args.size() != signature->args.size() ||
      results.size() != signature->results.size())
    return makeError("'" + entry + "' takes " + Twine(signature->args.size()) +
                     " argument(s) and " + Twine(signature->results.size()) +
                     " result(s), got " + Twine(args.size()) + " and " +
                     Twine(results.size()));
  std::vector<std::vector<int64_t>> descriptors(args.size() + results.size());
  for (auto [i, view] : llvm::enumerate(args))
    if (llvm::Error error = packDescriptor(
            view, signature->args[i], signature->argStrides[i],
            signature->argTypes[i], "argument #" + Twine(i), descriptors[i]))
      return error;
  for (auto [i, view] : llvm::enumerate(results))
    if (llvm::Error error = packDescriptor(
            view, signature->results[i], signature->resultStrides[i],
            signature->resultTypes[i], "result #" + Twine(i),
            descriptors[args.size() + i]))
      return error;
  if (!cuda && stream)
    return makeError("'" + entry +
                     "' runs on the CPU: it takes host buffers and no stream");
  // Buffers of a stated layout are used as they are; others must be
  // contiguous, or are staged.
  auto stated = [&](size_t i) {
    return i < args.size() ? !signature->argStrides[i].empty()
                           : !signature->resultStrides[i - args.size()].empty();
  };
  if (cuda) {
    // Device memory cannot be staged on the host.
    for (auto [i, view] :
         llvm::enumerate(llvm::concat<const BufferView>(args, results)))
      if (!stated(i) && !view.isContiguous())
        return makeError((i < args.size()
                              ? "argument #" + Twine(i)
                              : "result #" + Twine(i - args.size())) +
                         ": a GPU kernel takes contiguous device buffers, "
                         "or the layout its entry states");
    cuda::CallerStream onStream(stream);
    invokePacked(*signature, descriptors);
    return cuda::takeError();
  }
  // Other strided views go through contiguous copies.
  std::vector<StagedView> staged;
  staged.reserve(args.size() + results.size());
  for (auto [i, view] : llvm::enumerate(args))
    staged.emplace_back(view, /*copyIn=*/true, stated(i));
  for (auto [i, view] : llvm::enumerate(results))
    staged.emplace_back(view, /*copyIn=*/false, stated(args.size() + i));
  for (auto [descriptor, stage] : llvm::zip(descriptors, staged)) {
    auto address = reinterpret_cast<intptr_t>(stage.view.data);
    descriptor[0] = descriptor[1] = address;
    for (size_t d = 0; d < stage.view.strides.size(); ++d)
      descriptor[3 + stage.view.sizes.size() + d] = stage.view.strides[d];
  }
  invokePacked(*signature, descriptors);
  for (StagedView &stage : llvm::drop_begin(staged, args.size()))
    stage.copyOut();
  return llvm::Error::success();
}
