//===- import/rocpd/RocpdInfo.cpp - The small tables of a run -------------===//
//
// Strings, processes, threads, agents, queues, streams and kernel symbols:
// read into memory before the events, which refer to them by id. They are
// small (thousands of rows where events are millions), so one scan each is
// cheaper than a join per event row, and safe whatever indexes the file has.
//
//===----------------------------------------------------------------------===//
#include "import/rocpd/RocpdReader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

using namespace tracelint;
using namespace tracelint::import;
using namespace tracelint::import::rocpd;
using llvm::StringRef;
using nsys::Statement;

/// Device ids beyond this are not real ones.
static constexpr int64_t MaxDevice = 1 << 20;

/// An agent's extdata (rocprofiler-sdk's rocprofiler_agent_v0_t as JSON) is
/// a few kilobytes; more is not an agent's.
static constexpr size_t MaxAgentJson = 1 << 20;

void NameTable::add(int64_t Id, StringRef Name) {
  if (usableKey(Id))
    Text.try_emplace(Id, Name.str());
}

std::optional<model::StringId> NameTable::get(int64_t Id,
                                              model::StringPool &Pool) {
  if (!usableKey(Id))
    return std::nullopt;
  auto It = Interned.find(Id);
  if (It != Interned.end())
    return It->second;
  auto T = Text.find(Id);
  if (T == Text.end())
    return std::nullopt;
  model::StringId S = Pool.intern(T->second);
  Interned[Id] = S;
  return S;
}

llvm::Error RocpdReader::readMetadata() {
  Column Tag("tag"), Value("value");
  return scan(MetadataTable, RowKind::Side, {&Tag, &Value}, {},
              [&](const Statement &S) {
                if (S.text(Tag.Index) == "schema_version" &&
                    SchemaVersion.empty())
                  SchemaVersion = S.text(Value.Index).take_front(32).str();
              });
}

llvm::Error RocpdReader::readNode() {
  Column Machine("machine_id");
  return scan(
      NodeTable, RowKind::Side, {&Machine}, {}, [&](const Statement &S) {
        Machines.try_emplace(Suffix, S.text(Machine.Index).take_front(128));
      });
}

llvm::Error RocpdReader::readStrings() {
  Column Id("id", Column::Required), Text("string");
  return scan(StringTable, RowKind::Side, {&Id, &Text}, {},
              [&](const Statement &S) {
                if (std::optional<int64_t> I = integer(S, Id))
                  Strings.add(*I, S.text(Text.Index));
              });
}

llvm::Error RocpdReader::readProcesses() {
  Column Id("id", Column::Required), Pid("pid"), Command("command");
  return scan(ProcessTable, RowKind::Side, {&Id, &Pid, &Command}, {},
              [&](const Statement &S) {
                std::optional<int64_t> I = integer(S, Id), P = integer(S, Pid);
                if (!I || !P || !usableKey(*I))
                  return;
                Pids.try_emplace(*I, *P);
                // The program, as a process list names it: the command's
                // first word, without its folder.
                StringRef Cmd = S.text(Command.Index).trim();
                StringRef Program = Cmd.take_until(llvm::isSpace);
                if (!Program.empty())
                  ProcessNames.try_emplace(
                      *P, llvm::sys::path::filename(Program).take_front(128));
              });
}

llvm::Error RocpdReader::readThreads() {
  Column Id("id", Column::Required), Tid("tid"), Name("name");
  return scan(ThreadTable, RowKind::Side, {&Id, &Tid, &Name}, {},
              [&](const Statement &S) {
                std::optional<int64_t> I = integer(S, Id), T = integer(S, Tid);
                if (!I || !T || !usableKey(*I))
                  return;
                Tids.try_emplace(*I, *T);
                StringRef N = S.text(Name.Index);
                if (!N.empty() && usableKey(*T))
                  ThreadNames.try_emplace(*T, N.take_front(128).str());
              });
}

namespace {

/// The figures of an agent's extdata that the model holds.
struct AgentFigures {
  int64_t CuCount = -1, WaveSize = -1, WavesPerCu = -1, Memory = -1;
  std::string Name, Product;
};

AgentFigures agentFigures(StringRef Json, bool &Bad) {
  AgentFigures F;
  if (Json.empty() || Json == "{}")
    return F;
  if (Json.size() > MaxAgentJson) {
    Bad = true;
    return F;
  }
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Json);
  if (!V) {
    llvm::consumeError(V.takeError());
    Bad = true;
    return F;
  }
  const llvm::json::Object *O = V->getAsObject();
  if (!O) {
    Bad = true;
    return F;
  }
  auto Int = [&](StringRef Key) {
    auto I = O->getInteger(Key);
    return I && *I > 0 ? *I : -1;
  };
  F.CuCount = Int("cu_count");
  F.WaveSize = Int("wave_front_size");
  F.WavesPerCu = Int("max_waves_per_cu");
  F.Memory = Int("local_mem_size");
  if (auto N = O->getString("name"))
    F.Name = N->take_front(128).str();
  if (auto N = O->getString("product_name"))
    F.Product = N->take_front(128).str();
  return F;
}

