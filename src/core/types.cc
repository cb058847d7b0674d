#include "core/types.h"

#include <array>
#include <cmath>

namespace squeeze {
namespace {

constexpr std::array<std::string_view, 4> kUrgencyNames = {"low", "normal", "high",
                                                           "critical"};
constexpr std::array<std::string_view, 5> kPoolKindNames = {"owned", "colocated", "spot",
                                                            "reserved", "on-demand"};

}  // namespace

Time SecondsToTime(double seconds) {
  return static_cast<Time>(std::llround(seconds * static_cast<double>(kSecond)));
}

std::string_view UrgencyName(Urgency u) { return kUrgencyNames[static_cast<int>(u)]; }

std::optional<Urgency> ParseUrgency(std::string_view name) {
  for (size_t i = 0; i < kUrgencyNames.size(); ++i) {
    if (kUrgencyNames[i] == name) return static_cast<Urgency>(i);
  }
  return std::nullopt;
}

std::string_view JobStateName(JobState s) {
  switch (s) {
    case JobState::kPending: return "pending";
    case JobState::kRunning: return "running";
    case JobState::kCheckpointing: return "checkpointing";
    case JobState::kDone: return "done";
    case JobState::kFailed: return "failed";
    case JobState::kCancelled: return "cancelled";
    case JobState::kTimeout: return "timeout";
  }
  return "unknown";
}

std::string_view PoolKindName(PoolKind k) { return kPoolKindNames[static_cast<int>(k)]; }

std::optional<PoolKind> ParsePoolKind(std::string_view name) {
  for (size_t i = 0; i < kPoolKindNames.size(); ++i) {
    if (kPoolKindNames[i] == name) return static_cast<PoolKind>(i);
  }
  return std::nullopt;
}

}  // namespace squeeze
