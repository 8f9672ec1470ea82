//===- analysis/DependencyGraph.h - What waited for what --------*- C++ -*-===//
//
// A graph of the trace's time points and the recorded dependencies between
// them. Nodes are instants on a lane: the boundaries of host events on a
// host thread, and the start and end of each device work. Edges say "this
// instant cannot come before that one plus a weight":
//
//  - Work edges carry time something took: consecutive instants of a host
//    thread (serial order; the stretch is attributed to the innermost event
//    open there), and each device work from its start to its end.
//  - Dependency edges carry only the delay that the trace shows and does not
//    explain: launch -> the work it submitted (correlation), the previous
//    work on a stream -> the next, recorded event waits across streams
//    (cuda_sync with wait_on_cuda_event_record_corr_id), and the awaited
//    device work -> the end of a host wait (synchronization, blocking copy).
//  - Queue edges: work that was ready (launched, its stream predecessor
//    done) but started only when work on another stream of the same device
//    ended, with the device busy in between, waited for that work: the
//    device was full. The edge makes the wait elastic, so removing the work
//    in front (a compute what-if) lets the queued work start earlier.
//
// After the weights are set, a delay edge that binds (a launch, stream or
// event-wait edge with time left) is classified by the device's state over
// its delay: up to LaunchLatencyBoundNs it is launch latency; beyond that,
// the time the device was busy with other work is queued and the time it
// was free is an unrecorded dependency (delaySplit()).
//  - Wake-up edges: a host thread other than the steps' own (the autograd
//    thread, a helper thread) that resumes after at least MinJoinNs with
//    nothing recorded, while the step thread was active, was idle, not busy:
//    it waited for the step's thread (for loss.backward(), say). Its idle
//    stretch keeps only the order (weight 0), and an edge from the step
//    thread's last instant before the resumption carries the time. Without it,
//    the idle stretch would pin the thread's work to its recorded time, and no
//    what-if on the step's thread (data loading, say) could move the work the
//    other thread launches.
//  - Join edges, the other way: a stretch of the step thread of at least
//    MinJoinNs in which it ran nothing recorded of its own (untraced, or
//    only inside its step or a user annotation such as "## backward ##")
//    while a helper thread was active is taken as waiting for that thread
//    (loss.backward() returns when the autograd thread is done). It keeps
//    the order, and an edge from the helper's last instant in the stretch
//    carries the time. Either edge can only make a what-if bound larger:
//    the bounds stay upper bounds when the guess is wrong.
//
// Weights are chosen so that the longest path into every node reproduces the
// node's recorded time: the latest predecessor binds and carries the
// remaining delay; the others get weight 0. A longest-path pass over the
// graph with some weights set to zero therefore predicts what the timeline
// would be without that time (see CriticalPath.h). Building is O(n log n) in
// events; the graph holds about two nodes and three edges per event.
//
//===----------------------------------------------------------------------===//
#ifndef TRACELINT_ANALYSIS_DEPENDENCYGRAPH_H
#define TRACELINT_ANALYSIS_DEPENDENCYGRAPH_H

#include "analysis/PathCategory.h"
#include "analysis/TraceIndex.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Memory.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

namespace tracelint::analysis {

enum class EdgeType : uint8_t {
  Work,      ///< time spent: host stretch or device work
  Launch,    ///< launch call -> its device work
  Stream,    ///< previous work on the stream -> next work
  EventWait, ///< recorded work on one stream -> next work on another
  HostWait,  ///< awaited device work -> end of the host wait
  Queue,     ///< work on another stream -> ready work queued behind it
};

/// How a delay edge's time splits by what the device was doing (see
/// DependencyGraph::delaySplit): the first LaunchLatencyBoundNs is launch
/// latency, then the part with the device busy is queued, the rest (the
/// device free and the work held back) an unrecorded dependency.
struct DelaySplit {
  int64_t LatencyNs = 0, QueuedNs = 0, UnrecordedNs = 0;
  int64_t totalNs() const { return LatencyNs + QueuedNs + UnrecordedNs; }
  int64_t of(PathCategory C) const {
    return C == PathCategory::LaunchLatency          ? LatencyNs
           : C == PathCategory::Queued               ? QueuedNs
           : C == PathCategory::UnrecordedDependency ? UnrecordedNs
                                                     : 0;
  }
};

/// An in-edge of a node (its target is the node whose in-edges hold it).
/// Twelve bytes: the edges are the largest part of the graph, about 2.2 per
/// event, and their size sets `lint`'s peak memory on large traces. An
/// edge's weight is either 0 or the whole recorded time between its ends
/// (see finish()), so one flag stands for it: DependencyGraph::weight().
struct GraphEdge {
  uint32_t From = model::NoIndex;
  /// The event the edge's time belongs to: the innermost host event of a
  /// host stretch, the device work, the launch call, or the waiting call.
  uint32_t Subject = model::NoIndex;
  PathCategory Category = PathCategory::HostUntraced;
  EdgeType Type = EdgeType::Work;
  /// The edge carries the time from its source to its target; otherwise
  /// it only orders them (weight 0).
  bool Carries = false;
  /// While the graph is built: the target is the node after the source.
  bool ToNext = false;
};
static_assert(sizeof(GraphEdge) == 12, "keep graph edges compact");

/// A stretch of a host thread with what the thread was doing in it.
struct HostSegment {
  model::Interval Range;
  PathCategory Category = PathCategory::HostUntraced;
  uint32_t Subject = model::NoIndex; ///< innermost event, or NoIndex
};

class DependencyGraph {
public:
  /// Builds the graph of the whole trace.
  /// Builds the graph of the whole trace. Once \p Stop is set (by another
  /// thread), building stops at the next host thread or step and the graph
  /// is left incomplete, to be thrown away: lint stops a graph that no
  /// finding turned out to need.
  explicit DependencyGraph(const TraceIndex &C,
                           const std::atomic<bool> *Stop = nullptr);
  /// True when building stopped early (the graph is incomplete).
  bool stopped() const { return Stop && Stop->load(); }

