// The columns of `squeeze queue` and `squeeze history`, as squeue's -o/--format and sacct's
// --format choose them: by squeeze's names (id,name,state,time,...), by squeue's %-codes
// ("%i %j %T %M %l %R") or by sacct's field names (JobID,JobName,State,Elapsed,...). Pure;
// every text a user chose is printed with its control characters escaped.
#ifndef SQUEEZE_CLI_JOB_TABLE_FORMAT_H_
#define SQUEEZE_CLI_JOB_TABLE_FORMAT_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace squeeze {

struct JobColumn {
  std::string header;
  std::function<std::string(const nlohmann::json&)> cell;
};

// The columns `spec` names, comma- or space-separated; an unknown one is an error naming it
// and the known names.
Result<std::vector<JobColumn>> JobColumns(std::string_view spec);

// squeue's default, squeeze's way: ID NAME OWNER STATE GPUS WAIT TIME TIME_LIMIT
// NODELIST(REASON).
constexpr std::string_view kQueueColumns = "id,name,owner,state,gpus,wait,time,time_limit,nodelist_reason";
// sacct's, squeeze's way: ID NAME OWNER STATE START END WAIT TIME GPU-H EXIT NODELIST.
constexpr std::string_view kHistoryColumns =
    "id,name,owner,state,start,end,wait,time,gpu_hours,exit,nodelist";

// A table of `jobs` ({"jobs": [...]} or [...]) in `columns`; the waiting tasks of an array
// that follow each other with the same reason share a row (12_[4-99]) when `group_tasks`.
std::string FormatJobTable(const nlohmann::json& jobs, const std::vector<JobColumn>& columns,
                           bool group_tasks);

// squeue's state codes (PD, R, CG, CD, F, CA, TO) and squeeze's names, comma-separated, as
// the API's state filter wants them; an unknown one is an error naming it.
Result<std::string> StateNames(std::string_view codes);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_JOB_TABLE_FORMAT_H_
