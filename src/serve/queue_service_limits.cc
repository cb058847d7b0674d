// QueueService's part of who may ask for what (admission.h): an update's urgency against the
// caller's ceiling, the limits in GET /v1/nodes, and what is dropped once details are purged.
#include <nlohmann/json.hpp>

#include "serve/queue_service.h"

namespace squeeze {

// An update of its own job's urgency above the owner's ceiling (not an admin's; lowering or
// keeping it is always allowed). Anything else about the update is LiveQueue::Update's to say.
std::optional<ApiResult> QueueService::UrgencyRefused(const Principal& who, int64_t id,
                                                      const std::string& body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (who.admin || !j.is_object() || !j.contains("urgency") || !j["urgency"].is_string()) {
    return std::nullopt;
  }
  const std::optional<Urgency> asked = ParseUrgency(j["urgency"].get<std::string>());
  auto job = store_.Get(id);
  if (!asked || !job.ok() || job->owner != who.user) return std::nullopt;
  const JobSpec& spec = job->request.spec;
  if (Status s = admission_.CheckUrgency(who, spec.team, *asked, spec.urgency); !s.ok()) {
    return ApiResult::Fail(403, "job " + std::to_string(id) + ": " + s.message());
  }
  return std::nullopt;
}

ApiResult QueueService::Nodes(const Principal& who) {
  nlohmann::json out = queue_.NodesJson();
  out["limits"] = admission_.Json(who);
  return ApiResult::Ok(std::move(out));
}

void QueueService::DetailsPurged() {
  std::lock_guard lock(finished_text_mu_);
  finished_text_.clear();
}

}  // namespace squeeze
