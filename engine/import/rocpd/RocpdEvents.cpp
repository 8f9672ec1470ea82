//===- import/rocpd/RocpdEvents.cpp - The event tables of a run -----------===//
//
// Regions (API calls and roctx ranges), samples (instants), kernel
// dispatches, memory copies and allocations. Each table is read once, in
// rowid order, with the rocpd_event row of each event joined in: its
// category says what a region is, and its stack_id is rocprofiler-sdk's
// internal correlation id, shared by an API call and the device work it
// enqueued (the event's correlation_id column is the external id a tool may
// set, not this link).
//
//===----------------------------------------------------------------------===//
#include "import/rocpd/RocpdReader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace tracelint;
using namespace tracelint::import;
using namespace tracelint::import::rocpd;
using llvm::StringRef;
using model::EventKind;
using model::ImportStat;
using model::StringId;
using nsys::Statement;

namespace {

/// Device ids beyond this are not real ones.
constexpr int64_t MaxDevice = 1 << 20;

/// A category for a row that has none: what its name says.
Category categoryByName(StringRef Name) {
  if (Name.startswith("hip") || Name.startswith("__hip"))
    return Category::HipApi;
  if (Name.startswith("hsa_"))
    return Category::HsaApi;
  if (Name.startswith("roctx"))
    return Category::MarkerCall;
  return Category::Unmodelled;
}

/// A memory kind as Kineto writes it in copy names ("Host").
StringRef memoryLabel(model::MemoryKind K) {
  return K == model::MemoryKind::Unknown ? StringRef("Unknown")
         : K == model::MemoryKind::Host  ? StringRef("Host")
                                         : StringRef("Device");
}

/// Host and device sides of a copy direction.
void sidesOf(model::CopyKind K, model::MemoryKind &Src,
             model::MemoryKind &Dst) {
  using model::CopyKind;
  using model::MemoryKind;
  bool SrcHost = K == CopyKind::HtoD || K == CopyKind::HtoH;
  bool DstHost = K == CopyKind::DtoH || K == CopyKind::HtoH;
  if (K == CopyKind::Unknown)
    return;
  Src = SrcHost ? MemoryKind::Host : MemoryKind::Device;
  Dst = DstHost ? MemoryKind::Host : MemoryKind::Device;
}

} // namespace

llvm::Error RocpdReader::readRegions() {
  std::string Table = table(RegionTable);
  Column Start("start", Column::Required), End("end", Column::Required),
      Pid("pid", Column::Required), Tid("tid", Column::Required),
      NameId("name_id", Column::Required);
  Column Stack("stack_id"), Cat("category_id"), Ext("extdata");
  Join Event{table(EventTable), "id", "event_id", {&Stack, &Cat, &Ext}};
  return scan(
      RegionTable, RowKind::Event, {&Start, &End, &Pid, &Tid, &NameId}, {Event},
      [&](const Statement &S) {
        int64_t From, To, P, T;
        if (!times(S, Start, End, Table, From, To) ||
            !hostIds(S, Pid, Tid, Table, P, T))
          return;
        StringId Name = name(S, NameId, Table);
        StringRef Text = B.strings().get(Name);
        Category C = category(S, Cat);
        if (C == Category::Unknown)
          C = categoryByName(Text);
        model::Event E;
        E.Start = From;
        E.Duration = To - From;
        E.Name = Name;
        model::EventArgs A;
        bool HasArgs = false;
        switch (C) {
        case Category::HipApi:
        case Category::HsaApi:
          // HIP is the runtime API; HSA, beneath it, plays the driver's
          // part (as the CUDA driver API does beneath cudaLaunchKernel).
          E.Kind =
              C == Category::HipApi ? EventKind::Runtime : EventKind::Driver;
          E.Correlation = correlation(S, Stack);
          break;
        case Category::MarkerRange:
        case Category::MarkerCall: {
          std::string Msg = message(S, Ext);
          bool Mark = Text.startswith("roctxMark");
          bool Range = C == Category::MarkerRange ||
                       Text.startswith("roctxRangePush") ||
                       Text.startswith("roctxRangeStart");
          // A pop or stop only ends a range that is already a region, and
          // naming calls (roctxGetThreadId) mark nothing.
          if (!Mark && (!Range || (C == Category::MarkerCall && Msg.empty()))) {
            place(ImportStat::UnmodelledRows, Table,
                  llvm::formatv("roctx call {0}", Text.take_front(48)));
            return;
          }
          if (!Msg.empty())
            E.Name = B.strings().intern(Msg);
          if (Mark) {
            E.Kind = EventKind::Marker;
            E.Duration = 0;
            E.Flags |= model::FlagInstant;
            B.stats().add(ImportStat::InstantEvents);
            E.Lane = hostLane(P, T);
            B.addEvent(E);
            return;
          }
          E.Kind = EventKind::Annotation;
          break;
        }
        case Category::LibraryApi:
          // What the program asked of a library (ncclAllReduce): a range
          // of the program's, with its library in Detail, as nsys's NVTX
          // domains are.
          E.Kind = EventKind::Annotation;
          if (std::optional<int64_t> Id = integer(S, Cat)) {
            A.Detail = B.strings().intern(categoryText(*Id));
            HasArgs = true;
          }
          break;
        case Category::Unknown:
        case Category::Unmodelled: {
          std::optional<int64_t> Id = integer(S, Cat);
          StringRef What = Id ? categoryText(*Id) : StringRef();
          place(ImportStat::UnmodelledRows, Table,
                What.empty()
                    ? llvm::formatv("{0} (no category)", Text.take_front(48))
                          .str()
                    : llvm::formatv("category {0}", What.take_front(48)).str());
          return;
        }
        }
        E.Lane = hostLane(P, T);
        addEvent(E, HasArgs ? &A : nullptr);
      });
}

