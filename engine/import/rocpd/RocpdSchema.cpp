//===- import/rocpd/RocpdSchema.cpp ---------------------------------------===//
#include "import/rocpd/RocpdSchema.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <set>

using namespace tracelint;
using namespace tracelint::import;
using namespace tracelint::import::rocpd;
using llvm::StringRef;

bool rocpd::isTableOf(StringRef Name, StringRef Base) {
  if (!Name.consume_front(Base))
    return false;
  return Name.empty() || (Name.size() > 1 && Name.front() == '_');
}

static bool anyTableOf(const llvm::StringSet<> &Tables, StringRef Base) {
  return llvm::any_of(
      Tables, [&](const auto &T) { return isTableOf(T.getKey(), Base); });
}

bool rocpd::isRocpdDatabase(const llvm::StringSet<> &Tables) {
  // rocpd_string and rocpd_metadata do not tell: rocmProfileData has them.
  return anyTableOf(Tables, AgentTable) || anyTableOf(Tables, DispatchTable) ||
         anyTableOf(Tables, RegionTable) || anyTableOf(Tables, CopyTable);
}

bool rocpd::isRpdDatabase(const llvm::StringSet<> &Tables) {
  return Tables.count("rocpd_api") && Tables.count("rocpd_op");
}

std::vector<std::string> rocpd::findRuns(const llvm::StringSet<> &Tables) {
  // Bases that no other base extends with "_...", so that a suffix read off
  // one of them is a run's UUID and not the rest of a longer table name.
  static const StringRef Anchors[] = {StringTable, EventTable,    AgentTable,
                                      RegionTable, DispatchTable, CopyTable,
                                      AllocTable,  ProcessTable};
  std::set<std::string> Runs;
  for (const auto &T : Tables)
    for (StringRef Base : Anchors)
      if (isTableOf(T.getKey(), Base)) {
        StringRef Suffix = T.getKey().drop_front(Base.size());
        // A UUID with '_' for '-': anything else is not a run's suffix, and
        // a run's table names appear in messages, so they must print.
        if (Suffix.size() <= 64 && llvm::all_of(Suffix, [](char C) {
              return llvm::isAlnum(C) || C == '_';
            }))
          Runs.insert(Suffix.str());
      }
  return std::vector<std::string>(Runs.begin(), Runs.end());
}

Category rocpd::classifyCategory(StringRef Name) {
  if (Name.empty())
    return Category::Unknown;
  if (Name.startswith("HIP_RUNTIME_API") || Name.startswith("HIP_COMPILER_API"))
    return Category::HipApi;
  if (Name.startswith("HSA_"))
    return Category::HsaApi;
  if (Name == "MARKER_CORE_RANGE_API")
    return Category::MarkerRange;
  if (Name == "MARKER_CORE_API")
    return Category::MarkerCall;
  if (Name.startswith("RCCL_API") || Name.startswith("ROCDECODE_API") ||
      Name.startswith("ROCJPEG_API"))
    return Category::LibraryApi;
  return Category::Unmodelled;
}

model::CopyKind rocpd::copyKindFromOperation(StringRef Name) {
  return llvm::StringSwitch<model::CopyKind>(Name)
      .Case("MEMORY_COPY_HOST_TO_DEVICE", model::CopyKind::HtoD)
      .Case("MEMORY_COPY_DEVICE_TO_HOST", model::CopyKind::DtoH)
      .Case("MEMORY_COPY_DEVICE_TO_DEVICE", model::CopyKind::DtoD)
      .Case("MEMORY_COPY_HOST_TO_HOST", model::CopyKind::HtoH)
      .Default(model::CopyKind::Unknown);
}