  size_t numNodes() const { return Time.size(); }
  int64_t time(uint32_t Node) const { return Time[Node]; }
  /// The in-edges of a node.
  llvm::ArrayRef<GraphEdge> inEdges(uint32_t Node) const {
    return llvm::ArrayRef<GraphEdge>(Edges).slice(
        InBegin[Node], InBegin[Node + 1] - InBegin[Node]);
  }
  llvm::ArrayRef<GraphEdge> edges() const { return Edges; }
  /// The time edge \p E into \p Node adds to its source's time: 0, or
  /// the recorded time between them.
  int64_t weight(uint32_t Node, const GraphEdge &E) const {
    return E.Carries ? Time[Node] - Time[E.From] : 0;
  }
  /// The node at the end of device work \p Event, or NoIndex.
  uint32_t endNodeOf(uint32_t Event) const;
  /// The host segments of a host lane, in time order: K in
  /// [0, numHostSegments(Lane)).
  size_t numHostSegments(uint32_t Lane) const;
  HostSegment hostSegment(uint32_t Lane, size_t K) const;
  /// The first segment of the lane that ends after \p Time.
  size_t firstHostSegmentAfter(uint32_t Lane, int64_t Time) const;
  /// The split of a binding delay edge longer than LaunchLatencyBoundNs
  /// (by its index in edges()); nullptr for every other edge (its time is
  /// all its category's).
  const DelaySplit *delaySplit(size_t EdgeIndex) const {
    // Only a delay edge that carries time can have one (classifyDelays()):
    // a what-if asks for every edge it weighs, most of them are not, and
    // those are answered without the lookup.
    const GraphEdge &E = Edges[EdgeIndex];
    if (!E.Carries ||
        (E.Type != EdgeType::Launch && E.Type != EdgeType::Stream &&
         E.Type != EdgeType::EventWait))
      return nullptr;
    auto It = Splits.find(uint32_t(EdgeIndex));
    return It == Splits.end() ? nullptr : &It->second;
  }
  /// The latest recorded time at which the work starting at \p Node was
  /// ready: the latest origin of its in-edges other than queue edges
  /// (its launch, its stream predecessor, an event wait); -1 for none.
  int64_t readyTime(uint32_t Node) const;
  /// Graph edges that could not be placed (a dependency that would run
  /// backwards in time: clock skew between host and device).
  uint64_t droppedEdges() const { return Dropped; }

private:
  const TraceIndex &C;
  const std::atomic<bool> *Stop;
  std::vector<int64_t> Time;
  /// The edges grouped by target, in memory that finish() fills in target
  /// order without touching it first (a vector would write every edge
  /// once before the copy, holding both copies at once).
  struct FreeEdges {
    void operator()(GraphEdge *P) const { std::free(P); }
  };
  std::unique_ptr<GraphEdge[], FreeEdges> EdgeStore;
  llvm::MutableArrayRef<GraphEdge> Edges; ///< EdgeStore's edges
  std::vector<uint32_t> InBegin;
  /// Node ids are made lane by lane: [begin, end) of each lane's nodes,
  /// and the lane of each run.
  std::vector<std::pair<uint32_t, uint32_t>> Runs;
  std::vector<uint32_t> RunLane;
  llvm::DenseMap<uint32_t, DelaySplit> Splits;
  /// The device of a device node, or INT32_MIN for a host node.
  int32_t deviceOfNode(uint32_t Node) const;
  /// Device work event -> its start node (the end node is the next).
  std::vector<uint32_t> WorkNodeOf;
  /// Per host lane: its node ids [begin, end), in time order.
  std::vector<std::pair<uint32_t, uint32_t>> HostNodes;
  /// Per string id: 1 when it names a data-loader range, 0 not, -1 unknown.
  uint64_t Dropped = 0;

