//===- analysis/Context.cpp -----------------------------------------------===//
#include "analysis/Context.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tracelint;
using namespace tracelint::analysis;
using model::Event;
using model::EventKind;
using model::Interval;

static std::string formatMs(int64_t Ns) {
  return llvm::formatv("{0:f3} ms", double(Ns) / 1e6).str();
}

Context::Context(const model::Trace &Tr) : T(Tr) {
  for (const model::Step &S : T.Steps)
    Steps.push_back({S.Number, {S.Start, S.End}, false});
  llvm::sort(Steps, [](const StepWindow &A, const StepWindow &B) {
    return A.Range.Begin < B.Range.Begin;
  });
  if (!Steps.empty())
    Steps.front().First = true;

  if (!Steps.empty()) {
    std::vector<int64_t> D;
    for (const StepWindow &S : Steps)
      D.push_back(S.Range.length());
    llvm::sort(D);
    size_t N = D.size();
    // Median of an even count: the mean of the two middle values.
    TargetNs = N % 2 ? D[N / 2] : (D[N / 2 - 1] + D[N / 2]) / 2;
    Target = TargetKind::MedianStep;
  } else {
    TargetNs = T.WindowEnd - T.WindowStart;
    Target = TargetKind::Window;
  }

  llvm::DenseMap<int32_t, std::vector<Interval>> Work;
  for (const model::Lane &L : T.Lanes) {
    for (const Event &E : T.events(L)) {
      if (E.Kind == EventKind::Runtime || E.Kind == EventKind::Driver)
        LaunchCalls += model::isLaunchCallName(T.name(E));
      if (!model::isDeviceWork(E.Kind))
        continue;
      ++DeviceWork;
      if (E.Correlation && T.launchOf(E) != model::NoIndex)
        ++LinkedDeviceWork;
      int32_t Dev = L.Kind == model::LaneKind::DeviceStream ? L.Device : -1;
      Work[Dev].push_back({E.Start, E.end()});
    }
  }
  for (auto &Entry : Work)
    DeviceIds.push_back(Entry.first);
  llvm::sort(DeviceIds);
  std::vector<Interval> All;
  for (int32_t D : DeviceIds) {
    auto &Parts = Work[D];
    All.insert(All.end(), Parts.begin(), Parts.end());
    BusyPerDevice.push_back(model::IntervalSet::unionOf(std::move(Parts)));
  }
  AllBusy = model::IntervalSet::unionOf(std::move(All));
}

std::string Context::describeTarget() const {
  if (Target == TargetKind::MedianStep)
    return llvm::formatv("median step time {0} ({1} steps)", formatMs(TargetNs),
                         Steps.size())
        .str();
  return llvm::formatv("window {0} (no step markers)", formatMs(TargetNs))
      .str();
}

int Context::stepAt(int64_t Time) const {
  auto It = llvm::upper_bound(Steps, Time, [](int64_t V, const StepWindow &S) {
    return V < S.Range.Begin;
  });
  if (It == Steps.begin())
    return -1;
  --It;
  return Time < It->Range.End ? int(It - Steps.begin()) : -1;
}

llvm::ArrayRef<StepWindow> Context::steadySteps() const {
  if (Steps.size() < 2)
    return Steps;
  return llvm::ArrayRef<StepWindow>(Steps).drop_front();
}

const model::IntervalSet &Context::deviceBusy(int32_t Device) const {
  static const model::IntervalSet Empty;
  auto It = llvm::lower_bound(DeviceIds, Device);
  if (It == DeviceIds.end() || *It != Device)
    return Empty;
  return BusyPerDevice[It - DeviceIds.begin()];
}

llvm::ArrayRef<int64_t> Context::selfTimes() const {
  if (!Self)
    Self = model::exclusiveTimes(T);
  return *Self;
}

std::string Context::describeLane(const model::Lane &L) const {
  switch (L.Kind) {
  case model::LaneKind::DeviceStream:
    return llvm::formatv("device {0} stream {1}", L.Device, L.Stream).str();
  case model::LaneKind::HostThread: {
    std::string S = llvm::formatv("thread {0}", L.Tid).str();
    if (L.Name != model::EmptyString)
      S += " (" + T.Strings.get(L.Name).str() + ")";
    return S;
  }
  case model::LaneKind::Other:
    return llvm::formatv("row {0}/{1}", T.Strings.get(L.RawPid),
                         T.Strings.get(L.RawTid))
        .str();
  }
  return "";
}

double Context::traceTimestampUs(const Event &E) const {
  // OriginNs is absolute (epoch or the producer's base); the file's ts is
  // relative to baseTimeNanoseconds when it had one, which the model folds
  // into OriginNs, so report absolute microseconds.
  return double(T.OriginNs + E.Start) / 1000.0;
}

std::string Context::opPath(const Event &E, unsigned MaxDepth) const {
  llvm::SmallVector<llvm::StringRef, 8> Names;
  const Event *Cur = &E;
  while (Cur && Names.size() < MaxDepth) {
    llvm::StringRef N = T.name(*Cur);
    if (!N.startswith("ProfilerStep#") &&
        (Cur->Kind == EventKind::Op || Cur->Kind == EventKind::Annotation ||
         Cur == &E))
      Names.push_back(N);
    Cur = Cur->Parent == model::NoIndex ? nullptr : &T.Events[Cur->Parent];
  }
  std::string Out;
  for (auto It = Names.rbegin(); It != Names.rend(); ++It) {
    if (!Out.empty())
      Out += " > ";
    Out += It->str();
  }
  return Out;
}
