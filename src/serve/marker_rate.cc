#include "serve/marker_rate.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace squeeze {

std::optional<double> MarkerRate(std::string_view marker) {
  if (marker.size() > 4096 || marker.empty() || marker.front() != '{') return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(marker, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  for (const char* key : {"samples_per_s", "steps_per_s"}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) continue;
    const double rate = it->get<double>();
    if (std::isfinite(rate) && rate > 0 && rate <= 1e12) return rate;
  }
  return std::nullopt;
}

}  // namespace squeeze
