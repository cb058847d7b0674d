#include "core/actions/action_table.h"

#include "core/actions/actions.h"

namespace squeeze {

const std::vector<ActionEntry>& ActionTable() {
  static const std::vector<ActionEntry> table = {
      {"reclaim", RunReclaim}, {"allocate", RunAllocate}, {"defrag", RunDefrag},
      {"backfill", RunBackfill}, {"borrow", RunBorrow},   {"preempt", RunPreempt},
      {"slice", RunSlice},     {"region", RunRegion},     {"spot", RunSpot},
      {"colocate", RunColocate}, {"return_home", RunReturnHome},
      {"shrink", RunShrink},   {"grow", RunGrow},     {"upgrade", RunUpgrade},
  };
  return table;
}

ActionFn ActionNamed(std::string_view name) {
  for (const ActionEntry& a : ActionTable()) {
    if (a.name == name) return a.run;
  }
  return nullptr;
}

}  // namespace squeeze
