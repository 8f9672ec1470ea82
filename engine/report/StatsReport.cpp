//===- report/StatsReport.cpp - Text form of `tracelint stats` ------------===//
#include "report/StatsReport.h"
#include "analysis/Producer.h"
#include "report/DevicePeaksReport.h"
#include "report/IdleSplit.h"
#include "rules/detectors/OpRates.h"
#include "rules/detectors/OpRoofs.h"
#include "support/Count.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <optional>

using namespace tracelint;
using namespace tracelint::support;
using namespace tracelint::report;
using analysis::TraceStats;
using model::Trace;

namespace {
/// Writes section labels and highlights; plain text when colour is off, so
/// that piped output never carries escape sequences.
class Painter {
public:
  Painter(llvm::raw_ostream &OS, bool Color) : OS(OS), Color(Color) {}

  /// A section label padded to the label column.
  void label(llvm::StringRef Label) {
    paint(llvm::formatv("{0,-12}", Label).str(), Bold);
    if (Label.size() >= 12)
      OS << "  ";
  }
  void paint(llvm::StringRef Text, const char *Code) {
    if (Color)
      OS << Code << Text << Reset;
    else
      OS << Text;
  }
  void warn(llvm::StringRef Text) { paint(Text, Yellow); }

  static constexpr const char *Bold = "\x1b[1m";
  static constexpr const char *Yellow = "\x1b[33m";
  static constexpr const char *Red = "\x1b[31m";
  static constexpr const char *Reset = "\x1b[0m";

private:
  llvm::raw_ostream &OS;
  bool Color;
};
} // namespace

static constexpr llvm::StringLiteral Indent = "            ";

/// "1 event", "2 events".
static std::string count(uint64_t N, llvm::StringRef Noun) {
  return support::formatCount(int64_t(N), Noun);
}

static const char *onOff(int8_t Flag) { return Flag ? "on" : "off"; }

static void writeProducer(llvm::raw_ostream &OS, Painter &P, const Trace &T,
                          const TraceStats &S) {
  const model::Producer &Src = T.Source;
  std::vector<std::string> Lines;
  std::string Line;
  if (!Src.Format.empty())
    Line = sanitize(Src.Format);
  if (!Src.Era.empty())
    Line += " (" + sanitize(Src.Era) + ")";
  if (Src.SchemaVersion >= 0)
    Line += llvm::formatv(", schema {0}", Src.SchemaVersion).str();
  if (!Line.empty())
    Lines.push_back(Line);

  std::vector<std::string> Versions;
  auto AddVersion = [&](llvm::StringRef What, const std::string &V) {
    if (!V.empty())
      Versions.push_back((What + " " + sanitize(V)).str());
  };
  AddVersion("CUPTI", Src.CuptiVersion);
  AddVersion("CUDA runtime", Src.CudaRuntimeVersion);
  AddVersion("CUDA driver", Src.CudaDriverVersion);
  AddVersion("roctracer", Src.RoctracerVersion);
  AddVersion("HIP runtime", Src.HipRuntimeVersion);
  AddVersion("HIP driver", Src.HipDriverVersion);
  if (!Versions.empty())
    Lines.push_back(llvm::join(Versions, ", "));

  if (Src.Rank >= 0 || Src.WorldSize >= 0 || !Src.DistributedBackend.empty()) {
    std::string Dist = Src.Rank >= 0 ? llvm::formatv("rank {0}", Src.Rank).str()
                                     : std::string("rank unknown");
    if (Src.WorldSize >= 0)
      Dist += llvm::formatv(" of {0}", Src.WorldSize).str();
    if (!Src.DistributedBackend.empty())
      Dist += ", backend " + sanitize(Src.DistributedBackend);
    Lines.push_back(Dist);
  }

  std::vector<std::string> Options;
  auto AddOption = [&](const char *Name, int8_t Flag) {
    if (Flag >= 0)
      Options.push_back(std::string(Name) + " " + onOff(Flag));
  };
  AddOption("record_shapes", Src.RecordShapes);
  AddOption("profile_memory", Src.ProfileMemory);
  AddOption("with_stack", Src.WithStack);
  AddOption("with_flops", Src.WithFlops);
  AddOption("with_modules", Src.WithModules);
  if (!Options.empty())
    Lines.push_back("profiler options: " + llvm::join(Options, ", "));
  if (!Src.TraceName.empty())
    Lines.push_back("trace name " + sanitize(Src.TraceName, MaxNameColumns));

  P.label("producer");
  if (Lines.empty())
    Lines.push_back("not recorded");
  for (size_t I = 0; I < Lines.size(); ++I)
    OS << (I ? Indent : "") << Lines[I] << "\n";

  for (const model::DeviceInfo &D : T.Devices) {
    P.label(llvm::formatv("gpu {0}", D.Id).str());
    OS << (D.Name.empty() ? std::string("unnamed") : sanitize(D.Name));
    if (std::string Arch = analysis::archName(D, S.Program.Plat); !Arch.empty())
      OS << ", " << Arch;
    if (D.NumSMs >= 0)
      OS << ", " << D.NumSMs << " "
         << analysis::computeUnitsWord(D, S.Program.Plat);
    if (D.TotalGlobalMemory >= 0)
      OS << ", " << formatBytes(D.TotalGlobalMemory) << " memory";
    OS << "\n";
  }
  // The program the rule texts are written for, and what told it.
  P.label("program");
  OS << analysis::producerName(S.Program.Kind) << " ("
     << sanitize(S.Program.Signals, 200) << ")\n";
}

