// The settings of a policy a what-if run may change (SetPolicyOption), each with the part of the
// scheduler that reads it (PolicyOptionUnused), in one table.
#include <algorithm>
#include <cstdlib>

#include "core/duration.h"
#include "core/policy.h"

namespace squeeze {
namespace {

std::string BadValue(const std::string& key, const std::string& value, const char* why) {
  return "policy option " + key + ": value '" + value + "' " + why;
}

Status Fail(const std::string& k, const std::string& v, const char* why) {
  return Status::Error(BadValue(k, v, why));
}

Status SetBool(const std::string& k, const std::string& v, bool* out) {
  if (v == "true" || v == "yes" || v == "1") *out = true;
  else if (v == "false" || v == "no" || v == "0") *out = false;
  else return Fail(k, v, "is not true or false");
  return Status::Ok();
}

template <bool Policy::*Member>
Status Flag(Policy& p, const std::string& k, const std::string& v) {
  return SetBool(k, v, &(p.*Member));
}

template <Time Policy::*Member>
Status Span(Policy& p, const std::string& k, const std::string& v) {
  auto d = ParseDuration(v);
  if (!d.ok()) return Fail(k, v, "is not a duration");
  p.*Member = *d;
  return Status::Ok();
}

template <int Policy::*Member>
Status Count(Policy& p, const std::string& k, const std::string& v) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < 0 || n > 1000000) return Fail(k, v, "is not a count >= 0");
  p.*Member = static_cast<int>(n);
  return Status::Ok();
}

Status Number(const std::string& k, const std::string& v, double lo, double hi, const char* why,
              double* out) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(x >= lo && x <= hi)) return Fail(k, v, why);
  *out = x;
  return Status::Ok();
}

// "defrag", "region", "spot", "colocate": true adds the action where it belongs, false removes it.
Status Toggle(Policy& p, const std::string& k, const std::string& v) {
  bool on = false;
  if (Status b = SetBool(k, v, &on); !b.ok()) return b;
  if (on) AddAction(p, k);
  else p.actions.erase(std::remove(p.actions.begin(), p.actions.end(), k), p.actions.end());
  return Status::Ok();
}

