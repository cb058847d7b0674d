#include "cli/exit_codes.h"

namespace squeeze {

int ExitCodeOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNotFound: return 3;
    case ErrorKind::kPermission: return 4;
    case ErrorKind::kConflict: return 5;
    case ErrorKind::kIo: return 6;
    case ErrorKind::kUnavailable: return 7;
    case ErrorKind::kInvalid:
    case ErrorKind::kInternal: return 1;
  }
  return 1;
}

}  // namespace squeeze
