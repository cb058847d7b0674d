// Slurm's host lists ("east-n[0-3]", "gpu[01-04,07],login1"): the node names they stand for,
// in order, as squeue's `nodes` and SLURM_JOB_NODELIST write them; and the reverse, one name
// per node joined by commas, which sbatch's --nodelist accepts. Pure; thread-safe.
#ifndef SQUEEZE_SLURM_HOST_LIST_H_
#define SQUEEZE_SLURM_HOST_LIST_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

// "n[1,3-4]" -> {n1, n3, n4}; "a[01-02]" keeps the width (a01, a02); "" -> {}. Errors name
// the list and what is wrong in it (an unclosed bracket, a range that runs backwards, ...).
Result<std::vector<std::string>> ExpandHostList(std::string_view list);

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_HOST_LIST_H_
