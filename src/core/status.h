// Status and Result<T>: errors as values across module boundaries. A Status carries a message
// a user can act on (it names the field and the value) and a kind, what a caller decides by
// (mapped once to an HTTP status, serve/error_kinds.h, and to the CLI's exit code). Not
// thread-safe to share mutably.
#ifndef SQUEEZE_CORE_STATUS_H_
#define SQUEEZE_CORE_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace squeeze {

// What kind of failure: what a caller acts on without reading the message.
enum class ErrorKind {
  kInvalid,     // the input is wrong (a field, a value, a file's content): fix it and retry
  kNotFound,    // what was named does not exist
  kConflict,    // it exists, but its state does not allow this now (already ended, ...)
  kPermission,  // who asked may not do this
  kIo,          // the disk or the store failed: nothing the caller did
  kUnavailable, // a service it needs does not answer (the daemon, Slurm): retry later
  kInternal,    // a broken invariant of squeeze itself
};
// "invalid", "not found", ... (as the JSON error bodies and logs name them).
const char* ErrorKindName(ErrorKind kind);

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  // An error of kind kInvalid, what most errors are (a parser's, a check's).
  static Status Error(std::string message) { return Status(ErrorKind::kInvalid, std::move(message)); }
  static Status Error(ErrorKind kind, std::string message) { return Status(kind, std::move(message)); }
  static Status NotFound(std::string message) { return Status(ErrorKind::kNotFound, std::move(message)); }
  static Status Conflict(std::string message) { return Status(ErrorKind::kConflict, std::move(message)); }
  static Status PermissionDenied(std::string message) {
    return Status(ErrorKind::kPermission, std::move(message));
  }
  static Status Io(std::string message) { return Status(ErrorKind::kIo, std::move(message)); }
  static Status Unavailable(std::string message) {
    return Status(ErrorKind::kUnavailable, std::move(message));
  }
  static Status Internal(std::string message) { return Status(ErrorKind::kInternal, std::move(message)); }

  bool ok() const { return !message_.has_value(); }
  // kInvalid for an ok Status (never asked in practice).
  ErrorKind kind() const { return kind_; }
  const std::string& message() const {
    static const std::string kOk = "ok";
    return message_ ? *message_ : kOk;
  }
  // Returns a copy whose message is prefixed with `context: `; the kind stays.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(kind_, context + ": " + *message_);
  }

 private:
  Status(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  ErrorKind kind_ = ErrorKind::kInvalid;
  std::optional<std::string> message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : value_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(value_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(value_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T& value() & { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> value_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_STATUS_H_
