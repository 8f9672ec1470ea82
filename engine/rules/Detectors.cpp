//===- rules/Detectors.cpp - Looking detectors up by name -----------------===//
//
// The table itself is generated from the rule files (GenerateRegistry.cmake
// writes BuiltinDetectors.cpp): every rule whose [signature] names a
// detector gets one entry, sorted by name.
//
//===----------------------------------------------------------------------===//
#include "rules/Detector.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>

using namespace tracelint;
using namespace tracelint::rules;

llvm::ArrayRef<DetectorEntry> rules::detectors() { return detectorTable(); }

DetectorFn rules::findDetector(llvm::StringRef Name) {
  llvm::ArrayRef<DetectorEntry> All = detectors();
  assert(std::is_sorted(All.begin(), All.end(),
                        [](const DetectorEntry &A, const DetectorEntry &B) {
                          return A.Name < B.Name;
                        }) &&
         "the generated detector table is sorted by name");
  auto It = llvm::partition_point(
      All, [&](const DetectorEntry &E) { return E.Name < Name; });
  if (It == All.end() || It->Name != Name)
    return nullptr;
  return It->Run;
}

JobDetectorFn rules::findJobDetector(llvm::StringRef Name) {
  llvm::ArrayRef<JobDetectorEntry> All = jobDetectorTable();
  auto It = llvm::partition_point(
      All, [&](const JobDetectorEntry &E) { return E.Name < Name; });
  if (It == All.end() || It->Name != Name)
    return nullptr;
  return It->Run;
}

llvm::StringRef rules::skipKindName(SkipKind K) {
  switch (K) {
  case SkipKind::CannotJudge:
    return "cannot judge";
  case SkipKind::NotApplicable:
    return "not applicable";
  }
  return "cannot judge";
}
