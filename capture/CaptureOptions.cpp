//===- capture/CaptureOptions.cpp - Options passed through the env --------===//
#include "CaptureOptions.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace tracelint::capture;

namespace {

bool parseSeconds(const char *Name, const char *Text, double &Out,
                  std::string &Error) {
  char *End = nullptr;
  errno = 0;
  double V = std::strtod(Text, &End);
  if (End == Text || *End != '\0' || errno || !std::isfinite(V) || V < 0 ||
      V > 1e9) {
    Error = std::string(Name) + "='" + Text +
            "': expected a number of seconds, 0 or more";
    return false;
  }
  Out = V;
  return true;
}

bool parseUnsigned(const char *Name, const char *Text, uint64_t Max,
                   uint64_t &Out, std::string &Error) {
  char *End = nullptr;
  errno = 0;
  unsigned long long V = std::strtoull(Text, &End, 10);
  if (End == Text || *End != '\0' || errno || Text[0] == '-' || V > Max) {
    Error = std::string(Name) + "='" + Text +
            "': expected a whole number from 0 to " + std::to_string(Max);
    return false;
  }
  Out = V;
  return true;
}

bool parseFlag(const char *Name, const char *Text, bool &Out,
               std::string &Error) {
  std::string T(Text);
  if (T == "1" || T == "true" || T == "yes") {
    Out = true;
    return true;
  }
  if (T == "0" || T == "false" || T == "no" || T.empty()) {
    Out = false;
    return true;
  }
  Error = std::string(Name) + "='" + Text + "': expected 1 or 0";
  return false;
}

bool isNumeric(const char *S) {
  if (!S || !*S)
    return false;
  for (const char *P = S; *P; ++P)
    if (*P < '0' || *P > '9')
      return false;
  return true;
}

std::string formatSeconds(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.9g", V);
  return Buf;
}

} // namespace

bool tracelint::capture::isValidPrefix(const std::string &Prefix) {
  if (Prefix.empty() || Prefix[0] == '.')
    return false;
  for (char C : Prefix)
    if (!((C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
          (C >= '0' && C <= '9') || C == '-' || C == '_' || C == '.'))
      return false;
  return true;
}

bool tracelint::capture::readCaptureOptions(EnvLookupFn Lookup, void *Ctx,
                                            CaptureOptions &Out,
                                            std::string &Error) {
  if (const char *V = Lookup(EnvDir, Ctx); V && *V)
    Out.OutputDir = V;
  if (const char *V = Lookup(EnvPrefix, Ctx)) {
    if (!isValidPrefix(V)) {
      Error = std::string(EnvPrefix) + "='" + V +
              "': expected letters, digits, '-', '_' or '.' (not first)";
      return false;
    }
    Out.Prefix = V;
  }
  if (const char *V = Lookup(EnvDelay, Ctx))
    if (!parseSeconds(EnvDelay, V, Out.DelaySec, Error))
      return false;
  if (const char *V = Lookup(EnvDuration, Ctx))
    if (!parseSeconds(EnvDuration, V, Out.DurationSec, Error))
      return false;
  if (const char *V = Lookup(EnvRange, Ctx))
    Out.RangeName = V;
  if (const char *V = Lookup(EnvRangeCount, Ctx)) {
    uint64_t N = 0;
    if (!parseUnsigned(EnvRangeCount, V, UINT32_MAX, N, Error))
      return false;
    if (N == 0) {
      Error = std::string(EnvRangeCount) + "='" + V +
              "': expected a whole number from 1 to " +
              std::to_string(UINT32_MAX);
      return false;
    }
    Out.RangeCount = uint32_t(N);
  }
  if (const char *V = Lookup(EnvProfilerApi, Ctx))
    if (!parseFlag(EnvProfilerApi, V, Out.ProfilerApi, Error))
      return false;
  if (const char *V = Lookup(EnvMaxEvents, Ctx))
    if (!parseUnsigned(EnvMaxEvents, V, UINT64_MAX, Out.MaxEvents, Error))
      return false;
  if (const char *V = Lookup(EnvLaunchNs, Ctx))
    if (!parseUnsigned(EnvLaunchNs, V, UINT64_MAX, Out.LaunchMonotonicNs,
                       Error))
      return false;
  if (const char *V = Lookup(EnvQuiet, Ctx))
    if (!parseFlag(EnvQuiet, V, Out.Quiet, Error))
      return false;
  if (!Out.RangeName.empty() && Out.ProfilerApi) {
    Error = std::string(EnvRange) + " and " + EnvProfilerApi +
            " are both set: choose one way to open the window";
    return false;
  }
  return true;
}

std::vector<std::pair<std::string, std::string>>
tracelint::capture::captureOptionsToEnv(const CaptureOptions &Opts) {
  std::vector<std::pair<std::string, std::string>> Env = {
      {EnvDir, Opts.OutputDir},
      {EnvPrefix, Opts.Prefix},
      {EnvDelay, formatSeconds(Opts.DelaySec)},
      {EnvDuration, formatSeconds(Opts.DurationSec)},
      {EnvRange, Opts.RangeName},
      {EnvRangeCount, std::to_string(Opts.RangeCount)},
      {EnvProfilerApi, Opts.ProfilerApi ? "1" : "0"},
      {EnvMaxEvents, std::to_string(Opts.MaxEvents)},
      {EnvQuiet, Opts.Quiet ? "1" : "0"}};
  if (Opts.LaunchMonotonicNs)
    Env.push_back({EnvLaunchNs, std::to_string(Opts.LaunchMonotonicNs)});
  return Env;
}

std::string tracelint::capture::rankTag(EnvLookupFn Lookup, void *Ctx) {
  if (const char *R = Lookup("RANK", Ctx); isNumeric(R))
    return std::string("rank") + R;
  if (const char *L = Lookup("LOCAL_RANK", Ctx); isNumeric(L))
    return std::string("local") + L;
  return {};
}

std::string tracelint::capture::traceFilePath(const CaptureOptions &Opts,
                                              const std::string &RankTag,
                                              long Pid) {
  std::string Path = Opts.OutputDir.empty() ? "." : Opts.OutputDir;
  if (Path.back() != '/')
    Path += '/';
  Path += Opts.Prefix;
  if (!RankTag.empty())
    Path += "." + RankTag;
  Path += ".pid" + std::to_string(Pid) + ".json";
  return Path;
}
