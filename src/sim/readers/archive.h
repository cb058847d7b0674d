// Unpacking the archives traces come in, in process (no tar or gzip program): gzip through zlib
// (several members are read one after another), and the ustar/GNU/pax tar format read by hand.
// Errors name the source and what is wrong (truncated, corrupt). Stateless; thread-safe.
#ifndef SQUEEZE_SIM_READERS_ARCHIVE_H_
#define SQUEEZE_SIM_READERS_ARCHIVE_H_

#include <string>
#include <string_view>

#include "core/status.h"

namespace squeeze {

// The bytes start with the gzip magic (1f 8b).
bool IsGzip(std::string_view bytes);
// The bytes start with a tar header: its checksum matches and it has a name.
bool IsTar(std::string_view bytes);

// The decompressed bytes of gzip data; `source` names it in messages.
Result<std::string> Gunzip(std::string_view bytes, const std::string& source);

struct TarFile {
  std::string name;        // the path inside the archive
  std::string_view data;   // a view into the archive's bytes
};

// The first regular file of the tar archive whose name ends in `suffix` (any case).
Result<TarFile> FindTarFile(std::string_view tar, std::string_view suffix,
                            const std::string& source);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_ARCHIVE_H_
