#include <string_view>

#include "slurm/slurm_output.h"

namespace squeeze {

bool SlurmStateEnded(std::string_view state) {
  for (std::string_view ended : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                                 "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"}) {
    if (state == ended) return true;
  }
  return false;
}

}  // namespace squeeze
