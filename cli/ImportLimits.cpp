//===- cli/ImportLimits.cpp -----------------------------------------------===//
#include "ImportLimits.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace tracelint;

llvm::Expected<uint64_t> cli::parseByteSize(llvm::StringRef Text,
                                            llvm::StringRef Option) {
  llvm::StringRef S = Text.trim();
  if (S.empty())
    return 0;
  size_t NumEnd = 0;
  while (NumEnd < S.size() && (llvm::isDigit(S[NumEnd]) || S[NumEnd] == '.'))
    ++NumEnd;
  llvm::StringRef Number = S.take_front(NumEnd);
  // lower() returns a new string: keep it alive for the comparisons below.
  std::string Unit = S.drop_front(NumEnd).trim().lower();
  auto Bad = [&] {
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "%s: '%s' is not a size; expected a number of bytes with an optional "
        "unit K, M, G or T (binary: 1G = 1024 M), e.g. 8G or 512M",
        Option.str().c_str(), Text.str().c_str());
  };
  double Value;
  if (Number.empty() || Number.count('.') > 1 ||
      Number.getAsDouble(Value, /*AllowInexact=*/true))
    return Bad();
  static const struct {
    const char *Names[3];
    unsigned Shift;
  } Units[] = {{{"", "b", "b"}, 0},
               {{"k", "kb", "kib"}, 10},
               {{"m", "mb", "mib"}, 20},
               {{"g", "gb", "gib"}, 30},
               {{"t", "tb", "tib"}, 40}};
  for (const auto &U : Units) {
    if (Unit != U.Names[0] && Unit != U.Names[1] && Unit != U.Names[2])
      continue;
    long double Bytes =
        (long double)Value * (long double)(uint64_t(1) << U.Shift);
    if (!std::isfinite(Bytes) || Bytes >= 1.8e19L)
      return Bad();
    return uint64_t(std::llround(double(Bytes)));
  }
  return Bad();
}

llvm::Expected<import::ImportOptions>
cli::importOptions(uint64_t MaxEvents, llvm::StringRef MemoryBudget,
                   unsigned InputTimeoutSeconds) {
  import::ImportOptions Opts;
  Opts.MaxEvents = MaxEvents;
  auto Budget = parseByteSize(MemoryBudget, "--memory-budget");
  if (!Budget)
    return Budget.takeError();
  Opts.MemoryBudget = *Budget;
  Opts.InputTimeoutMs =
      InputTimeoutSeconds > 4'000'000 ? 0u : InputTimeoutSeconds * 1000u;
  return Opts;
}