int32_t smallOr(int64_t V, int32_t Or) {
  return V > 0 && V <= std::numeric_limits<int32_t>::max() ? int32_t(V) : Or;
}

} // namespace

llvm::Error RocpdReader::readAgents() {
  Column Id("id", Column::Required), Type("type"), Absolute("absolute_index"),
      TypeIndex("type_index"), Name("name"), Model("model_name"),
      Product("product_name"), Extdata("extdata");
  return scan(
      AgentTable, RowKind::Side,
      {&Id, &Type, &Absolute, &TypeIndex, &Name, &Model, &Product, &Extdata},
      {}, [&](const Statement &S) {
        std::optional<int64_t> I = integer(S, Id);
        if (!I || !usableKey(*I))
          return;
        Agent A;
        StringRef T = S.text(Type.Index);
        A.Gpu = T == "GPU";
        A.Cpu = T == "CPU";
        if (!A.Gpu) {
          Agents.try_emplace(*I, A);
          return;
        }
        // The GPU's number among the GPUs (HIP's device ordinal), as users
        // and other profilers number them; else the agent's own.
        for (std::optional<int64_t> D :
             {integer(S, TypeIndex), integer(S, Absolute), I})
          if (D && *D >= 0 && *D < MaxDevice) {
            A.Device = int32_t(*D);
            break;
          }
        Agents.try_emplace(*I, A);
        if (A.Device < 0)
          return;
        bool Bad = false;
        AgentFigures F = agentFigures(S.text(Extdata.Index), Bad);
        if (Bad)
          place(model::ImportStat::BadValue, table(AgentTable),
                llvm::formatv("agent {0}: extdata is not a JSON object", *I));
        model::DeviceInfo D;
        D.Id = A.Device;
        // The marketing name ("AMD Instinct MI250X / MI250"), else the
        // chip's ("aldebaran"); the gfx target is the architecture.
        StringRef Arch = S.text(Name.Index);
        if (!Arch.startswith("gfx"))
          Arch = F.Name;
        D.Arch = Arch.take_front(32).str();
        D.Name = S.text(Product.Index).take_front(128).str();
        if (D.Name.empty())
          D.Name = F.Product;
        if (D.Name.empty())
          D.Name = S.text(Model.Index).take_front(128).str();
        if (D.Name.empty())
          D.Name = D.Arch;
        D.NumSMs = smallOr(F.CuCount, -1);
        D.WarpSize = smallOr(F.WaveSize, -1);
        if (D.WarpSize > 0 && F.WavesPerCu > 0 &&
            F.WavesPerCu * D.WarpSize < (1 << 30))
          D.MaxThreadsPerMultiprocessor = int32_t(F.WavesPerCu * D.WarpSize);
        D.TotalGlobalMemory = F.Memory;
        // Two processes list the same GPU: the first description wins.
        Gpus.try_emplace(A.Device, std::move(D));
      });
}

llvm::Error RocpdReader::readQueuesAndStreams() {
  Column Id("id", Column::Required), Name("name");
  auto Into = [&](llvm::DenseMap<int64_t, std::string> &Map) {
    return [&](const Statement &S) {
      std::optional<int64_t> I = integer(S, Id);
      StringRef N = S.text(Name.Index);
      if (I && usableKey(*I) && !N.empty())
        Map.try_emplace(*I, N.take_front(64).str());
    };
  };
  if (llvm::Error E =
          scan(QueueTable, RowKind::Side, {&Id, &Name}, {}, Into(QueueNames)))
    return E;
  return scan(StreamTable, RowKind::Side, {&Id, &Name}, {}, Into(StreamNames));
}

llvm::Error RocpdReader::readSymbols() {
  Column Id("id", Column::Required), Mangled("kernel_name"),
      Display("display_name");
  return scan(SymbolTable, RowKind::Side, {&Id, &Mangled, &Display}, {},
              [&](const Statement &S) {
                std::optional<int64_t> I = integer(S, Id);
                if (!I)
                  return;
                // The display name is the demangled one, as Kineto shows
                // kernels; the mangled name is all an unnamed one has.
                StringRef N = S.text(Display.Index);
                if (N.empty())
                  N = S.text(Mangled.Index);
                if (!N.empty())
                  Symbols.add(*I, N);
              });
}