llvm::Error RocpdReader::readSamples() {
  std::string Table = table(SampleTable);
  Column Time("timestamp", Column::Required);
  Column Pid("pid"), Tid("tid"), Cat("category_id"), Ext("extdata");
  Join Track{table(TrackTable), "id", "track_id", {&Pid, &Tid}};
  Join Event{table(EventTable), "id", "event_id", {&Cat, &Ext}};
  return scan(SampleTable, RowKind::Event, {&Time}, {Track, Event},
              [&](const Statement &S) {
                std::optional<int64_t> At = integer(S, Time);
                if (!At) {
                  place(ImportStat::UnusableRow, Table,
                        "a row without a timestamp");
                  return;
                }
                // Instants: roctx marks, and API calls that took no time, whose
                // name rocpd does not keep. Only the marks say what they are.
                Category C = category(S, Cat);
                std::string Msg = message(S, Ext);
                if ((C != Category::MarkerCall && C != Category::MarkerRange) ||
                    Msg.empty()) {
                  std::optional<int64_t> Id = integer(S, Cat);
                  place(ImportStat::UnmodelledRows, Table,
                        llvm::formatv("an instant of category {0}",
                                      Id ? categoryText(*Id).take_front(48)
                                         : StringRef("(none)")));
                  return;
                }
                int64_t P, T;
                if (!hostIds(S, Pid, Tid, Table, P, T))
                  return;
                model::Event E;
                E.Kind = EventKind::Marker;
                E.Start = *At;
                E.Name = B.strings().intern(Msg);
                E.Flags |= model::FlagInstant;
                E.Lane = hostLane(P, T);
                B.stats().add(ImportStat::InstantEvents);
                B.addEvent(E);
              });
}

