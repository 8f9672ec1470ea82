//===- report/StatsJson.cpp - JSON form of `tracelint stats` --------------===//
//
// Keys are written in a fixed order so that two runs over the same trace give
// byte-identical output (diffs and baselines rely on it). Fields the trace did
// not record are left out rather than written as zero.
//
//===----------------------------------------------------------------------===//
#include "report/DevicePeaksReport.h"
#include "report/IdleSplit.h"
#include "report/JsonSupport.h"
#include "report/StatsReport.h"
#include "rules/detectors/OpRates.h"
#include "rules/detectors/OpRoofs.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <cstdint>
#include <optional>

using namespace tracelint;
using analysis::TraceStats;
using model::Trace;

/// Bumped when a field changes meaning or is removed.
static constexpr int64_t StatsJsonVersion = 1;

/// LLVM 14's json::Value has no uint64_t constructor; counts never get near
/// the int64 limit, but clamp rather than wrap.
static int64_t count(uint64_t N) {
  return N > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(N);
}

/// Trace strings are untrusted: json::Value asserts on invalid UTF-8, so
/// repair it first (U+FFFD for bad bytes).
static std::string text(llvm::StringRef S) {
  return llvm::json::isUTF8(S) ? S.str() : llvm::json::fixUTF8(S);
}

static void writeProducer(llvm::json::OStream &J, const Trace &T,
                          const TraceStats &S) {
  const model::Producer &Src = T.Source;
  auto Str = [&](llvm::StringRef Key, const std::string &V) {
    if (!V.empty())
      J.attribute(Key, text(V));
  };
  auto Int = [&](llvm::StringRef Key, int64_t V) {
    if (V >= 0)
      J.attribute(Key, V);
  };
  auto Flag = [&](llvm::StringRef Key, int8_t V) {
    if (V >= 0)
      J.attribute(Key, V != 0);
  };
  J.attributeObject("producer", [&] {
    Str("format", Src.Format);
    Str("era", Src.Era);
    Int("schema_version", Src.SchemaVersion);
    Str("cupti_version", Src.CuptiVersion);
    Str("cuda_runtime_version", Src.CudaRuntimeVersion);
    Str("cuda_driver_version", Src.CudaDriverVersion);
    Str("roctracer_version", Src.RoctracerVersion);
    Str("hip_runtime_version", Src.HipRuntimeVersion);
    Str("hip_driver_version", Src.HipDriverVersion);
    Str("trace_name", Src.TraceName);
    Str("display_time_unit", Src.DisplayTimeUnit);
    Int("rank", Src.Rank);
    Int("world_size", Src.WorldSize);
    Str("distributed_backend", Src.DistributedBackend);
    Flag("record_shapes", Src.RecordShapes);
    Flag("profile_memory", Src.ProfileMemory);
    Flag("with_stack", Src.WithStack);
    Flag("with_flops", Src.WithFlops);
    Flag("with_modules", Src.WithModules);
    // The program whose vocabulary the rule texts use (docs/import.md).
    J.attribute("program", analysis::producerName(S.Program.Kind));
    J.attribute("program_signals", text(S.Program.Signals));
    // CUDA or ROCm: whose tools and names the advice uses.
    J.attribute("platform", analysis::platformName(S.Program.Plat));
  });
  J.attributeArray("hardware", [&] {
    for (const model::DeviceInfo &D : T.Devices)
      J.object([&] {
        J.attribute("id", D.Id);
        Str("name", D.Name);
        if (D.ComputeMajor >= 0)
          J.attribute("compute_capability",
                      std::to_string(D.ComputeMajor) + "." +
                          std::to_string(std::max(D.ComputeMinor, 0)));
        // AMD's gfx target; NVIDIA's part is its compute capability.
        if (analysis::computeUnitsWord(D, S.Program.Plat) == "CUs")
          Str("arch", analysis::archName(D, S.Program.Plat));
        Int("sms", D.NumSMs);
        Int("memory_bytes", D.TotalGlobalMemory);
      });
  });
}

void report::writeProducerJson(llvm::json::OStream &J, const Trace &T,
                               const TraceStats &S) {
  writeProducer(J, T, S);
}

