// A Statement: the changes one action proposes for one purpose (start a job; stop victims so
// that a waiting job fits; move jobs off nodes), in the manner of Volcano's. Each operation
// changes the engine state at once, so that what the action does next sees it (a placement
// finds the GPUs an eviction frees), and is logged; Discard undoes the log backwards and
// leaves the state exactly as it was, Commit makes the operations the cycle's decisions.
// Nothing becomes a decision but through a committed statement, and actions change the state
// only through statements. A statement neither committed nor discarded is discarded when it is
// destroyed. It borrows its CycleContext; one is open at a time in a cycle. Not thread-safe.
#ifndef SQUEEZE_CORE_STATEMENT_H_
#define SQUEEZE_CORE_STATEMENT_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/cycle.h"

namespace squeeze {

// Where a start places a job, for the counters and the run's terms.
enum class StartKind { kHome, kSpot, kColocated, kRegion };

struct StartOptions {
  bool borrowed = false;  // on capacity lent by another pool or team (may be reclaimed)
  Time transfer = 0;      // copying the job's data to another region, charged to the run
  std::string reason;     // why it starts there (outside its home), else empty
  StartKind kind = StartKind::kHome;
  // The placement uses up spare GPUs of reserved nodes (CycleContext::ChargeCaps).
  bool charge_caps = false;
  // kSpot and kColocated: the run's periodic checkpoint interval (0: the job's own), whether it
  // bridges its wait at home or checkpoints as the rule for long jobs asks, and when it leaves
  // the predicted idle window of its GPUs (kNever: it does not have to).
  Time checkpoint_interval = 0;
  bool bridging = false;
  bool long_job_every = false;
  Time leave_window_at = kNever;
  // kRegion: the region its data is copied to, how much and at what cost.
  int data_region = -1;
  double data_gb = 0;
  double data_cost = 0;
  // The restart of an elastic job resized (its overhead is the job's resize_cost, if set).
  bool resize = false;
};

// What a stop counts as.
enum class StopKind { kOther, kPreemption, kSliceYield };

// A move's purpose, for the counters: defrag consolidates GPUs for a blocked job (and counts
// toward the job's moves per hour), return_home brings a job back from capacity that may be
// taken away.
enum class MoveKind { kDefrag, kReturnHome, kUpgrade };

class Statement {
 public:
  explicit Statement(CycleContext& c);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Starts waiting job `id` on `placement` (free now): it holds the capacity and runs.
  void Start(JobId id, Placement placement, const StartOptions& how);
  // Asks running job `id` to stop (checkpoint if it can), for `for_job` (if any). While the
  // statement is open its GPUs, CPU and memory count as free where they would be free once it
  // stops (not on an unavailable node, nor GPUs inference needs); once committed, the job
  // holds them until the driver reports it stopped, and `for_job` claims the room then.
  void Evict(JobId id, const std::string& reason, StopKind kind,
             std::optional<JobId> for_job = std::nullopt);
  // Holds `to` (free now, and not what an eviction of this statement freed) for job `id`,
  // evicted in this statement, to restart on once it has stopped (ResumeMove).
  void MoveTo(JobId id, Placement to, bool borrowed, MoveKind kind);
  // Restarts moved job `id`, stopped now, on the capacity held for it.
  void ResumeMove(JobId id);
  // Resizes running elastic job `id` to `width` GPUs: it checkpoints and stops, holding its GPUs
  // meanwhile, and restarts on a placement of that width (ResumeMove), which may keep some of
  // its GPUs. The placement is found as if its GPUs were free, within `caps` (or none); while
  // the statement is open the GPUs it gives up count as free and those of the new placement as
  // taken. `for_job` as with Evict. False, changing nothing, when no placement of that width fits.
  bool Resize(JobId id, int width, const std::string& reason, std::optional<JobId> for_job,
              const std::unordered_map<int, int>* caps);
  // Elastic job `id`, started in this cycle, starts on `width` GPUs instead: its start decision
  // changes. False, changing nothing, when no placement of that width fits within `caps`.
  bool Widen(JobId id, int width, const std::unordered_map<int, int>* caps);
  // Keeps the free GPUs of `nodes` from every job but `for_job`, which a move makes room on,
  // until its victims have stopped.
  void HoldNodes(JobId for_job, const std::vector<int>& nodes);
  // A running job whose slice ended yields to nobody: its next slice begins.
  void ExtendSlice(JobId id);
  // Waiting job `id`, whose victims this statement evicts, starts on `to` once they have all
  // stopped (Volcano's Pipeline). Once committed, the part of `to` free now is held for it,
  // and each victim's part as it stops (EngineState::pipelined).
  void Pipeline(JobId id, Placement to, bool borrowed);
  // Ends waiting job `id`'s pipeline, releasing what was held for it, and starts it on its
  // pipelined placement if that fits now. Returns whether it started.
  bool StartPipelined(JobId id);

  // Makes the operations decisions (in the order they were made) and closes the statement.
  void Commit();
  // Undoes the operations, last first, and closes the statement.
  void Discard();
  bool empty() const { return ops_.empty(); }

 private:
  enum class OpKind { kStart, kEvict, kMoveTo, kUnholdMove, kHoldNodes, kExtendSlice, kPipeline,
                      kUnpipeline, kResize, kWiden };
  struct Op {
    OpKind kind = OpKind::kStart;
    JobId job = 0;
    Job before;            // the job as it was (every kind but kHoldNodes)
    Decision decision;     // kStart, kEvict
    StartOptions start;    // kStart
    StopKind stop = StopKind::kOther;
    MoveKind move = MoveKind::kDefrag;
    std::optional<JobId> for_job;  // kEvict (if it makes room for one), kHoldNodes
    Placement freed;       // kEvict: capacity released while the statement is open
    Placement held;        // kMoveTo, kUnholdMove: the move's destination
    bool borrowed = false;  // kMoveTo, kUnholdMove
    bool resize_move = false;  // kUnholdMove: the move was a resize
    std::optional<int> awaiting_before;  // kStart: awaiting_stops of the job, erased by it
    std::vector<int> nodes;  // kHoldNodes: the nodes added
    bool holds_existed = false;  // kHoldNodes
    std::unordered_map<int, std::optional<int>> caps_before;  // kStart, kHoldNodes
    EngineState::Pipelined pipelined;  // kUnpipeline: the pipeline as it was
    size_t decision_at = 0;  // kWiden: the start decision changed, as it was in `decision`
  };

  Job& JobAt(JobId id);
  // A placement of `width` GPUs for running job `job` in the pool it runs in, its own GPUs
  // counted as free (the caller has released them), within `caps`.
  std::optional<Placement> PlaceWidth(const Job& job, int width,
                                      const std::unordered_map<int, int>* caps) const;
  // An operation on job `id` (none for kHoldNodes), with the job as it is now.
  Op NewOp(OpKind kind, JobId id);
  // Keeps what `node`'s cap was (or that it had none) for RestoreCaps, once per operation.
  void SaveCap(Op& op, int node);
  void RestoreCaps(const Op& op);
  void Undo(Op& op);
  // A stop's bookkeeping, shared by kEvict and kResize: the job checkpoints (its work saved at
  // the stop), waits for nobody or makes room for `for_job`; the decision says why.
  void BeginStop(Op& op, const std::string& reason, std::optional<JobId> for_job);
  void UndoStop(Op& op);
  // kResize and kWiden (statement_elastic.cc).
  void UndoElastic(Op& op);
  void CommitElastic(Op& op);
  void Close();

  CycleContext& c_;
  EngineState& s_;
  std::vector<Op> ops_;
  bool open_ = true;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_STATEMENT_H_