static void writeWindowAndSteps(llvm::raw_ostream &OS, Painter &P,
                                const TraceStats &S) {
  P.label("lanes");
  OS << count(S.NumHostThreads, "host thread") << ", "
     << count(S.NumDeviceStreams, "device stream") << ", " << S.NumOtherLanes
     << " other; " << count(S.NumEvents, "event") << "\n";
  P.label("window");
  OS << formatDuration(S.Window.length()) << " ("
     << formatDuration(S.Window.Begin) << " .. " << formatDuration(S.Window.End)
     << ")\n";

  P.label("steps");
  const analysis::StepStats &St = S.Steps;
  if (!St.Count) {
    OS << "no step markers; the whole window is used\n";
    return;
  }
  OS << llvm::formatv(
      "{0} from {1} (#{2}..#{3}): median step time {4}{5}, "
      "min {6}, max {7}\n",
      St.Count, model::stepSourceName(St.From), St.FirstNumber, St.LastNumber,
      formatDuration(St.MedianNs),
      St.Steady < St.Count
          ? " (the " + support::formatCount(St.Steady, "steady step") + ")"
          : std::string(),
      formatDuration(St.MinNs), formatDuration(St.MaxNs));
  OS << Indent << "span " << formatDuration(St.Span.Begin) << " .. "
     << formatDuration(St.Span.End) << " (" << formatDuration(St.Span.length())
     << ")\n";
}

