//===- analysis/SummaryFormat.cpp - Rank summaries as JSON Lines ----------===//
#include "analysis/SummaryFormat.h"

#include "support/Count.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <optional>

using namespace tracelint;
using namespace tracelint::analysis;
namespace json = llvm::json;

namespace {

/// Writes one line: an object with "type" first.
template <typename Fn>
void line(llvm::raw_ostream &OS, llvm::StringRef Type, Fn Attributes) {
  json::OStream J(OS);
  J.object([&] {
    J.attribute("type", Type);
    Attributes(J);
  });
  OS << '\n';
}

} // namespace

void analysis::writeRankSummary(llvm::raw_ostream &OS, const RankSummary &S) {
  line(OS, "header", [&](json::OStream &J) {
    J.attribute("format", SummaryFormatName);
    J.attribute("version", SummaryFormatVersion);
  });
  line(OS, "rank", [&](json::OStream &J) {
    J.attribute("input", S.Input);
    J.attribute("rank", S.Rank);
    J.attribute("world_size", S.WorldSize);
    J.attribute("rank_from", rankSourceName(S.RankFrom));
    J.attribute("backend", S.Backend);
    J.attribute("job_id", S.JobId);
    J.attribute("producer", S.Producer);
    J.attribute("device", S.Device);
    J.attribute("target_ns", S.TargetNs);
    J.attribute("target", S.Target);
    J.attribute("truncated", S.Truncated);
  });
  for (const RankStep &St : S.Steps)
    line(OS, "step", [&](json::OStream &J) {
      J.attribute("number", St.Number);
      J.attribute("start_ns", St.StartNs);
      J.attribute("end_ns", St.EndNs);
      J.attribute("steady", St.Steady);
      J.attribute("idle_ns", St.Idle.IdleNs);
      J.attribute("launch_ns", St.Idle.LaunchNs);
      J.attribute("host_wait_ns", St.Idle.HostWaitNs);
      J.attribute("host_other_ns", St.Idle.HostOtherNs);
      J.attribute("host_untraced_ns", St.Idle.UntracedNs);
      J.attribute("window_cut_ns", St.Idle.CutNs);
      J.attribute("after_last_work_ns", St.Idle.TailNs);
      J.attribute("data_loading_ns", St.Idle.DataLoadingNs);
      J.attribute("startup_ns", St.Idle.StartupNs);
      J.attribute("profiler_ns", St.Idle.ProfilerNs);
      J.attribute("unrecorded_ns", St.Idle.UnrecordedNs);
      J.attribute("unlinked_ns", St.Idle.UnlinkedNs);
    });
  for (const RankCollective &C : S.Collectives)
    line(OS, "collective", [&](json::OStream &J) {
      J.attribute("group", C.Group);
      J.attribute("seq", C.Seq);
      J.attribute("kind", C.Kind);
      J.attribute("stream", C.Stream);
      J.attribute("start_ns", C.StartNs);
      J.attribute("end_ns", C.EndNs);
      J.attribute("bytes", C.Bytes);
      J.attribute("step", C.Step);
      J.attribute("compute_ns", C.ComputeBeforeNs);
    });
  for (const RankFinding &F : S.Findings)
    line(OS, "finding", [&](json::OStream &J) {
      J.attribute("code", F.Code);
      J.attribute("name", F.Name);
      J.attribute("severity", F.Severity);
      J.attribute("impact_ns", F.ImpactNs);
      J.attribute("confidence", F.Confidence);
      J.attribute("subject", F.Subject);
    });
  line(OS, "end", [&](json::OStream &J) {
    J.attribute("steps", int64_t(S.Steps.size()));
    J.attribute("collectives", int64_t(S.Collectives.size()));
    J.attribute("findings", int64_t(S.Findings.size()));
  });
}

bool analysis::looksLikeRankSummary(llvm::StringRef Text) {
  // The first line parsed, so that a summary rewritten by another tool
  // (other spacing, other key order) is still recognised.
  llvm::StringRef First = Text.take_until([](char C) { return C == '\n'; });
  if (!First.ltrim().startswith("{") || !First.contains(SummaryFormatName))
    return false;
  auto Parsed = json::parse(First);
  if (!Parsed) {
    llvm::consumeError(Parsed.takeError());
    return false;
  }
  const json::Object *O = Parsed->getAsObject();
  return O && O->getString("type") == llvm::StringRef("header") &&
         O->getString("format") == llvm::StringRef(SummaryFormatName);
}

