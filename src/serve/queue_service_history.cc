// QueueService's history views (GET /v1/history, /v1/idle-windows, /v1/cost): the store's run
// events and GPU samples over a range, through serve/history_views.
#include "serve/queue_service.h"

#include "config/text_util.h"
#include "core/duration.h"
#include "serve/history_views.h"

namespace squeeze {
namespace {

constexpr Time kDefaultHistorySince = 7 * kDay;
constexpr Time kDefaultIdleSince = 28 * kDay;
constexpr Time kDefaultCostSince = 30 * kDay;

// A 400 for a query parameter other than `allowed` (a typo would otherwise be ignored), with
// the nearest known name.
std::optional<ApiResult> UnknownParameter(const std::map<std::string, std::string>& query,
                                          const std::vector<std::string_view>& allowed) {
  for (const auto& [key, value] : query) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    auto near = NearestName(key, allowed);
    return ApiResult::Fail(400, "unknown query parameter '" + key + "'" +
                                    (near ? " (did you mean '" + *near + "'?)" : ""));
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<GpuSample>> QueueService::SamplesIn(const HistoryRange& range) {
  if (samples_ == nullptr) return std::vector<GpuSample>{};
  return samples_->Read(range.from, range.to);
}

ApiResult QueueService::History(const Principal&, const std::map<std::string, std::string>& query) {
  if (auto bad = UnknownParameter(query, {"since", "step"})) return *bad;
  auto range = ParseHistoryRange(query, clock_(), kDefaultHistorySince);
  if (!range.ok()) return ApiResult::Fail(400, range.status().message());
  auto events = store_.RunEvents(range->from, range->to);
  if (!events.ok()) return ApiResult::Fail(events.status());
  auto samples = SamplesIn(*range);
  if (!samples.ok()) return ApiResult::Fail(samples.status());
  return ApiResult::Ok(HistoryJson(RunSpansFromEvents(*events, range->to), *samples, *range,
                                   queue_.GpuCount()));
}

ApiResult QueueService::Cost(const Principal&, const std::map<std::string, std::string>& query) {
  if (auto bad = UnknownParameter(query, {"since"})) return *bad;
  auto since = ParseSince(query, kDefaultCostSince);
  if (!since.ok()) return ApiResult::Fail(400, since.status().message());
  const HistoryRange range = RangeSince(clock_(), *since);
  auto events = store_.RunEvents(range.from, range.to);
  if (!events.ok()) return ApiResult::Fail(events.status());
  return ApiResult::Ok(
      CostJson(RunSpansFromEvents(*events, range.to), queue_.PoolPrices(), range));
}

ApiResult QueueService::IdleWindows(const Principal&,
                                    const std::map<std::string, std::string>& query) {
  if (auto bad = UnknownParameter(query, {"since", "threshold", "east"})) return *bad;
  // The windows' zone, minutes east of UTC (the dashboard's local zone): -720 to 840.
  int east = 0;
  if (auto it = query.find("east"); it != query.end()) {
    auto v = ParseInt64(it->second);
    if (!v || *v < -720 || *v > 840) {
      return ApiResult::Fail(400, "east: '" + it->second + "' is not minutes east of UTC from "
                                  "-720 to 840");
    }
    east = static_cast<int>(*v);
  }
  auto since = ParseSince(query, kDefaultIdleSince);
  if (!since.ok()) return ApiResult::Fail(400, since.status().message());
  const HistoryRange range = RangeSince(clock_(), *since);
  IdleOptions options;
  if (auto it = query.find("threshold"); it != query.end()) {
    auto v = ParseDouble(it->second);
    if (!v || *v <= 0 || *v > 1) {
      return ApiResult::Fail(400, "threshold: '" + it->second + "' is not a number in (0, 1]");
    }
    options.threshold = *v;
  }
  auto samples = SamplesIn(range);
  if (!samples.ok()) return ApiResult::Fail(samples.status());
  if (samples->empty()) {
    return ApiResult::Ok({{"from", WholeSeconds(range.from)},
                          {"to", WholeSeconds(range.to)},
                          {"threshold", options.threshold},
                          {"weeks", 0}, {"gpus", nlohmann::json::array()},
                          {"windows", nlohmann::json::array()}, {"windows_zone", "UTC"}});
  }
  std::map<std::string, std::string> pool_of_node = queue_.PoolOfNode();
  for (const GpuSample& s : *samples) pool_of_node.emplace(s.node, "(not in the cluster file)");
  auto analysis = AnalyseIdle(*samples, options, pool_of_node);
  if (!analysis.ok()) return ApiResult::Fail(analysis.status());
  return ApiResult::Ok(IdleWindowsJson(*analysis, range.from, range.to, east));
}

}  // namespace squeeze