static void
writeDevices(llvm::raw_ostream &OS, Painter &P, const Trace &T,
             const TraceStats &S,
             llvm::ArrayRef<rules::detect::DevicePeaks> PeakOverrides) {
  P.label("devices");
  if (!S.hasDeviceActivity()) {
    P.warn("device activity was not recorded; device busy and idle time "
           "cannot be judged");
    OS << "\n";
    if (S.NumLaunchCalls) {
      OS << Indent;
      P.warn(count(S.NumLaunchCalls, "kernel launch call") +
             (S.NumLaunchCalls == 1 ? " exists" : " exist") +
             " but no device events were captured");
      OS << "\n";
    }
    return;
  }
  OS << "busy = union of device work; idle = window - busy\n";
  for (const analysis::DeviceStats &D : S.Devices) {
    OS << "  ";
    P.paint(llvm::formatv("device {0}", D.Device).str(), Painter::Bold);
    for (const model::DeviceInfo &Info : T.Devices)
      if (Info.Id == D.Device && !Info.Name.empty())
        OS << " (" << sanitize(Info.Name) << ")";
    OS << ": " << count(D.NumStreams, "stream");
    if (!D.HasWork) {
      OS << ", ";
      P.warn("no device work recorded; cannot judge");
      OS << "\n";
      continue;
    }
    OS << llvm::formatv(
        ", {0}, active {1} .. {2}\n", count(D.NumWorkEvents, "event"),
        formatDuration(D.Active.Begin), formatDuration(D.Active.End));
    OS << "    busy " << formatDuration(D.BusyNs);
    if (D.BusyShare) {
      OS << " (" << formatShare(*D.BusyShare) << " of window";
      // The figure HTA and TraceLens call GPU utilization.
      if (D.ActiveBusyShare)
        OS << ", " << formatShare(*D.ActiveBusyShare) << " of active span";
      OS << ")";
    }
    OS << ", idle " << formatDuration(D.IdleNs) << "\n";
    OS << "    compute " << formatDuration(D.ComputeNs) << ", copy "
       << formatDuration(D.CopyNs) << ", memset " << formatDuration(D.MemsetNs)
       << ", communication " << formatDuration(D.CommunicationNs)
       << " (each a union)\n";
    if (D.StepBusyNs) {
      OS << "    in steps: busy " << formatDuration(*D.StepBusyNs);
      if (D.StepBusyShare)
        OS << " (" << formatShare(*D.StepBusyShare) << " of step span)";
      OS << "\n";
    }
    if (S.Idle.Device == D.Device)
      if (std::string Split = idleSplitText(S.Idle); !Split.empty())
        OS << "    in lint's target: " << Split << "\n";
    // The roofs its ops' rates are judged against (docs/device-peaks.md).
    OS << "    " << sanitize(peaksLine(T, D.Device, PeakOverrides)) << "\n";
  }
  if (S.NumDeviceWorkOffStreams)
    OS << Indent << S.NumDeviceWorkOffStreams
       << " device events on lanes that are not device streams (not in busy "
          "time)\n";
}

namespace {
/// The last column of a duration table.
enum class LastColumn { BusyShare, Kind, None };
} // namespace

/// The header of a duration table: nsys's summary columns, then \p Last.
static void writeDurationHeader(llvm::raw_ostream &OS, llvm::StringRef Last,
                                llvm::StringRef What) {
  OS << llvm::formatv("  {0,8}  {1,10}  {2,7}  {3,10}  {4,10}  {5,10}  {6,10}"
                      "  {7,10}",
                      "count", "total", "time%", "mean", "median", "min", "max",
                      "stddev");
  if (!Last.empty())
    OS << llvm::formatv("  {0,7}", Last);
  OS << "  " << What << "\n";
}

/// One row: count, total, time share, mean, median, min, max, stddev.
static void writeDurationRow(llvm::raw_ostream &OS, uint64_t Count,
                             int64_t Total, std::optional<double> TimeShare,
                             double Mean, int64_t Median, int64_t Min,
                             int64_t Max, double StdDev) {
  OS << llvm::formatv(
      "  {0,8}  {1,10}  {2,7}  {3,10}  {4,10}  {5,10}  {6,10}  {7,10}", Count,
      formatDuration(Total), TimeShare ? formatShare(*TimeShare) : "-",
      formatDuration(static_cast<int64_t>(std::llround(Mean))),
      formatDuration(Median), formatDuration(Min), formatDuration(Max),
      formatDuration(static_cast<int64_t>(std::llround(StdDev))));
}

static void writeNameTable(llvm::raw_ostream &OS, const Trace &T,
                           llvm::ArrayRef<analysis::NameStats> Rows,
                           LastColumn Last) {
  writeDurationHeader(OS,
                      Last == LastColumn::BusyShare ? "share"
                      : Last == LastColumn::Kind    ? "kind"
                                                    : "",
                      "name");
  for (const analysis::NameStats &N : Rows) {
    writeDurationRow(OS, N.Count, N.TotalNs, N.TimeShare, N.meanNs(),
                     N.MedianNs, N.MinNs, N.MaxNs, N.StdDevNs);
    if (Last == LastColumn::BusyShare)
      OS << llvm::formatv("  {0,7}",
                          N.BusyShare ? formatShare(*N.BusyShare) : "-");
    else if (Last == LastColumn::Kind)
      OS << llvm::formatv("  {0,7}", model::eventKindName(N.Kind));
    OS << "  " << sanitize(T.Strings.get(N.Name), MaxNameColumns) << "\n";
  }
}

