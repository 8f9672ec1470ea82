//===- model/ImportStats.cpp ----------------------------------------------===//
#include "model/ImportStats.h"

#include "llvm/Support/ErrorHandling.h"

using namespace tracelint::model;

llvm::StringRef tracelint::model::importStatName(ImportStat S) {
  switch (S) {
#define TRACELINT_STAT_NAME(Id, Sev, Desc)                                     \
  case ImportStat::Id:                                                         \
    return #Id;
    TRACELINT_IMPORT_STATS(TRACELINT_STAT_NAME)
#undef TRACELINT_STAT_NAME
  case ImportStat::NumStats:
    break;
  }
  llvm_unreachable("not a statistic");
}

llvm::StringRef tracelint::model::importStatDescription(ImportStat S) {
  switch (S) {
#define TRACELINT_STAT_DESC(Id, Sev, Desc)                                     \
  case ImportStat::Id:                                                         \
    return Desc;
    TRACELINT_IMPORT_STATS(TRACELINT_STAT_DESC)
#undef TRACELINT_STAT_DESC
  case ImportStat::NumStats:
    break;
  }
  llvm_unreachable("not a statistic");
}

StatSeverity tracelint::model::importStatSeverity(ImportStat S) {
  switch (S) {
#define TRACELINT_STAT_SEV(Id, Sev, Desc)                                      \
  case ImportStat::Id:                                                         \
    return StatSeverity::Sev;
    TRACELINT_IMPORT_STATS(TRACELINT_STAT_SEV)
#undef TRACELINT_STAT_SEV
  case ImportStat::NumStats:
    break;
  }
  llvm_unreachable("not a statistic");
}

llvm::StringRef tracelint::model::statSeverityName(StatSeverity S) {
  switch (S) {
  case StatSeverity::Info:
    return "info";
  case StatSeverity::Warning:
    return "warning";
  case StatSeverity::DataLoss:
    return "data-loss";
  }
  llvm_unreachable("covered switch");
}

void ImportStats::add(ImportStat S, uint64_t N) { Counts[unsigned(S)] += N; }

void ImportStats::addAt(ImportStat S, llvm::StringRef Where) {
  if (Counts[unsigned(S)]++ == 0)
    FirstPlace[unsigned(S)] = Where.str();
}

bool ImportStats::any(StatSeverity Sev) const {
  for (unsigned I = 0; I < NumImportStats; ++I)
    if (Counts[I] && importStatSeverity(ImportStat(I)) == Sev &&
        ImportStat(I) != ImportStat::EventsRead)
      return true;
  return false;
}