llvm::Error RocpdReader::readDispatches() {
  std::string Table = table(DispatchTable);
  Column Start("start", Column::Required), End("end", Column::Required),
      AgentId("agent_id", Column::Required), Pid("pid"), Kernel("kernel_id"),
      Queue("queue_id"), Lds("group_segment_size"),
      Grid[] = {{"grid_size_x"}, {"grid_size_y"}, {"grid_size_z"}},
      Group[] = {
          {"workgroup_size_x"}, {"workgroup_size_y"}, {"workgroup_size_z"}};
  Column Stack("stack_id");
  Join Event{table(EventTable), "id", "event_id", {&Stack}};
  llvm::DenseMap<StringId, bool> IsCollective;
  llvm::DenseMap<int64_t, StringId> Unnamed;
  return scan(
      DispatchTable, RowKind::Event,
      {&Start, &End, &AgentId, &Pid, &Kernel, &Queue, &Lds, &Grid[0], &Grid[1],
       &Grid[2], &Group[0], &Group[1], &Group[2]},
      {Event}, [&](const Statement &S) {
        int64_t From, To;
        if (!times(S, Start, End, Table, From, To))
          return;
        std::optional<int64_t> AgentNo = integer(S, AgentId);
        int32_t Device = deviceOf(AgentNo, Table);
        if (Device < 0)
          return;
        // The kernel's name from its symbol; a dispatch of a symbol the
        // file does not list keeps its id.
        StringId Name = model::EmptyString;
        std::optional<int64_t> K = integer(S, Kernel);
        if (K)
          if (std::optional<StringId> N = Symbols.get(*K, B.strings()))
            Name = *N;
        if (Name == model::EmptyString) {
          int64_t Key = K && usableKey(*K) ? *K : -1;
          auto [It, Inserted] = Unnamed.try_emplace(Key, model::EmptyString);
          if (Inserted) {
            std::string Label = K ? llvm::formatv("<kernel {0}>", *K).str()
                                  : std::string("<kernel>");
            place(ImportStat::MissingName, Table,
                  K ? llvm::formatv("kernel_id {0} is not in {1}", *K,
                                    table(SymbolTable))
                          .str()
                    : std::string("a dispatch without a kernel_id"));
            It->second = B.strings().intern(Label);
          }
          Name = It->second;
        }
        auto [It, Inserted] = IsCollective.try_emplace(Name, false);
        if (Inserted)
          It->second = Opts.names().matches(
              B.strings().get(Name), model::NameClass::CommunicationKernel);

        model::Event E;
        E.Kind = It->second ? EventKind::Collective : EventKind::Kernel;
        E.Start = From;
        E.Duration = To - From;
        E.Name = Name;
        E.Correlation = correlation(S, Stack);
        int64_t QueueId = integer(S, Queue).value_or(-1);
        E.Lane = deviceLane(processOf(S, Pid), Device, DeviceLaneKind::Queue,
                            QueueId);
        model::EventArgs A;
        A.Device = Device;
        A.Stream = B.laneInfo(E.Lane).Stream;
        // The dispatch packet's grid counts work-items; the model's counts
        // work-groups (CUDA's blocks), whatever the launch call.
        int64_t Groups = 1, Items = 1;
        for (int I = 0; I < 3; ++I) {
          int32_t G = small(S, Grid[I]), W = small(S, Group[I]);
          A.Block[I] = std::max(W, 0);
          A.Grid[I] = G > 0 && W > 0 ? int32_t((int64_t(G) + W - 1) / W) : 0;
          Groups *= A.Grid[I];
          Items *= A.Block[I];
        }
        A.SharedMemory = small(S, Lds);
        auto Gpu = Gpus.find(Device);
        if (Gpu != Gpus.end() && Gpu->second.NumSMs > 0 && Groups > 0) {
          double Wave = Gpu->second.WarpSize > 0 ? Gpu->second.WarpSize : 64;
          A.BlocksPerSM = float(double(Groups) / Gpu->second.NumSMs);
          A.WarpsPerSM = float(A.BlocksPerSM * std::ceil(Items / Wave));
        }
        addEvent(E, &A);
      });
}

llvm::Error RocpdReader::readCopies() {
  std::string Table = table(CopyTable);
  Column Start("start", Column::Required), End("end", Column::Required),
      Pid("pid"), Op("name_id"), Src("src_agent_id"), Dst("dst_agent_id"),
      Size("size"), Stream("stream_id");
  Column Stack("stack_id");
  Join Event{table(EventTable), "id", "event_id", {&Stack}};
  llvm::DenseMap<uint64_t, StringId> Names;
  return scan(
      CopyTable, RowKind::Event,
      {&Start, &End, &Pid, &Op, &Src, &Dst, &Size, &Stream}, {Event},
      [&](const Statement &S) {
        int64_t From, To;
        if (!times(S, Start, End, Table, From, To))
          return;
        model::EventArgs A;
        StringId OpName = name(S, Op, Table);
        A.Copy = copyKindFromOperation(B.strings().get(OpName));
        sidesOf(A.Copy, A.Src, A.Dst);
        // The agents, where the file describes them, say more than the
        // operation: which GPU, and whether two GPUs took part.
        std::optional<int64_t> SrcNo = integer(S, Src), DstNo = integer(S, Dst);
        const Agent *SrcA = agent(SrcNo), *DstA = agent(DstNo);
        auto Kind = [](const Agent *X, model::MemoryKind Else) {
          return !X       ? Else
                 : X->Gpu ? model::MemoryKind::Device
                 : X->Cpu ? model::MemoryKind::Host
                          : Else;
        };
        A.Src = Kind(SrcA, A.Src);
        A.Dst = Kind(DstA, A.Dst);
        using model::CopyKind;
        using model::MemoryKind;
        if (A.Src == MemoryKind::Host && A.Dst == MemoryKind::Device)
          A.Copy = CopyKind::HtoD;
        else if (A.Src == MemoryKind::Device && A.Dst == MemoryKind::Host)
          A.Copy = CopyKind::DtoH;
        else if (A.Src == MemoryKind::Host && A.Dst == MemoryKind::Host)
          A.Copy = CopyKind::HtoH;
        else if (A.Src == MemoryKind::Device && A.Dst == MemoryKind::Device)
          A.Copy = SrcA && DstA && SrcA->Device != DstA->Device
                       ? CopyKind::PtoP
                       : CopyKind::DtoD;
        // The copy runs for the GPU on its device side (the source's when
        // both are GPUs).
        bool SrcSide = A.Src == MemoryKind::Device;
        bool DstSide = A.Dst == MemoryKind::Device;
        if (!SrcSide && !DstSide) {
          place(ImportStat::UnmodelledRows, Table,
                A.Copy == CopyKind::HtoH
                    ? "a host-to-host copy (no GPU's lane to put it on)"
                    : "a copy whose direction is not recorded");
          return;
        }
        int32_t Device = deviceOf(SrcSide ? SrcNo : DstNo, Table);
        if (Device < 0)
          return;
        A.Device = Device;
        A.Bytes = byteCount(S, Size);
        uint64_t Key =
            (uint64_t(A.Copy) << 16) | (uint64_t(A.Src) << 8) | uint64_t(A.Dst);
        auto [It, Inserted] = Names.try_emplace(Key, model::EmptyString);
        if (Inserted)
          It->second = B.strings().intern(
              llvm::formatv("Memcpy {0} ({1} -> {2})",
                            A.Copy == CopyKind::Unknown
                                ? StringRef("Unknown")
                                : model::copyKindName(A.Copy),
                            memoryLabel(A.Src), memoryLabel(A.Dst))
                  .str());
        model::Event E;
        E.Kind = EventKind::Memcpy;
        E.Start = From;
        E.Duration = To - From;
        E.Name = It->second;
        E.Correlation = correlation(S, Stack);
        E.Lane =
            deviceLane(processOf(S, Pid), Device, DeviceLaneKind::CopyStream,
                       integer(S, Stream).value_or(0));
        A.Stream = B.laneInfo(E.Lane).Stream;
        addEvent(E, &A);
      });
}