static void writeTop(llvm::raw_ostream &OS, Painter &P, const Trace &T,
                     const TraceStats &S) {
  P.label("top kernels");
  if (!S.NumKernels) {
    OS << "none recorded\n";
  } else {
    OS << llvm::formatv("{0} of {1} distinct names, {2}, by total time\n",
                        S.TopKernels.size(), S.NumDistinctKernels,
                        count(S.NumKernels, "event"));
    // Concurrent kernels overlap, so shares of busy time can add past 100 %.
    OS << Indent << "time% = total / all kernel time; share = total / busy "
       << "time summed over devices; overlapping kernels can add past 100 %\n";
    writeNameTable(OS, T, S.TopKernels, LastColumn::BusyShare);
  }
  P.label("top runtime/driver calls");
  if (!S.NumRuntimeCalls) {
    OS << "none recorded\n";
  } else {
    OS << llvm::formatv("{0} of {1} distinct, {2}, by total time\n",
                        S.TopRuntimeCalls.size(), S.NumDistinctRuntimeCalls,
                        count(S.NumRuntimeCalls, "call"));
    writeNameTable(OS, T, S.TopRuntimeCalls, LastColumn::Kind);
  }
  // Only traces that record OS runtime calls (Nsight Systems) get this table.
  if (!S.NumOsRuntimeCalls)
    return;
  P.label("top OS runtime calls");
  OS << llvm::formatv("{0} of {1} distinct, {2}, by total time\n",
                      S.TopOsRuntimeCalls.size(), S.NumDistinctOsRuntimeCalls,
                      count(S.NumOsRuntimeCalls, "call"));
  writeNameTable(OS, T, S.TopOsRuntimeCalls, LastColumn::None);
}

static void writeCopies(llvm::raw_ostream &OS, Painter &P,
                        const TraceStats &S) {
  P.label("copies");
  if (S.Copies.empty()) {
    OS << "none recorded\n";
  } else {
    OS << "bandwidth = bytes / time of the copies whose size is known\n";
    OS << llvm::formatv("  {0,-5} {1,-9} {2,-9} {3,8}  {4,11}  {5,11}  {6,12}"
                        "\n",
                        "kind", "src", "dst", "count", "bytes", "time",
                        "bandwidth");
    for (const analysis::CopyStats &C : S.Copies) {
      std::string Bandwidth =
          C.BandwidthGBps ? llvm::formatv("{0:F2} GB/s", *C.BandwidthGBps).str()
                          : std::string("-");
      OS << llvm::formatv(
          "  {0,-5} {1,-9} {2,-9} {3,8}  {4,11}  {5,11}  "
          "{6,12}",
          model::copyKindName(C.Kind), model::memoryKindName(C.Src),
          model::memoryKindName(C.Dst), C.Count, formatBytes(C.Bytes),
          formatDuration(C.DurationNs), Bandwidth);
      if (C.UnknownBytesCount)
        OS << "  (" << C.UnknownBytesCount << " of unknown size)";
      OS << "\n";
    }
  }
  P.label("memsets");
  if (!S.Memsets.Count) {
    OS << "none recorded\n";
  } else {
    OS << llvm::formatv("{0}, {1}, {2}", S.Memsets.Count,
                        formatBytes(S.Memsets.Bytes),
                        formatDuration(S.Memsets.DurationNs));
    if (S.Memsets.UnknownBytesCount)
      OS << " (" << S.Memsets.UnknownBytesCount << " of unknown size)";
    OS << "\n";
  }
  // Only traces with managed-memory migrations (nsys's unified-memory
  // copies) get this table.
  if (!S.Migrations.empty()) {
    P.label("migrations");
    OS << "managed-memory page migrations: no host call launched them, not "
          "in device busy time\n";
    OS << llvm::formatv("  {0,-5} {1,8}  {2,11}  {3,11}  {4,12}\n", "kind",
                        "count", "bytes", "time", "bandwidth");
    for (const analysis::MigrationStats &M : S.Migrations) {
      int64_t KnownNs = M.Count > M.UnknownBytesCount ? M.DurationNs : 0;
      std::string Bandwidth =
          M.UnknownBytesCount == 0 && KnownNs > 0
              ? llvm::formatv("{0:F2} GB/s", double(M.Bytes) / double(KnownNs))
                    .str()
              : std::string("-");
      OS << llvm::formatv("  {0,-5} {1,8}  {2,11}  {3,11}  {4,12}",
                          model::copyKindName(M.Kind), M.Count,
                          formatBytes(M.Bytes), formatDuration(M.DurationNs),
                          Bandwidth);
      if (M.UnknownBytesCount)
        OS << "  (" << M.UnknownBytesCount << " of unknown size)";
      OS << "\n";
    }
  }
  if (S.MemoryOps.empty())
    return;
  P.label("copy time");
  OS << "device time of copies by direction and of memsets (summed)\n";
  writeDurationHeader(OS, "", "operation");
  for (const analysis::MemoryOpStats &Op : S.MemoryOps) {
    writeDurationRow(OS, Op.Count, Op.TotalNs, Op.TimeShare, Op.meanNs(),
                     Op.MedianNs, Op.MinNs, Op.MaxNs, Op.StdDevNs);
    if (Op.Kind == model::EventKind::Memset)
      OS << "  memset\n";
    else
      OS << "  memcpy " << model::copyKindName(Op.Copy) << "\n";
  }
}

