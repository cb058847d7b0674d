// The arithmetic of running on capacity that can be taken away (spot reclaims, colocated GPUs
// that inference takes back): the checkpoint interval that wastes least (Young's and Daly's
// first-order optimum) and the expected time a job needs when interruptions arrive as a
// Poisson process. Pure functions of their arguments; all times (the doubles) in seconds: a
// Time goes in as ToSeconds(t).
#ifndef SQUEEZE_CORE_SPOT_MATH_H_
#define SQUEEZE_CORE_SPOT_MATH_H_

#include "core/job.h"
#include "core/types.h"

namespace squeeze {

// Young (1974): sqrt(2 * checkpoint_cost * mtbi). `mtbi`: mean time between interruptions.
double YoungInterval(double checkpoint_cost, double mtbi);
// Daly (2006), the higher-order estimate: sqrt(2 C M) * (1 + sqrt(C / 2M) / 3 + C / 18M) - C
// when C < 2M, else M. Never below 1 s.
double DalyInterval(double checkpoint_cost, double mtbi);

// The expected wall time to finish `work` seconds of progress when interruptions come at
// mean interval `mtbi` (exponential), the job checkpoints every `interval` seconds of
// progress at `checkpoint_cost` each, and every interruption costs `restart` seconds before
// work resumes from the last checkpoint (Daly's model: M e^{R/M} (e^{(t+C)/M} - 1) per
// segment of t). interval <= 0 or >= work: no periodic checkpoints (one segment of `work`).
// mtbi <= 0 means no interruptions: work plus the checkpoints taken.
double ExpectedRunTime(double work, double interval, double checkpoint_cost, double restart,
                       double mtbi);
// The same for a run that checkpoints within the warning when interrupted (`on_notice`): it
// loses only the checkpoint and the restart per interruption, work (1 + (R + C) / M);
// otherwise ExpectedRunTime.
double ExpectedRunTimeThere(double work, double interval, double checkpoint_cost, double restart,
                            double mtbi, bool on_notice);

// The same with asynchronous checkpoints: each pauses the run `pause` seconds and is on disk
// `save` seconds after it began, so every interruption also loses the save's remaining
// `save - pause` (added to the restart). pause == save: synchronous, ExpectedRunTime.
double ExpectedRunTimeAsync(double work, double interval, double pause, double save,
                            double restart, double mtbi);
// Whether checkpoints every `interval` pausing `pause` each take at most `max_share` of a run's
// time (pause / (interval + pause)): what squeeze may ask of a long job on spot.
bool CheckpointsAffordable(double pause, double interval, double max_share);

// The same for a job's spec: its periodic checkpoints pause it PeriodicCheckpointStall, an
// asynchronous save's persist lag is lost with every interruption (added to the restart), a
// save on notice takes checkpoint_cost, and a restart RestartOverhead. `work`, `interval`,
// `mtbi` and the result in seconds.
double ExpectedRunTimeOf(const JobSpec& spec, double work, double interval, double mtbi,
                         bool on_notice);
// Daly's interval for a job's periodic checkpoints (from their pause; `mtbi` in seconds), in
// whole seconds, at least a minute.
Time DalyIntervalOf(const JobSpec& spec, double mtbi);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_SPOT_MATH_H_
