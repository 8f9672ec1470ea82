//===- fuzz/TomlFuzzer.cpp - Any text as a rule file and a configuration --===//
//
// The input is parsed both as a rule file and as tracelint.toml. A rule that
// parses is added to the built-in catalogue and run, with a configuration
// that selects it, on a small fixed trace, so that the declarative evaluator
// (selectors, regexes, aggregates, text templates) is fuzzed too.
//
//===----------------------------------------------------------------------===//
#include "FuzzLint.h"

#include "import/Import.h"

#include <cstddef>
#include <cstdint>

using namespace tracelint;

static const char TraceJson[] = R"json({"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 50},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1002, "dur": 10, "args": {"External id": 3}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1004, "dur": 4, "args": {"correlation": 1, "External id": 3}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 1010, "dur": 30},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)",
                  "pid" : 0, "tid" : 7, "ts" : 1005, "dur" : 3, "args" : {
  "device" : 0, "stream" : 7, "bytes" : 4096
}
},
{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1020, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [4, 1, 1], "block": [128, 1, 1]}}
]
})json";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static model::Trace *Trace = [] {
    auto T = import::importTraceBytes("fixed.json", TraceJson);
    if (!T) {
      llvm::errs() << llvm::toString(T.takeError()) << "\n";
      std::abort();
    }
    return new model::Trace(std::move(*T));
  }();
  const rules::Catalogue *Builtin = &fuzz::builtinRules();

  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto Cfg = rules::Config::parse(Text, "fuzz-config.toml", *Builtin);
  if (!Cfg)
    llvm::consumeError(Cfg.takeError());

  auto Spec = rules::Catalogue::parseRule(Text, "fuzz-rule.toml");
  if (!Spec) {
    llvm::consumeError(Spec.takeError());
    return 0;
  }
  std::string Code = Spec->Code;
  rules::Catalogue Rules = *Builtin;
  if (llvm::Error E = Rules.add(std::move(*Spec))) {
    llvm::consumeError(std::move(E));
    return 0;
  }
  rules::Config Only;
  Only.Select = {Code};
  analysis::TraceIndex Ctx(*Trace);
  rules::LintResult R = rules::runRules(Ctx, Rules, Only, "fixed.json");
  (void)R;
  return 0;
}
