// Reading the files squeeze is given (traces, cluster files) whole, with errors that name the
// path and the system's reason. Shared by config and sim; thread-safe.
#ifndef SQUEEZE_CONFIG_FILE_IO_H_
#define SQUEEZE_CONFIG_FILE_IO_H_

#include <string>

#include "core/status.h"

namespace squeeze {

// The file's bytes; "cannot open 'PATH': REASON" (or read) when it cannot be had.
Result<std::string> ReadWholeFile(const std::string& path);
// Writes `text` as the whole file; "cannot write 'PATH'" when it cannot.
Status WriteWholeFile(const std::string& path, const std::string& text);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_FILE_IO_H_