static void writeSteps(llvm::json::OStream &J, const TraceStats &S) {
  const analysis::StepStats &St = S.Steps;
  J.attributeObject("steps", [&] {
    J.attribute("source", model::stepSourceName(St.From));
    J.attribute("count", count(St.Count));
    if (!St.Count) {
      J.attribute("note", "no step markers; the whole window is used");
      return;
    }
    J.attribute("first", St.FirstNumber);
    J.attribute("last", St.LastNumber);
    J.attribute("median_ns", St.MedianNs);
    J.attribute("steady", int64_t(St.Steady));
    J.attribute("min_ns", St.MinNs);
    J.attribute("max_ns", St.MaxNs);
    J.attribute("span_start_ns", St.Span.Begin);
    J.attribute("span_end_ns", St.Span.End);
  });
}

static void
writeDevices(llvm::json::OStream &J, const Trace &T, const TraceStats &S,
             llvm::ArrayRef<rules::detect::DevicePeaks> PeakOverrides) {
  J.attribute("device_activity", S.hasDeviceActivity() ? "present" : "absent");
  J.attribute("launch_calls", count(S.NumLaunchCalls));
  if (!S.hasDeviceActivity()) {
    J.attribute("device_note",
                S.NumLaunchCalls
                    ? "kernel launch calls exist but no device "
                      "events were captured; device figures cannot "
                      "be judged"
                    : "device activity was not recorded; device "
                      "figures cannot be judged");
    return;
  }
  J.attribute("device_work_off_streams", count(S.NumDeviceWorkOffStreams));
  report::writeIdleSplitJson(J, S.Idle);
  J.attribute("total_busy_ns", S.TotalBusyNs);
  J.attributeArray("devices", [&] {
    for (const analysis::DeviceStats &D : S.Devices)
      J.object([&] {
        J.attribute("device", D.Device);
        J.attribute("streams", D.NumStreams);
        J.attribute("events", count(D.NumWorkEvents));
        if (!D.HasWork) {
          J.attribute("device_activity", "absent");
          return;
        }
        J.attribute("device_activity", "present");
        J.attribute("active_start_ns", D.Active.Begin);
        J.attribute("active_end_ns", D.Active.End);
        J.attribute("busy_ns", D.BusyNs);
        J.attribute("idle_ns", D.IdleNs);
        if (D.BusyShare)
          J.attribute("busy_share", *D.BusyShare);
        if (D.ActiveBusyShare)
          J.attribute("active_busy_share", *D.ActiveBusyShare);
        J.attributeObject("busy_by_category", [&] {
          J.attribute("compute_ns", D.ComputeNs);
          J.attribute("copy_ns", D.CopyNs);
          J.attribute("memset_ns", D.MemsetNs);
          J.attribute("communication_ns", D.CommunicationNs);
        });
        if (D.StepBusyNs)
          J.attributeObject("in_steps", [&] {
            J.attribute("busy_ns", *D.StepBusyNs);
            if (D.StepBusyShare)
              J.attribute("busy_share", *D.StepBusyShare);
          });
        // The roofs its ops' rates are judged against.
        report::writePeaksJson(J, T, D.Device, PeakOverrides);
      });
  });
}

/// The duration columns shared by every summary table (nsys's cuda_*_sum).
static void writeSpread(llvm::json::OStream &J, double Mean, int64_t Median,
                        int64_t Min, int64_t Max, double StdDev,
                        std::optional<double> TimeShare) {
  J.attribute("mean_ns", static_cast<int64_t>(std::llround(Mean)));
  J.attribute("median_ns", Median);
  J.attribute("min_ns", Min);
  J.attribute("max_ns", Max);
  J.attribute("stddev_ns", static_cast<int64_t>(std::llround(StdDev)));
  if (TimeShare)
    J.attribute("time_share", *TimeShare);
}