  /// Edges as they are made, in blocks, so that finish() can move them
  /// into target order block by block and free each block as it goes: the
  /// graph never holds two copies of its edges, its largest part. The
  /// blocks are mapped from the system, not taken from the heap: a freed
  /// heap block stays resident until every block above it is free too, so
  /// with malloc both copies were resident at the end of the move: `lint`
  /// on bench's 1 GB trace peaked at 660 MiB there, 590 MiB with mapped
  /// blocks.
  class EdgeBlocks {
  public:
    void push_back(const GraphEdge &E) {
      if ((N & (BlockSize - 1)) == 0)
        Blocks.push_back(mapBlock());
      block(N >> BlockShift)[N & (BlockSize - 1)] = E;
      ++N;
    }
    GraphEdge &operator[](size_t I) {
      return block(I >> BlockShift)[I & (BlockSize - 1)];
    }
    size_t size() const { return N; }
    /// Calls \p Fn(I, Edge) for every edge in order, unmapping each block
    /// once it has been visited; the blocks are empty afterwards.
    template <typename Fn> void drain(Fn &&F) {
      for (size_t B = 0; B < Blocks.size(); ++B) {
        size_t Begin = B << BlockShift, End = std::min(N, Begin + BlockSize);
        const GraphEdge *Edges = block(B);
        for (size_t I = Begin; I < End; ++I)
          F(I, Edges[I - Begin]);
        Blocks[B].release();
      }
      Blocks.clear();
      N = 0;
    }

  private:
    static constexpr unsigned BlockShift = 16; // 64 Ki edges, 1 MiB
    static constexpr size_t BlockSize = size_t(1) << BlockShift;
    std::vector<llvm::sys::OwningMemoryBlock> Blocks;
    size_t N = 0;
    GraphEdge *block(size_t B) {
      return static_cast<GraphEdge *>(Blocks[B].base());
    }
    /// A block of BlockSize edges from the system; the edges are written
    /// before they are read, so no constructor runs.
    static llvm::sys::OwningMemoryBlock mapBlock();
  };
  /// Edges waiting for finish() to group them by target into Edges. Most
  /// go to the node after their source (a host stretch, a device work);
  /// those say so (GraphEdge::ToNext) and keep no target of their own, the
  /// others' targets are in PendingTo in the order of the edges: 4 bytes
  /// less per edge at the construction's peak.
  EdgeBlocks Pending;
  std::vector<uint32_t> PendingTo;
  void addEdge(uint32_t To, GraphEdge E) {
    E.ToNext = To == E.From + 1;
    if (!E.ToNext)
      PendingTo.push_back(To);
    Pending.push_back(E);
  }
  /// The target of pending host stretch \p I (always its source's next).
  uint32_t stretchTarget(size_t I) {
    assert(Pending[I].ToNext && "a host stretch ends at the next instant");
    return Pending[I].From + 1;
  }
  /// Host lanes that hold step markers; the first nodes of the other host
  /// threads, and their idle stretches of at least MinJoinNs (indices of
  /// their edges in Pending).
  std::vector<uint32_t> StepLanes;
  std::vector<uint32_t> Starts;
  std::vector<size_t> IdleStretches;
  /// Step-thread stretches that may wait for a helper thread: the index of
  /// their edge in Pending.
  std::vector<size_t> Joins;
  /// Shorter stretches without recorded activity are the framework's own
  /// time between ops, not waits (TraceIndex's launch-interval bound).
  static constexpr int64_t MinJoinNs = 200'000;
  /// Device stream lanes by (device, stream), and per lane its work with the
  /// start of the launching call (built on first use). A std::map, because
  /// (device, stream) come from the trace and may take any value, including
  /// the ones a DenseMap reserves as its empty and tombstone keys.
  std::map<std::pair<int32_t, int64_t>, uint32_t> StreamLane;
  llvm::DenseMap<uint32_t, std::vector<std::pair<int64_t, uint32_t>>> Launched;
  /// The work that a cuda_sync record waits for: the last work launched on
  /// the recorded stream before the event record call, or NoIndex.
  uint32_t awaitedByRecord(uint32_t SyncEvent);
  uint32_t addNode(int64_t T);
  uint32_t hostNodeAt(uint32_t Lane, int64_t T) const;
  uint32_t latestNodeWithin(llvm::ArrayRef<uint32_t> Lanes, int64_t Begin,
                            int64_t End) const;
  void buildHost(uint32_t Lane);
  void addWakeUpEdges();
  void addJoinEdges();
  void buildDevice();
  void addLaunchEdges();
  void addEventWaitEdges();
  void addHostWaitEdges();
  void addQueueEdges();
  void classifyDelays();
  void finish();
};

} // namespace tracelint::analysis

#endif
