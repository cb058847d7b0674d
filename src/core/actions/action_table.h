// The actions by the names a policy lists them under (Policy::actions): the one table that
// Scheduler::Cycle runs them from and that a policy's names are checked against.
#ifndef SQUEEZE_CORE_ACTIONS_ACTION_TABLE_H_
#define SQUEEZE_CORE_ACTIONS_ACTION_TABLE_H_

#include <string_view>
#include <vector>

#include "core/cycle.h"

namespace squeeze {

using ActionFn = void (*)(CycleContext&);

struct ActionEntry {
  std::string_view name;
  ActionFn run;
};

// Every action (actions.h says what each does), in the order `squeeze simulate --help` and the
// errors list them.
const std::vector<ActionEntry>& ActionTable();
// The action named `name`; nullptr when there is none.
ActionFn ActionNamed(std::string_view name);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_ACTIONS_ACTION_TABLE_H_