llvm::Error RocpdReader::readAllocations() {
  std::string Table = table(AllocTable);
  Column Start("start", Column::Required), Pid("pid"), Tid("tid"),
      AgentId("agent_id"), Type("type"), Level("level"), Address("address"),
      Size("size");
  StringId Memory = B.strings().intern("[memory]");
  return scan(AllocTable, RowKind::Event,
              {&Start, &Pid, &Tid, &AgentId, &Type, &Level, &Address, &Size},
              {}, [&](const Statement &S) {
                std::optional<int64_t> At = integer(S, Start);
                if (!At) {
                  place(ImportStat::UnusableRow, Table,
                        "a row without a start time");
                  return;
                }
                int64_t P, T;
                if (!hostIds(S, Pid, Tid, Table, P, T))
                  return;
                StringRef Op = S.text(Type.Index);
                bool Alloc = Op == "ALLOC" || Op == "REALLOC";
                bool Free = Op == "FREE" || Op == "RECLAIM";
                if (!Alloc && !Free) {
                  place(ImportStat::UnmodelledRows, Table,
                        llvm::formatv("type {0}", Op.take_front(16)));
                  return;
                }
                // As the PyTorch profiler's "[memory]" instants: the
                // allocation's size, negative for a free, on the thread that
                // made it. rocpd records no allocator totals.
                model::EventArgs A;
                int64_t Bytes = byteCount(S, Size);
                std::optional<int64_t> Addr = integer(S, Address);
                if (Alloc) {
                  std::optional<int64_t> No = integer(S, AgentId);
                  const Agent *X = agent(No);
                  A.Device = X && X->Gpu ? X->Device : -1;
                  A.Bytes = Bytes;
                  if (Addr && Bytes >= 0)
                    Live[{P, *Addr}] = {Bytes, A.Device};
                } else {
                  // A free names only its address: its size and device are the
                  // allocation's, when the trace holds it.
                  auto It = Addr ? Live.find({P, *Addr}) : Live.end();
                  if (It != Live.end()) {
                    A.Device = It->second.second;
                    if (Bytes <= 0)
                      Bytes = It->second.first;
                    Live.erase(It);
                  }
                  A.Bytes = Bytes > 0 ? -Bytes : -1;
                }
                StringRef L = S.text(Level.Index);
                if (!L.empty())
                  A.Detail = B.strings().intern(L.take_front(16).lower());
                model::Event E;
                E.Kind = EventKind::Marker;
                E.Start = *At;
                E.Name = Memory;
                E.Flags |= model::FlagInstant;
                E.Lane = hostLane(P, T);
                B.stats().add(ImportStat::InstantEvents);
                B.addEvent(E, &A);
              });
}