namespace {

/// How writeRankSummary() begins a summary.
constexpr llvm::StringLiteral HeaderStart = "{\"type\":\"header\"";

/// Reads the fields of one line; a missing or mistyped field is recorded
/// once, naming the field.
class Fields {
public:
  Fields(const json::Object &O) : O(O) {}
  int64_t integer(llvm::StringRef K) {
    if (auto V = O.getInteger(K))
      return *V;
    bad(K, "an integer");
    return 0;
  }
  /// A field that later writers of this version add: \p Default when the
  /// line does not have it, an error when it has another type.
  int64_t optionalInteger(llvm::StringRef K, int64_t Default) {
    if (!O.get(K))
      return Default;
    return integer(K);
  }
  double number(llvm::StringRef K) {
    if (auto V = O.getNumber(K))
      return *V;
    bad(K, "a number");
    return 0;
  }
  bool boolean(llvm::StringRef K) {
    if (auto V = O.getBoolean(K))
      return *V;
    bad(K, "true or false");
    return false;
  }
  std::string text(llvm::StringRef K) {
    if (auto V = O.getString(K))
      return V->str();
    bad(K, "a string");
    return {};
  }
  std::optional<std::string> Problem;

private:
  void bad(llvm::StringRef K, llvm::StringRef What) {
    if (!Problem)
      Problem = llvm::formatv("'{0}' must be {1}", K, What).str();
  }
  const json::Object &O;
};

} // namespace

