// Elastic jobs: a job that may run on any number of GPUs in a range, and how fast it runs at
// each width (its scaling). The scheduler starts such a job on what is free (at least its
// minimum), shrinks it at a checkpoint to admit waiting jobs and grows it into GPUs that would
// stay idle (the shrink and grow actions); its work is counted at its reference width, the
// width its estimate and a trace's duration are given for, so that a run at another width
// progresses at Speed(width) of a second per second. A job that does not checkpoint is only
// moldable: it starts on what is free and keeps that width. Plain data and pure functions.
#ifndef SQUEEZE_CORE_ELASTIC_H_
#define SQUEEZE_CORE_ELASTIC_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// Throughput at each width, relative to one GPU.
struct Scaling {
  enum class Kind { kLinear, kAmdahl, kTable };
  Kind kind = Kind::kLinear;
  double parallel = 1;  // kAmdahl: the parallel fraction P (speed-up 1 / ((1 - P) + P / w))
  // kTable: (width, throughput) ascending by width; between two widths the throughput is
  // interpolated linearly, beyond the last it stays flat.
  std::vector<std::pair<int, double>> table;
};
// "linear", "amdahl:0.95", "1:1,2:1.9,4:3.4" (width:throughput, any unit).
Result<Scaling> ParseScaling(std::string_view text);
std::string ScalingText(const Scaling& scaling);
// The throughput of `width` GPUs, in the unit of the scaling (1 GPU = 1 for linear and amdahl).
double Throughput(const Scaling& scaling, int width);

struct ElasticSpec {
  int min = 0;  // 0: not elastic (the job runs on exactly JobSpec::gpus)
  int max = 0;
  int step = 1;  // widths are min, min + step, ... up to max
  // The width the job's estimate (and a trace's duration) is given for; 0: max.
  int reference = 0;
  Scaling scaling;
  // What a restart after a resize costs the job (its run's overhead); unset: the job's restart
  // overhead at the new width.
  std::optional<Time> resize_cost;
  bool enabled() const { return max > 0; }
  int Reference() const { return reference > 0 ? reference : max; }
};
// "2-8" or "4": the range of GPUs (a single number is not elastic: min = max = 0).
// `field` names it in errors.
Result<ElasticSpec> ParseGpuRange(std::string_view text, std::string_view field);
// Checks a range: 1 <= min <= max, step >= 1, a reference within 1..max * 64.
Status ValidateElastic(const ElasticSpec& e);
// "2-8" (with ":2" when the step is not 1).
std::string GpuRangeText(const ElasticSpec& e);
// The widest width of the range that is at most `gpus` (0 when even min is more).
int WidestWithin(const ElasticSpec& e, int gpus);

// Measured throughput per width (samples or steps per second, as the job reports them).
using MeasuredRates = std::map<int, double>;

// The speed of a run at `width` against one at the reference width, from the measured rates
// when both widths were measured (or, with one of them measured, scaled by the model from the
// nearest measured width), else from the scaling model.
double ElasticSpeed(const ElasticSpec& e, const MeasuredRates& measured, int width);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_ELASTIC_H_
