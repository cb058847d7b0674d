// Policy settings as users give them (`--set KEY=VALUE` for every policy run, `--set
// POLICY.KEY=VALUE` for one; --slice; a scenario's `set:`), applied to the policies a command
// runs. A setting that names a policy not run, a key no policy has, or that changes nothing in
// any policy it is meant for is refused with the names it could mean. Pure; not thread-bound.
#ifndef SQUEEZE_CONFIG_POLICY_SETTINGS_H_
#define SQUEEZE_CONFIG_POLICY_SETTINGS_H_

#include <string>
#include <vector>

#include "core/policy.h"
#include "core/status.h"

namespace squeeze {

struct PolicySetting {
  std::string text;   // KEY=VALUE or POLICY.KEY=VALUE
  std::string shown;  // how the user wrote it, to start its messages ("--set slice=10m")
  // Given for several runs at once (a scenario's top-level `set:`, --slice with a scenario):
  // a run none of whose policies it is for, or reads it, only notes so; the caller refuses it
  // when no run at all reads it.
  bool inherited = false;
};

struct PolicySettingsOutcome {
  std::vector<std::string> notes;  // to print: settings read by some of their policies only
  // The inherited settings no policy here reads, by `shown`, with why (what their error would
  // have been).
  std::vector<std::pair<std::string, std::string>> unread;
};

// A `--set TEXT` as typed.
PolicySetting SetFlag(const std::string& text);

// Applies `settings` in order to `policies` (the policies change only if every setting
// applies), then checks each setting against the policies as they end up, so that adding an
// action with one setting makes the next one's key read.
Result<PolicySettingsOutcome> ApplyPolicySettings(const std::vector<PolicySetting>& settings,
                                                  std::vector<Policy>& policies,
                                                  PolicyDriver driver);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_POLICY_SETTINGS_H_
