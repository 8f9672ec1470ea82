//===- model/NameClasses.h - What an event's name says it is ----*- C++ -*-===//
//
// The one place that decides, from a name, what a host call, an op, a range
// or a kernel is: data loading, communication, synchronization, a copy, an
// allocator call, start-up or teardown work, profiler work, an optimizer
// step. Each class is a list of glob patterns (and patterns it excludes),
// written out as data so that `tracelint names` and docs/name-classes.md show
// exactly what is matched, and so that a user can add patterns or exclude
// names per class in tracelint.toml ([names], docs/configuration.md).
//
// The importers read it to tell communication kernels from compute; the
// trace index (analysis/TraceIndex.h) caches each class per interned string,
// so that a name is matched against a class once per trace, not once per
// event per rule.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_MODEL_NAMECLASSES_H
#define TRACELINT_MODEL_NAMECLASSES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tracelint::model {

enum class NameClass : uint8_t {
  StepMarker,          ///< ProfilerStep#N ranges
  DataLoader,          ///< a next() of the input pipeline
  CommunicationKernel, ///< a collective's or peer copy's device kernel
  CommunicationRange,  ///< the host range of a collective (nccl:*)
  LaunchCall,          ///< a host call that launches device work
  SyncCall,            ///< an explicit synchronization call
  CopyCall,            ///< any copy call (blocking or async)
  BlockingCopyCall,    ///< a copy call that returns when the copy is done
  DeviceReadOp,        ///< an op that reads a device value on the host
  AllocatorMalloc,     ///< a device-memory allocation call
  AllocatorFree,       ///< a device-memory release call
  EmptyCache,          ///< the caching allocator giving memory back
  ContextSetup,        ///< context creation, module and library loading
  DeviceQuery,         ///< a device or version query (slow only once)
  StartupAllocation,   ///< allocation and pinning calls of any memory
  HandleLifetime,      ///< stream and event creation and destruction
  GraphCapture,        ///< graph capture and instantiation calls
  CaptureBegin,        ///< the call that begins a stream capture
  CaptureEnd,          ///< the call that ends it
  CompilationFrame,    ///< a Python frame of a compiler or autotuner
  CompilationRange,    ///< an op or range of compilation or autotuning
  ModuleUnload,        ///< teardown: module and library unloading
  Deallocation,        ///< teardown: releasing memory
  ContextDestruction,  ///< teardown: context and device reset
  HandleDestruction,   ///< teardown: stream, event and graph destruction
  ProfilerFrame,       ///< a Python frame of the profiler itself
  OptimizerStep,       ///< torch.optim's Optimizer.step#... range
  OptimizerWork,       ///< an optimizer's own host ranges, frames and ops
  MultiTensorKernel,   ///< a fused or multi-tensor optimizer kernel
  CopyKernel,          ///< a device kernel that copies memory
};
constexpr unsigned NumNameClasses =
    static_cast<unsigned>(NameClass::CopyKernel) + 1;

/// A class's built-in definition.
struct NameClassInfo {
  NameClass Class;
  llvm::StringRef Key;         ///< "data-loader": its name in tracelint.toml
  llvm::StringRef Description; ///< what the class means, for docs
  /// Glob patterns (*, ?, [...], and {a,b} alternatives, expanded before
  /// matching; a leading "(?i)" ignores case) that put a name in the
  /// class...
  llvm::ArrayRef<llvm::StringRef> Include;
  /// ...unless one of these matches it.
  llvm::ArrayRef<llvm::StringRef> Exclude;
};

/// Every class, in the order of the enum.
llvm::ArrayRef<NameClassInfo> nameClassCatalogue();
const NameClassInfo &nameClassInfo(NameClass C);
std::optional<NameClass> parseNameClass(llvm::StringRef Key);

/// Patterns a user adds to, or excludes from, the built-in classes.
struct NameClassChanges {
  std::array<std::vector<std::string>, NumNameClasses> Include, Exclude;
  bool empty() const;
};

/// Matches names against the classes: the built-in patterns and a user's
/// changes. Immutable once built, so one classifier serves every trace and
/// thread.
class NameClassifier {
public:
  /// The built-in classes only.
  NameClassifier();
  /// The built-in classes with \p Changes; an error names the class and the
  /// pattern that is not a valid glob.
  static llvm::Expected<std::shared_ptr<const NameClassifier>>
  create(const NameClassChanges &Changes);
  /// A classifier with the built-in classes, shared.
  static std::shared_ptr<const NameClassifier> builtin();

  bool matches(llvm::StringRef Name, NameClass C) const;

private:
  struct Pattern {
    llvm::GlobPattern Glob;
    bool IgnoreCase = false; ///< Glob is lower case; match the name lowered
  };
  struct Compiled {
    // GlobPattern keeps pointers into its pattern text: Texts holds it.
    std::vector<std::unique_ptr<std::string>> Texts;
    std::vector<Pattern> Include, Exclude;
  };
  std::array<Compiled, NumNameClasses> Classes;
  llvm::Error add(NameClass C, llvm::StringRef Pattern, bool Exclude);
};

/// "{cuda,hip}Free*" -> "cudaFree*", "hipFree*": every {a,b,...} group
/// replaced by each of its alternatives (groups do not nest).
std::vector<std::string> expandAlternatives(llvm::StringRef Pattern);

} // namespace tracelint::model

#endif
