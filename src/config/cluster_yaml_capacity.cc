// The parts of a cluster file for capacity beyond owned GPUs: a spot pool's `spot` map, a
// colocated pool's `colocation` map, and the root's `region_price_factors`.
//
//   pools:
//     - name: spot-a100
//       kind: spot
//       price_per_gpu_hour: 1.10
//       spot: {warning: 30s, mean_reclaim_interval: 6h, outage: 1h}
//     - name: inference
//       kind: colocated
//       colocation: {cap: 0.6, evict_within: 1m, training_speed: 0.6}
//     - name: lab-nights      # GPUs another team uses by day
//       kind: colocated
//       colocation: {cap: 0.95, evict_within: 5m, idle_windows: true}
//   region_price_factors: {us-east: 1.0, eu-west: 1.15}
#include "config/cluster_yaml_reader.h"
#include "config/text_util.h"
#include "core/duration.h"

namespace squeeze::cluster_yaml {
namespace {

constexpr std::string_view kSpotKeys[] = {"warning", "mean_reclaim_interval", "outage"};
constexpr std::string_view kColocationKeys[] = {"cap", "evict_within", "training_speed",
                                                "idle_windows"};

}  // namespace

Status ClusterYamlReader::ReadDuration(const Fields& f, std::string_view key,
                                       const std::string& path, Time& out) const {
  const auto it = f.find(key);
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, key);
  const Result<std::string> text = Scalar(it->second, where, "a duration");
  if (!text.ok()) return text.status();
  const Result<Time> value = ParseDuration(Trim(*text));
  if (!value.ok()) {
    return Error(it->second.At(), where,
                 "value '" + *text + "' is not a duration (such as 30s, 5m, 6h): " +
                     value.status().message());
  }
  if (*value < 0) return Error(it->second.At(), where, "value '" + *text + "' is negative");
  out = *value;
  return Status::Ok();
}

Status ClusterYamlReader::ReadSpot(const Fields& f, const std::string& path, SpotSpec& out) const {
  const auto it = f.find("spot");
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, "spot");
  Fields s;
  if (Status st = ReadFields(it->second.value, where, kSpotKeys, s); !st.ok()) return st;
  for (Status st : {ReadDuration(s, "warning", where, out.warning),
                    ReadDuration(s, "mean_reclaim_interval", where, out.mean_reclaim_interval),
                    ReadDuration(s, "outage", where, out.outage)}) {
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status ClusterYamlReader::ReadColocation(const Fields& f, const std::string& path,
                                         ColocationSpec& out) const {
  const auto it = f.find("colocation");
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, "colocation");
  Fields s;
  if (Status st = ReadFields(it->second.value, where, kColocationKeys, s); !st.ok()) return st;
  for (Status st : {ReadDouble(s, "cap", where, out.cap),
                    ReadDuration(s, "evict_within", where, out.evict_within),
                    ReadDouble(s, "training_speed", where, out.training_speed)}) {
    if (!st.ok()) return st;
  }
  if (const auto w = s.find("idle_windows"); w != s.end()) {
    const std::string text(w->second.value.IsScalar() ? Trim(w->second.value.Scalar()) : "");
    if (text == "true") {
      out.idle_windows = true;
    } else if (text == "false") {
      out.idle_windows = false;
    } else {
      return Error(w->second.At(), Child(where, "idle_windows"),
                   "value '" + text + "' is not true or false");
    }
  }
  for (auto [key, value] : {std::pair<std::string_view, double>{"cap", out.cap},
                            {"training_speed", out.training_speed}}) {
    const auto v = s.find(key);
    if (v != s.end() && !(value > 0 && value <= 1)) {
      return Error(v->second.At(), Child(where, key),
                   "value '" + v->second.value.Scalar() + "' must be more than 0 and at most 1");
    }
  }
  return Status::Ok();
}

Status ClusterYamlReader::ReadPriceFactors(const Fields& f, ClusterSpec& spec) const {
  const auto it = f.find("region_price_factors");
  if (it == f.end()) return Status::Ok();
  const std::string where = "region_price_factors";
  if (!it->second.value.IsMap()) {
    return Error(it->second.At(), where,
                 "expected a map of region: factor, got " + TypeName(it->second.value));
  }
  Fields regions;
  for (const auto& entry : it->second.value) {
    if (!entry.first.IsScalar() || Trim(entry.first.Scalar()).empty()) {
      return Error(entry.first, where, "a region name must be a non-empty plain name");
    }
    if (!regions.emplace(entry.first.Scalar(), Field{entry.first, entry.second}).second) {
      return Error(entry.first, where, "region '" + entry.first.Scalar() + "' is given twice");
    }
  }
  for (const auto& [region, field] : regions) {
    double factor = 1;
    if (Status st = ReadDouble(regions, region, where, factor); !st.ok()) return st;
    if (!(factor > 0)) {
      return Error(field.At(), Child(where, region), "value '" + field.value.Scalar() +
                                                         "' must be more than 0");
    }
    spec.region_price_factors[region] = factor;
  }
  return Status::Ok();
}

}  // namespace squeeze::cluster_yaml