static void writeNames(llvm::json::OStream &J, const Trace &T,
                       llvm::StringRef Key,
                       llvm::ArrayRef<analysis::NameStats> Rows,
                       uint64_t Distinct, uint64_t Count, bool WithKind) {
  J.attributeObject(Key, [&] {
    J.attribute("distinct", count(Distinct));
    J.attribute("count", count(Count));
    J.attributeArray("entries", [&] {
      for (const analysis::NameStats &N : Rows)
        J.object([&] {
          J.attribute("name", text(T.Strings.get(N.Name)));
          if (WithKind)
            J.attribute("kind", model::eventKindName(N.Kind));
          J.attribute("count", count(N.Count));
          J.attribute("total_ns", N.TotalNs);
          writeSpread(J, N.meanNs(), N.MedianNs, N.MinNs, N.MaxNs, N.StdDevNs,
                      N.TimeShare);
          if (N.BusyShare)
            J.attribute("busy_share", *N.BusyShare);
        });
    });
  });
}

static void writeCopies(llvm::json::OStream &J, const TraceStats &S) {
  J.attributeArray("copies", [&] {
    for (const analysis::CopyStats &C : S.Copies)
      J.object([&] {
        J.attribute("kind", model::copyKindName(C.Kind));
        J.attribute("src", model::memoryKindName(C.Src));
        J.attribute("dst", model::memoryKindName(C.Dst));
        J.attribute("count", count(C.Count));
        J.attribute("unknown_bytes_count", count(C.UnknownBytesCount));
        J.attribute("bytes", C.Bytes);
        J.attribute("duration_ns", C.DurationNs);
        J.attribute("known_bytes_duration_ns", C.KnownBytesDurationNs);
        if (C.BandwidthGBps)
          J.attribute("bandwidth_gbps", *C.BandwidthGBps);
      });
  });
  J.attributeObject("memsets", [&] {
    J.attribute("count", count(S.Memsets.Count));
    J.attribute("unknown_bytes_count", count(S.Memsets.UnknownBytesCount));
    J.attribute("bytes", S.Memsets.Bytes);
    J.attribute("duration_ns", S.Memsets.DurationNs);
  });
  // Page migrations are not copies: apart, and in no busy time.
  J.attributeArray("migrations", [&] {
    for (const analysis::MigrationStats &M : S.Migrations)
      J.object([&] {
        J.attribute("kind", model::copyKindName(M.Kind));
        J.attribute("count", count(M.Count));
        J.attribute("unknown_bytes_count", count(M.UnknownBytesCount));
        J.attribute("bytes", M.Bytes);
        J.attribute("duration_ns", M.DurationNs);
      });
  });
  J.attributeArray("memory_operations", [&] {
    for (const analysis::MemoryOpStats &Op : S.MemoryOps)
      J.object([&] {
        J.attribute("operation", model::eventKindName(Op.Kind));
        if (Op.Kind == model::EventKind::Memcpy)
          J.attribute("kind", model::copyKindName(Op.Copy));
        J.attribute("count", count(Op.Count));
        J.attribute("total_ns", Op.TotalNs);
        writeSpread(J, Op.meanNs(), Op.MedianNs, Op.MinNs, Op.MaxNs,
                    Op.StdDevNs, Op.TimeShare);
      });
  });
}

static void writeImport(llvm::json::OStream &J, const Trace &T,
                        const TraceStats &S) {
  J.attributeObject("import", [&] {
    if (T.Stats.TruncatedAtByte >= 0)
      J.attribute("truncated_at_byte", T.Stats.TruncatedAtByte);
    J.attributeArray("counters", [&] {
      for (const analysis::ImportCount &C : S.Import)
        J.object([&] {
          J.attribute("name", model::importStatName(C.Stat));
          J.attribute("severity", model::statSeverityName(
                                      model::importStatSeverity(C.Stat)));
          J.attribute("description", model::importStatDescription(C.Stat));
          J.attribute("count", count(C.Count));
          llvm::StringRef Where = T.Stats.firstPlace(C.Stat);
          if (!Where.empty())
            J.attribute("first_place", text(Where));
        });
    });
  });
}

/// Writes the JSON array \p Text (an argument list as the trace records
/// it) under \p Key, on one line; nothing when it is empty or not JSON.
static void writeRecorded(llvm::json::OStream &J, llvm::StringRef Key,
                          llvm::StringRef Text) {
  if (Text.empty())
    return;
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V) {
    llvm::consumeError(V.takeError());
    return;
  }
  J.attributeBegin(Key);
  J.rawValue(llvm::formatv("{0}", *V).str());
  J.attributeEnd();
}