SummaryFile analysis::readRankSummaries(llvm::StringRef Text,
                                        llvm::StringRef Name) {
  SummaryFile Out;
  std::optional<RankSummary> Cur;
  size_t CurLine = 0;
  bool Skipping = false; // inside a damaged rank: until the next header
  auto Fail = [&](size_t LineNo, const llvm::Twine &Why) {
    Out.Errors.push_back(
        llvm::formatv("{0}:{1}: {2}", Name, LineNo, Why.str()).str());
    Cur.reset();
    Skipping = true;
  };
  size_t LineNo = 0;
  while (!Text.empty()) {
    const char *End = Text.end();
    auto [L, Rest] = Text.split('\n');
    Text = Rest;
    ++LineNo;
    if (L.trim().empty())
      continue;
    auto Parsed = json::parse(L);
    if (!Parsed) {
      std::string Why = llvm::toString(Parsed.takeError());
      if (!Skipping)
        Fail(LineNo, "not a JSON object (" + Why + ")" +
                         (Text.empty() ? ": the file was cut short" : ""));
      // A cut summary concatenated with `cat` runs into the next one's
      // header on the same line: read on from that header.
      size_t Next = L.find(HeaderStart, 1);
      if (Next != llvm::StringRef::npos) {
        Text = llvm::StringRef(L.data() + Next, End - (L.data() + Next));
        --LineNo;
      }
      continue;
    }
    const json::Object *O = Parsed->getAsObject();
    llvm::Optional<llvm::StringRef> Type;
    if (O)
      Type = O->getString("type");
    if (!Type) {
      if (!Skipping)
        Fail(LineNo, "expected an object with a \"type\"");
      continue;
    }
    Fields F(*O);
    if (*Type == "header") {
      if (Cur)
        Fail(CurLine, llvm::formatv("the summary of rank {0} has no \"end\" "
                                    "line: it was cut short",
                                    Cur->Rank));
      Skipping = false;
      if (F.text("format") != SummaryFormatName) {
        Fail(LineNo, "not a tracelint rank summary header");
        continue;
      }
      int64_t V = F.integer("version");
      if (V != SummaryFormatVersion) {
        Fail(LineNo, llvm::formatv("summary format version {0}; this tracelint "
                                   "reads version {1}",
                                   V, SummaryFormatVersion));
        continue;
      }
      Cur.emplace();
      CurLine = LineNo;
      continue;
    }
    if (Skipping)
      continue;
    if (!Cur) {
      Fail(LineNo, "a \"" + Type->str() + "\" line before any summary header");
      continue;
    }
    if (*Type == "rank") {
      Cur->Input = F.text("input");
      Cur->Rank = F.integer("rank");
      Cur->WorldSize = F.integer("world_size");
      Cur->RankFrom = parseRankSource(F.text("rank_from"));
      Cur->Backend = F.text("backend");
      Cur->JobId = F.text("job_id");
      Cur->Producer = F.text("producer");
      Cur->Device = int32_t(F.integer("device"));
      Cur->TargetNs = F.integer("target_ns");
      Cur->Target = F.text("target");
      Cur->Truncated = F.boolean("truncated");
    } else if (*Type == "step") {
      RankStep S;
      S.Number = F.integer("number");
      S.StartNs = F.integer("start_ns");
      S.EndNs = F.integer("end_ns");
      S.Steady = F.boolean("steady");
      S.Idle.IdleNs = F.integer("idle_ns");
      S.Idle.LaunchNs = F.integer("launch_ns");
      S.Idle.HostWaitNs = F.integer("host_wait_ns");
      S.Idle.HostOtherNs = F.integer("host_other_ns");
      // Optional within version 1: older summaries count untraced host time
      // in host_other_ns.
      S.Idle.UntracedNs = F.optionalInteger("host_untraced_ns", 0);
      S.Idle.CutNs = F.optionalInteger("window_cut_ns", 0);
      S.Idle.TailNs = F.optionalInteger("after_last_work_ns", 0);
      S.Idle.DataLoadingNs = F.integer("data_loading_ns");
      S.Idle.StartupNs = F.optionalInteger("startup_ns", 0);
      S.Idle.ProfilerNs = F.optionalInteger("profiler_ns", 0);
      S.Idle.UnrecordedNs = F.integer("unrecorded_ns");
      S.Idle.UnlinkedNs = F.integer("unlinked_ns");
      // Said once on the rank line, and by the step's own bounds.
      if (Cur->Device >= 0) {
        S.Idle.Device = Cur->Device;
        S.Idle.SpanNs = S.durationNs();
      }
      Cur->Steps.push_back(S);
    } else if (*Type == "collective") {
      RankCollective C;
      C.Group = F.text("group");
      C.Seq = F.integer("seq");
      C.Kind = F.text("kind");
      C.Stream = F.integer("stream");
      C.StartNs = F.integer("start_ns");
      C.EndNs = F.integer("end_ns");
      C.Bytes = F.integer("bytes");
      C.Step = int32_t(F.integer("step"));
      C.ComputeBeforeNs = F.optionalInteger("compute_ns", -1);
      if (!F.Problem &&
          (C.Step < -1 || C.EndNs < C.StartNs || C.ComputeBeforeNs < -1))
        F.Problem = "a collective ends before it starts, or names a step or "
                    "a compute time below -1";
      Cur->Collectives.push_back(std::move(C));
    } else if (*Type == "finding") {
      RankFinding R;
      R.Code = F.text("code");
      R.Name = F.text("name");
      R.Severity = F.text("severity");
      R.ImpactNs = F.integer("impact_ns");
      R.Confidence = F.number("confidence");
      R.Subject = F.text("subject");
      Cur->Findings.push_back(std::move(R));
    } else if (*Type == "end") {
      int64_t Steps = F.integer("steps"), Colls = F.integer("collectives"),
              Finds = F.integer("findings");
      if (!F.Problem && (Steps != int64_t(Cur->Steps.size()) ||
                         Colls != int64_t(Cur->Collectives.size()) ||
                         Finds != int64_t(Cur->Findings.size())))
        F.Problem =
            llvm::formatv("the end line counts {0}, {1} and {2}, the summary "
                          "has {3}, {4} and {5}: lines are missing",
                          support::formatCount(Steps, "step"),
                          support::formatCount(Colls, "collective"),
                          support::formatCount(Finds, "finding"),
                          Cur->Steps.size(), Cur->Collectives.size(),
                          Cur->Findings.size())
                .str();
      if (!F.Problem) {
        for (RankCollective &C : Cur->Collectives)
          if (C.Step >= int32_t(Cur->Steps.size()))
            C.Step = -1;
        Out.Ranks.push_back(std::move(*Cur));
        Cur.reset();
        continue;
      }
    } else {
      // A later version may add line types; a reader of this version
      // skips what it does not know (docs/summary-format.md).
    }
    if (F.Problem)
      Fail(LineNo, "a \"" + Type->str() + "\" line: " + *F.Problem);
  }
  if (Cur)
    Fail(CurLine, llvm::formatv("the summary of rank {0} has no \"end\" line: "
                                "it was cut short",
                                Cur->Rank));
  return Out;
}