static void writeImport(llvm::raw_ostream &OS, Painter &P, const Trace &T,
                        const TraceStats &S) {
  P.label("import");
  if (S.Import.empty() && T.Stats.TruncatedAtByte < 0) {
    OS << "nothing counted\n";
    return;
  }
  OS << "what the importer read, dropped, fixed or could not link\n";
  size_t NameWidth = 0;
  for (const analysis::ImportCount &C : S.Import)
    NameWidth = std::max(NameWidth, model::importStatName(C.Stat).size());
  for (const analysis::ImportCount &C : S.Import) {
    model::StatSeverity Sev = model::importStatSeverity(C.Stat);
    OS << "  ";
    std::string SevText =
        llvm::formatv("{0,-9}", model::statSeverityName(Sev)).str();
    if (Sev == model::StatSeverity::Info)
      OS << SevText;
    else
      P.paint(SevText, Sev == model::StatSeverity::DataLoss ? Painter::Red
                                                            : Painter::Yellow);
    llvm::StringRef Name = model::importStatName(C.Stat);
    OS << llvm::formatv(" {0,10}  {1}{2}  {3}", C.Count, Name,
                        std::string(NameWidth - Name.size(), ' '),
                        model::importStatDescription(C.Stat));
    llvm::StringRef Where = T.Stats.firstPlace(C.Stat);
    if (!Where.empty())
      OS << "; first: " << sanitize(Where, MaxNameColumns);
    OS << "\n";
  }
  if (T.Stats.TruncatedAtByte >= 0) {
    OS << "  ";
    P.paint(llvm::formatv("{0,-9}", "data-loss").str(), Painter::Red);
    OS << " input truncated at byte " << T.Stats.TruncatedAtByte << "\n";
  }
}

/// \p S and spaces to \p Width columns.
static std::string padded(llvm::StringRef S, size_t Width) {
  return S.str() + std::string(Width > S.size() ? Width - S.size() : 0, ' ');
}

/// "30.9 % memory" or "8.3 % bf16 matrix": an op's share of the roof that
/// bounds it (docs/device-peaks.md); "-" without one.
static std::string
roofCell(const rules::detect::OpRate &R,
         const std::optional<rules::detect::RoofPosition> &Pos) {
  if (!Pos)
    return "-";
  std::string Roof = rules::detect::roofWords(R, *Pos);
  llvm::StringRef Words(Roof);
  Words.consume_front("the ");
  Words.consume_back(" peak");
  if (Words == "memory bandwidth")
    Words = "memory";
  return formatShare(Pos->Share) + " " + Words.str();
}