std::vector<std::string> SplitBar(std::string_view value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    const size_t bar = value.find('|', start);
    const size_t end = bar == std::string_view::npos ? value.size() : bar;
    if (end > start) out.emplace_back(value.substr(start, end - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
}

bool Always(const Policy&, PolicyDriver) { return true; }

struct Option {
  const char* key;
  Status (*set)(Policy&, const std::string& key, const std::string& value);
  // Whether the part that reads it runs in `policy` (evaluated after every setting is applied).
  bool (*used)(const Policy&, PolicyDriver);
  const char* read_by;  // that part, for the message when it does not: "read only by ..."
};

bool AnyOf(const Policy& p, std::initializer_list<const char*> actions) {
  for (const char* a : actions) {
    if (p.Has(a)) return true;
  }
  return false;
}

// The settings, in groups (each a table), in the order PolicyOptionNames lists them.
// Orders, bands and the allocate, backfill and preempt actions'.
std::vector<Option> CycleOptions() {
  return {
      {"slice", Span<&Policy::slice>, [](const Policy& p, PolicyDriver) { return p.Has("slice"); },
       "the slice action"},
      {"min_runtime", Span<&Policy::min_runtime>,
       [](const Policy& p, PolicyDriver) { return AnyOf(p, {"preempt", "defrag"}); },
       "the preempt and defrag actions, which move no job that ran less"},
      {"deadline_margin", Span<&Policy::deadline_margin>,
       [](const Policy& p, PolicyDriver) { return p.deadline; }, "deadline=true"},
      {"reserve_after", Span<&Policy::reserve_after>,
       [](const Policy& p, PolicyDriver) { return p.Has("backfill"); },
       "the backfill action's reservations"},
      {"starve_after", Span<&Policy::starve_after>, Always, ""},
      {"job_order", [](Policy& p, const std::string&, const std::string& v) {
         p.job_order = v;
         return Status::Ok();
       }, Always, ""},
      {"node_order", [](Policy& p, const std::string&, const std::string& v) {
         p.node_order = v;
         return Status::Ok();
       }, Always, ""},
      {"priority", Flag<&Policy::priority>, Always, ""},
      {"fair_share", Flag<&Policy::fair_share>, Always, ""},
      {"deadline", Flag<&Policy::deadline>, Always, ""},
      {"strict", Flag<&Policy::strict>,
       [](const Policy& p, PolicyDriver) { return !p.Has("backfill"); },
       "the allocate action of a policy without backfill (with backfill, the order is always kept)"},
      {"learned_estimates", Flag<&Policy::learned_estimates>,
       [](const Policy& p, PolicyDriver) {
         return AnyOf(p, {"backfill", "spot", "colocate", "region", "return_home"});
       },
       "the backfill, spot, colocate, region and return_home actions"},
      {"preempt_by_order", Flag<&Policy::preempt_by_order>,
       [](const Policy& p, PolicyDriver) { return p.Has("preempt"); }, "the preempt action"},
      {"preempt_key_ratio", [](Policy& p, const std::string& k, const std::string& v) {
         return Number(k, v, 1, 1e300, "is not a number >= 1", &p.preempt_key_ratio);
       },
       [](const Policy& p, PolicyDriver) { return p.Has("preempt") && p.preempt_by_order; },
       "the preempt action with preempt_by_order=true"},
      {"victim_order", [](Policy& p, const std::string&, const std::string& v) {
         p.victim_order = v;
         return Status::Ok();
       },
       [](const Policy& p, PolicyDriver) { return AnyOf(p, {"preempt", "reclaim"}); },
       "the preempt and reclaim actions"},
      {"hardware_aware", Flag<&Policy::hardware_aware>, Always, ""},
      {"hardware_slack", [](Policy& p, const std::string& k, const std::string& v) {
         return Number(k, v, 0, 1e6, "is not a number from 0 to 1e6", &p.hardware_slack);
       },
       [](const Policy& p, PolicyDriver) { return p.hardware_aware; }, "hardware_aware=true"},
      {"hardware_min_saving", Span<&Policy::hardware_min_saving>,
       [](const Policy& p, PolicyDriver) { return p.hardware_aware; }, "hardware_aware=true"},
      {"borrow_any", Flag<&Policy::borrow_any>,
       [](const Policy& p, PolicyDriver) { return p.Has("borrow"); }, "the borrow action"},
      {"actions", [](Policy& p, const std::string&, const std::string& v) {
         p.actions = SplitBar(v);
         return Status::Ok();
       }, Always, ""},
  };
}

// The defrag, region, spot and colocate actions' (and the live queue's held-but-idle rule).
std::vector<Option> ActionOptions() {
  return {
      {"defrag", Toggle, Always, ""},
      {"defrag_max_moves_per_hour", Count<&Policy::defrag_max_moves_per_hour>,
       [](const Policy& p, PolicyDriver) { return p.Has("defrag"); }, "the defrag action"},
      {"shrink", Toggle, Always, ""},
      {"grow", Toggle, Always, ""},
      {"elastic_resizes_per_hour", Count<&Policy::elastic_resizes_per_hour>,
       [](const Policy& p, PolicyDriver) { return AnyOf(p, {"shrink", "grow"}); },
       "the shrink and grow actions"},
      {"elastic_grow_gain", [](Policy& p, const std::string& k, const std::string& v) {
         return Number(k, v, 0, 1e6, "is not a number from 0 to 1e6", &p.elastic_grow_gain);
       },
       [](const Policy& p, PolicyDriver) { return p.Has("grow"); }, "the grow action"},
      {"region", Toggle, Always, ""},
      {"region_min_gain", Span<&Policy::region_min_gain>,
       [](const Policy& p, PolicyDriver) { return p.Has("region"); }, "the region action"},
      {"spot", Toggle, Always, ""},
      {"colocate", Toggle, Always, ""},
      {"spot_aware", Flag<&Policy::spot_aware>, Always, ""},
      {"spot_naive_interval", Span<&Policy::spot_naive_interval>,
       [](const Policy& p, PolicyDriver) { return p.Has("spot") && !p.spot_aware; },
       "the spot action with spot_aware=false"},
      {"spot_long_job", Span<&Policy::spot_long_job>,
       [](const Policy& p, PolicyDriver) { return p.Has("spot") && p.spot_aware; },
       "the spot action with spot_aware=true"},
      {"spot_long_job_checkpoint", Span<&Policy::spot_long_job_checkpoint>,
       [](const Policy& p, PolicyDriver) { return p.Has("spot") && p.spot_aware; },
       "the spot action with spot_aware=true"},
      {"spot_long_job_bridge", Flag<&Policy::spot_long_job_bridge>,
       [](const Policy& p, PolicyDriver) { return p.Has("spot") && p.spot_aware; },
       "the spot action with spot_aware=true"},
      {"spot_long_job_comply", [](Policy& p, const std::string& k, const std::string& v) {
         return Number(k, v, 0, 1, "is not a share from 0 to 1", &p.spot_long_job_comply);
       },
       [](const Policy& p, PolicyDriver) { return p.Has("spot") && p.spot_aware; },
       "the spot action with spot_aware=true"},
      {"topology_aware", Flag<&Policy::topology_aware>, Always, ""},
      {"held_idle_yields", Flag<&Policy::held_idle_yields>,
       [](const Policy&, PolicyDriver d) { return d == PolicyDriver::kLive; },
       "squeeze serve, which hears GPU utilization (the simulator has none to hear)"},
  };
}

// Flaky spot nodes, and the learned orders' own settings.
std::vector<Option> LearningOptions() {
  return {
      {"spot_flaky_reclaims", Count<&Policy::spot_flaky_reclaims>,
       [](const Policy& p, PolicyDriver) { return p.spot_aware; }, "spot_aware=true"},
      {"spot_flaky_window", Span<&Policy::spot_flaky_window>,
       [](const Policy& p, PolicyDriver) { return p.spot_aware; }, "spot_aware=true"},
      {"spot_flaky_cooldown", Span<&Policy::spot_flaky_cooldown>,
       [](const Policy& p, PolicyDriver) { return p.spot_aware; }, "spot_aware=true"},
      {"las_thresholds", [](Policy& p, const std::string& k, const std::string& v) {
         std::vector<double> thresholds;
         for (const auto& t : SplitBar(v)) {
           auto d = ParseDuration(t);
           if (!d.ok()) {
             return Status::Error(BadValue(k, v, ("has '" + t + "', not a number of GPU-seconds").c_str()));
           }
           thresholds.push_back(ToSeconds(*d));  // GPU-seconds
         }
         p.order_options.las_thresholds = std::move(thresholds);
         return Status::Ok();
       },
       [](const Policy& p, PolicyDriver) { return p.job_order == "las"; }, "job_order=las"},
      {"las_gpu_weighted", [](Policy& p, const std::string& k, const std::string& v) {
         return SetBool(k, v, &p.order_options.las_gpu_weighted);
       },
       [](const Policy& p, PolicyDriver) { return p.job_order == "las"; }, "job_order=las"},
      {"gittins_gpu_weighted", [](Policy& p, const std::string& k, const std::string& v) {
         return SetBool(k, v, &p.order_options.gittins_gpu_weighted);
       },
       [](const Policy& p, PolicyDriver) { return p.job_order == "gittins"; },
       "job_order=gittins"},
  };
}

const std::vector<Option>& Options() {
  static const auto* options = [] {
    auto* all = new std::vector<Option>(CycleOptions());
    for (const std::vector<Option>& part : {ActionOptions(), LearningOptions()}) {
      all->insert(all->end(), part.begin(), part.end());
    }
    return all;
  }();
  return *options;
}

const Option* Find(std::string_view key) {
  for (const Option& o : Options()) {
    if (key == o.key) return &o;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> PolicyOptionNames() {
  std::vector<std::string> names;
  for (const Option& o : Options()) names.emplace_back(o.key);
  return names;
}

Status SetPolicyOption(Policy& policy, std::string_view key, std::string_view value) {
  const Option* option = Find(key);
  if (option == nullptr) {
    std::string known;
    for (const Option& o : Options()) known += (known.empty() ? "" : ", ") + std::string(o.key);
    return Status::Error("unknown policy option '" + std::string(key) + "' (known: " + known + ")");
  }
  Policy changed = policy;  // a refused value changes nothing
  if (Status st = option->set(changed, std::string(key), std::string(value)); !st.ok()) return st;
  if (Status st = changed.Validate(); !st.ok()) return st;
  policy = std::move(changed);
  return Status::Ok();
}

std::optional<std::string> PolicyOptionUnused(const Policy& policy, std::string_view key,
                                              PolicyDriver driver) {
  const Option* option = Find(key);
  if (option == nullptr || option->used(policy, driver)) return std::nullopt;
  return std::string(option->read_by);
}

}  // namespace squeeze
