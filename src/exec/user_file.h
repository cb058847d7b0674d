// Reading a file that a job's account chose (its own output file, sbatch -o) for `squeeze
// logs`: a root daemon never opens it itself. squeeze-supervisor --read, started with a clean
// environment and the request on its standard input, becomes the account and reads at most
// the stretch asked for; the daemon waits for it a bounded time. So the read follows only the
// links, and learns only the files, that the account itself could, and a file that is no
// regular file, or a hung file system, holds up nobody. Thread-safe.
#ifndef SQUEEZE_EXEC_USER_FILE_H_
#define SQUEEZE_EXEC_USER_FILE_H_

#include <string>

#include "core/status.h"
#include "exec/run_files.h"
#include "exec/supervisor_spec.h"

namespace squeeze {

// The daemon's side: runs `supervisor_path` --read for `spec`, at most `timeout_ms`. An error
// says why the file cannot be shown, the same for a file that is not there and one the
// account may not read ("no file that user 'alice' can read at PATH").
Result<FileSlice> ReadFileAsUser(const std::string& supervisor_path, const ReadSpec& spec,
                                 int timeout_ms);

// What --read prints for a slice, and reads back.
std::string FormatFileSlice(const FileSlice& slice);
Result<FileSlice> ParseFileSlice(const std::string& text);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_USER_FILE_H_
