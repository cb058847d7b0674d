#include "serve/error_kinds.h"

namespace squeeze {

int HttpStatusOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalid: return 400;
    case ErrorKind::kPermission: return 403;
    case ErrorKind::kNotFound: return 404;
    case ErrorKind::kConflict: return 409;
    case ErrorKind::kUnavailable: return 503;
    case ErrorKind::kIo:
    case ErrorKind::kInternal: return 500;
  }
  return 500;
}

ErrorKind ErrorKindOfHttpStatus(int status) {
  switch (status) {
    case 401:
    case 403: return ErrorKind::kPermission;
    case 404: return ErrorKind::kNotFound;
    case 409: return ErrorKind::kConflict;
    case 503: return ErrorKind::kUnavailable;
    default: break;
  }
  return status >= 500 ? ErrorKind::kIo : ErrorKind::kInvalid;
}

}  // namespace squeeze
