// The check every text of a job document goes through before its fields are read
// (config-internal; job_file.cc): valid UTF-8 and no control character in any value or key, as
// every field's text may be printed to other users' terminals (names in `squeeze queue`, paths
// and patterns in messages and `squeeze show`). The command's arguments and the env's values may
// hold tabs, newlines and other controls (a `python -c` program, a batch script): they are
// only checked for UTF-8 and NUL, and escaped wherever they are printed. Pure; thread-safe.
#ifndef SQUEEZE_CONFIG_JOB_TEXT_H_
#define SQUEEZE_CONFIG_JOB_TEXT_H_

#include <string>

#include "config/job_tree.h"
#include "core/status.h"

namespace squeeze {

// `root`: a job document's map. `source` starts a message whose node has no position (JSON);
// a message names the field as the reader does (name, command[2], env.PATH,
// checkpoint_store.url) and shows the value escaped.
Status CheckJobText(const JobNode& root, const std::string& source);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_JOB_TEXT_H_