/// The op calls with recorded shapes whose work tracelint counts, most
/// kernel time first: what each op and argument set achieved per call
/// (docs/efficiency.md). Only when there are any.
static void writeOps(llvm::raw_ostream &OS, Painter &P, const Trace &T,
                     llvm::ArrayRef<rules::detect::DevicePeaks> PeakOverrides) {
  std::vector<rules::detect::OpRate> Rates = rules::detect::opRates(T);
  if (Rates.empty())
    return;
  rules::detect::OpRoofs Roofs =
      rules::detect::opRoofs(T, Rates, PeakOverrides);
  constexpr size_t Shown = 10, MaxOp = 44, MaxShape = 48;
  const size_t N = std::min(Rates.size(), Shown);
  std::vector<std::string> Shapes;
  size_t OpWidth = 2, ShapeWidth = 5;
  for (size_t I = 0; I < N; ++I) {
    Shapes.push_back(sanitize(Rates[I].shapeText(), MaxShape));
    OpWidth = std::max(OpWidth, sanitize(Rates[I].Op, MaxOp).size());
    ShapeWidth = std::max(ShapeWidth, Shapes.back().size());
  }
  P.label("ops");
  OS << llvm::formatv("achieved rates of the {0} op and argument set{1} with "
                      "recorded shapes{2} (docs/efficiency.md)\n",
                      Rates.size(), Rates.size() == 1 ? "" : "s",
                      Rates.size() > Shown ? ", the top 10 by kernel time"
                                           : ", by kernel time");
  // On a device whose peaks are unknown, the share column is left out.
  auto Row = [&](llvm::StringRef Category, llvm::StringRef Op,
                 llvm::StringRef Shape, llvm::StringRef Dtype,
                 llvm::StringRef Calls, llvm::StringRef Kernel,
                 llvm::StringRef Tflops, llvm::StringRef Tbps,
                 llvm::StringRef PerByte, llvm::StringRef Roof) {
    OS << llvm::formatv("  {0,-13} {1}  {2}  {3,-14} {4,6}  {5,11}  {6,8}  "
                        "{7,7}  {8,7}",
                        Category, padded(Op, OpWidth),
                        padded(Shape, ShapeWidth), Dtype, Calls, Kernel, Tflops,
                        Tbps, PerByte);
    if (Roofs.Peaks)
      OS << "  " << Roof;
    OS << "\n";
  };
  Row("category", "op", "shape", "dtype", "calls", "kernel/call", "TFLOP/s",
      "TB/s", "FLOP/B", "share of roof");
  for (size_t I = 0; I < N; ++I) {
    const rules::detect::OpRate &R = Rates[I];
    // Without a known element type there are no bytes to rate.
    const bool Bytes = R.Bytes > 0;
    Row(rules::detect::categoryName(R.Category), sanitize(R.Op, MaxOp),
        Shapes[I], sanitize(R.Dtype.empty() ? "-" : R.Dtype, 14),
        std::to_string(R.Calls), formatDuration(R.KernelNsMedian),
        llvm::formatv("{0:F1}", R.TflopsMedian).str(),
        Bytes ? llvm::formatv("{0:F2}", R.TbpsMedian).str() : "-",
        Bytes ? llvm::formatv("{0:F1}", R.flopsPerByte()).str() : "-",
        roofCell(R, Roofs.Positions[I]));
  }
  if (!Roofs.Peaks && !Roofs.Unknown.empty())
    OS << "  no shares of a roof: " << sanitize(Roofs.Unknown) << "\n";
}

void report::writeStatsText(
    llvm::raw_ostream &OS, const Trace &T, const TraceStats &S,
    llvm::StringRef InputName, bool Color,
    llvm::ArrayRef<rules::detect::DevicePeaks> PeakOverrides) {
  Painter P(OS, Color);
  P.paint("tracelint stats", Painter::Bold);
  OS << ": " << sanitize(InputName) << "\n";
  writeProducer(OS, P, T, S);
  writeWindowAndSteps(OS, P, S);
  writeDevices(OS, P, T, S, PeakOverrides);
  writeTop(OS, P, T, S);
  writeCopies(OS, P, S);
  writeOps(OS, P, T, PeakOverrides);
  writeImport(OS, P, T, S);
}
