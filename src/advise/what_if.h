// What-if changes to a cluster for `squeeze advise --what-if`: more GPUs in a pool, in the
// first pool of a kind, or in a new pool of a kind. Syntax (docs/advise.md):
//   TERM[,TERM...]   TERM = TARGET+N[@KIND]
//   TARGET = a pool name | a kind (owned, reserved, on-demand, spot, colocated: its first pool)
//            | new-KIND (a new pool of that kind)
//   @KIND  = price the N GPUs as reserved (R a GPU-month) or as on-demand/spot GPUs held all
//            month, for pools whose own prices do not (an owned Philly VC, say).
// Pure.
#ifndef SQUEEZE_ADVISE_WHAT_IF_H_
#define SQUEEZE_ADVISE_WHAT_IF_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"

namespace squeeze {

struct WhatIfChange {
  std::string pool;      // the pool that gets the GPUs (for a new pool: its name)
  bool new_pool = false;
  PoolKind kind = PoolKind::kOwned;  // the pool's kind
  int gpus = 0;
  std::optional<PoolKind> priced_as;
};

struct WhatIf {
  std::string text;  // as given
  std::vector<WhatIfChange> changes;

  int Gpus() const;
  // "16 more GPUs in pool 6214e9 (owned), priced as reserved"
  std::string Describe() const;
};

// Parses `text` against `cluster` (pool names win over kind names). Errors name the term.
Result<WhatIf> ParseWhatIf(std::string_view text, const ClusterSpec& cluster);

// The cluster with the GPUs added: nodes like the pool's first node (8 GPUs for a new pool),
// the last one holding the remainder; an existing pool's monthly_cost grows with its GPUs.
Result<ClusterSpec> ApplyWhatIf(const ClusterSpec& cluster, const WhatIf& what_if);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_WHAT_IF_H_
