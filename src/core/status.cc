#include "core/status.h"

namespace squeeze {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalid: return "invalid";
    case ErrorKind::kNotFound: return "not found";
    case ErrorKind::kConflict: return "conflict";
    case ErrorKind::kPermission: return "permission";
    case ErrorKind::kIo: return "io";
    case ErrorKind::kUnavailable: return "unavailable";
    case ErrorKind::kInternal: return "internal";
  }
  return "internal";
}

}  // namespace squeeze
