// Paths that must stay inside the daemon's data directory (job logs, checkpoints): a path a
// request names is resolved lexically and refused when it would land outside. A job's workdir
// is not one of them: it is the user's own directory and may be anywhere the daemon's user can
// read. Pure (reads no file system); thread-safe.
#ifndef SQUEEZE_CONFIG_DATA_PATH_H_
#define SQUEEZE_CONFIG_DATA_PATH_H_

#include <string>

#include "core/status.h"

namespace squeeze {

// `path` relative to the absolute `data_dir` (or absolute, then it must lie under data_dir),
// with "." and ".." resolved lexically; the normalised absolute path, or an error when it is
// empty, holds a NUL, or escapes data_dir. Symbolic links are not followed: the data directory
// is the daemon's own, and only the daemon creates entries in it.
Result<std::string> ResolveInside(const std::string& data_dir, const std::string& path);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_DATA_PATH_H_