/// The achieved rates per op and argument set (docs/efficiency.md), most
/// kernel time first.
static void
writeOpEfficiency(llvm::json::OStream &J, const Trace &T,
                  llvm::ArrayRef<rules::detect::DevicePeaks> PeakOverrides) {
  std::vector<rules::detect::OpRate> Rates = rules::detect::opRates(T);
  rules::detect::OpRoofs Roofs =
      rules::detect::opRoofs(T, Rates, PeakOverrides);
  J.attributeArray("op_efficiency", [&] {
    for (size_t I = 0; I < Rates.size(); ++I)
      J.object([&] {
        const rules::detect::OpRate &R = Rates[I];
        const std::optional<rules::detect::RoofPosition> &Pos =
            Roofs.Positions[I];
        J.attribute("op", R.Op);
        J.attribute("category", rules::detect::categoryName(R.Category));
        J.attributeObject("params", [&] {
          for (const auto &[Key, Value] : R.Params)
            J.attribute(Key, Value);
        });
        J.attribute("shape", R.shapeText());
        J.attribute("dtype", R.Dtype);
        J.attribute("matrix_units", R.MatrixUnits);
        J.attribute("calls", int64_t(R.Calls));
        J.attribute("kernel_ns", R.KernelNsMedian);
        J.attribute("kernel_ns_total", R.KernelNsTotal);
        J.attribute("flops", int64_t(R.Flops));
        J.attribute("bytes", int64_t(R.Bytes));
        report::writeRounded(J, "tflops", R.TflopsMedian);
        report::writeRounded(J, "tbps", R.TbpsMedian);
        report::writeRounded(J, "flops_per_byte", R.flopsPerByte());
        // The share of the roof that bounds the op on the device that ran
        // it (docs/device-peaks.md); null when its peaks are unknown.
        if (Pos) {
          report::writeRounded(J, "peak_share", Pos->Share);
          J.attribute("bound",
                      Pos->MemoryBound || R.Flops <= 0 ? "memory" : "compute");
          report::writeRounded(J, "roof_tflops", Pos->RoofTflops);
        } else {
          J.attribute("peak_share", nullptr);
        }
        writeRecorded(J, "input_dims", R.InputDims);
        writeRecorded(J, "input_types", R.InputTypes);
        writeRecorded(J, "concrete_inputs", R.ConcreteInputs);
      });
  });
}

void report::writeStatsJson(
    llvm::raw_ostream &OS, const Trace &T, const TraceStats &S,
    llvm::StringRef InputName,
    llvm::ArrayRef<rules::detect::DevicePeaks> PeakOverrides) {
  llvm::json::OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    J.attribute("version", StatsJsonVersion);
    J.attribute("input", text(InputName));
    writeProducer(J, T, S);
    J.attributeObject("lanes", [&] {
      J.attribute("host_threads", S.NumHostThreads);
      J.attribute("device_streams", S.NumDeviceStreams);
      J.attribute("other", S.NumOtherLanes);
    });
    J.attributeObject("window", [&] {
      J.attribute("start_ns", S.Window.Begin);
      J.attribute("end_ns", S.Window.End);
      J.attribute("duration_ns", S.Window.length());
      J.attribute("events", count(S.NumEvents));
    });
    writeSteps(J, S);
    writeDevices(J, T, S, PeakOverrides);
    writeNames(J, T, "top_kernels", S.TopKernels, S.NumDistinctKernels,
               S.NumKernels, /*WithKind=*/false);
    writeNames(J, T, "top_runtime_calls", S.TopRuntimeCalls,
               S.NumDistinctRuntimeCalls, S.NumRuntimeCalls,
               /*WithKind=*/true);
    // Only traces that record OS runtime calls (Nsight Systems) have them.
    if (S.NumOsRuntimeCalls)
      writeNames(J, T, "top_os_runtime_calls", S.TopOsRuntimeCalls,
                 S.NumDistinctOsRuntimeCalls, S.NumOsRuntimeCalls,
                 /*WithKind=*/false);
    writeCopies(J, S);
    writeOpEfficiency(J, T, PeakOverrides);
    writeImport(J, T, S);
  });
  OS << "\n";
}
