#include "config/policy_settings.h"

#include <string_view>

#include "config/text_util.h"

namespace squeeze {
namespace {

struct Parsed {
  std::string policy;  // "" = every policy run
  std::string key;
  std::string value;
};

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<std::string_view> Views(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

std::string PolicyWord(size_t n) { return n == 1 ? "policy " : "policies "; }

Result<Parsed> Parse(const PolicySetting& s) {
  const size_t eq = s.text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::Error(s.shown + ": not KEY=VALUE (e.g. min_runtime=10m, or "
                                   "squeeze.min_runtime=10m for one policy)");
  }
  Parsed p;
  p.key = s.text.substr(0, eq);
  p.value = s.text.substr(eq + 1);
  if (const size_t dot = p.key.find('.'); dot != std::string::npos) {
    p.policy = p.key.substr(0, dot);
    p.key = p.key.substr(dot + 1);
  }
  return p;
}

// The policies a setting is for: the one it names, else every one.
Result<std::vector<size_t>> Targets(const PolicySetting& s, const Parsed& p,
                                    const std::vector<std::string>& run) {
  std::vector<size_t> out;
  for (size_t i = 0; i < run.size(); ++i) {
    if (p.policy.empty() || run[i] == p.policy) out.push_back(i);
  }
  if (!out.empty()) return out;
  std::string msg = s.shown + ": no policy '" + p.policy + "' is run here (run: " + Joined(run) + ")";
  if (auto near = NearestName(p.policy, Views(run))) {
    msg += "; did you mean " + *near + "." + p.key + "=" + p.value + "?";
  }
  return Status::Error(msg);
}

Status CheckKey(const PolicySetting& s, const Parsed& p) {
  const std::vector<std::string> known = PolicyOptionNames();
  for (const std::string& k : known) {
    if (k == p.key) return Status::Ok();
  }
  std::string msg = s.shown + ": unknown policy option '" + p.key + "'";
  if (auto near = NearestName(p.key, Views(known))) return Status::Error(msg + "; did you mean " + *near + "?");
  return Status::Error(msg + " (known: " + Joined(known) + ")");
}

// The named policies (as they come, no modifiers) in which `key` is read.
std::vector<std::string> NamedReaders(std::string_view key, PolicyDriver driver) {
  std::vector<std::string> out;
  for (const std::string& name : PolicyNames()) {
    auto p = NamedPolicy(name);
    if (p.ok() && !PolicyOptionUnused(*p, key, driver)) out.push_back(name);
  }
  return out;
}

}  // namespace

PolicySetting SetFlag(const std::string& text) { return {text, "--set " + text}; }

Result<PolicySettingsOutcome> ApplyPolicySettings(const std::vector<PolicySetting>& settings,
                                                  std::vector<Policy>& policies,
                                                  PolicyDriver driver) {
  std::vector<std::string> run;
  for (const Policy& p : policies) run.push_back(p.name);
  std::vector<Policy> changed = policies;
  std::vector<Parsed> parsed;
  std::vector<std::vector<size_t>> targets;
  PolicySettingsOutcome out;
  for (const PolicySetting& s : settings) {
    auto p = Parse(s);
    if (!p.ok()) return p.status();
    if (Status st = CheckKey(s, *p); !st.ok()) return st;
    auto t = Targets(s, *p, run);
    if (!t.ok() && !s.inherited) return t.status();
    if (!t.ok()) {
      out.unread.emplace_back(s.shown, t.status().message());
      t = std::vector<size_t>{};
    }
    for (size_t i : *t) {
      if (Status st = SetPolicyOption(changed[i], p->key, p->value); !st.ok()) {
        return st.WithContext(s.shown);
      }
    }
    parsed.push_back(std::move(*p));
    targets.push_back(std::move(*t));
  }
  for (size_t n = 0; n < settings.size(); ++n) {
    if (targets[n].empty()) continue;  // inherited, and for no policy run here
    const std::string& key = parsed[n].key;
    std::vector<std::string> reading, not_reading;
    std::string read_by;
    for (size_t i : targets[n]) {
      if (auto why = PolicyOptionUnused(changed[i], key, driver)) {
        not_reading.push_back(run[i]);
        read_by = *why;
      } else {
        reading.push_back(run[i]);
      }
    }
    if (reading.empty()) {
      std::string msg = settings[n].shown + " changes nothing in " +
                        PolicyWord(not_reading.size()) + Joined(not_reading) + ": " + key +
                        " is read only by " + read_by;
      if (auto readers = NamedReaders(key, driver); !readers.empty()) {
        msg += "; named policies that read it: " + Joined(readers);
      }
      if (!settings[n].inherited) return Status::Error(msg);
      out.unread.emplace_back(settings[n].shown, msg);
    } else if (!not_reading.empty()) {
      out.notes.push_back(settings[n].shown + " changes " + PolicyWord(reading.size()) +
                      Joined(reading) + " only: " + Joined(not_reading) +
                      (not_reading.size() == 1 ? " does" : " do") + " not read " + key +
                      " (read only by " + read_by + ")");
    }
  }
  policies = std::move(changed);
  return out;
}

}  // namespace squeeze
