// Status and Result<T>: the one error style of stepstat. Parsing and analysis return these;
// nothing throws across a module boundary. A message already carries its place
// ("<file>:<line>: <what>"); the CLI prefixes "stepstat: " and exits 2.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace stepstat {

/// `message` with control bytes written as \n, \r, \t or \xNN: error messages end up on a
/// terminal, and they hold bytes from files (names, header cells, file names).
std::string OneLineMessage(std::string message);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  static Status Ok() { return Status(); }
  /// Always one line: control bytes in `message` are escaped (OneLineMessage).
  static Status Error(std::string message) { return Status(OneLineMessage(std::move(message))); }

  bool ok() const { return message_.empty(); }
  /// Empty when ok.
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {
    if (message_.empty()) message_ = "unknown error";
  }
  std::string message_;
};

/// "<file>:<line>: <what>", or "<file>: <what>" when line is 0 (the whole file is at fault).
std::string PlaceMessage(std::string_view file, long long line, std::string_view what);
inline Status ErrorAt(std::string_view file, long long line, std::string_view what) {
  return Status::Error(PlaceMessage(file, line, what));
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : value_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(value_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(value_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(value_); }
  T& value() & { return std::get<T>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Status> value_;
};

}  // namespace stepstat

#define STEPSTAT_CONCAT_INNER(a, b) a##b
#define STEPSTAT_CONCAT(a, b) STEPSTAT_CONCAT_INNER(a, b)

/// Returns the Status from the enclosing function when `expr` is an error.
#define RETURN_IF_ERROR(expr)                      \
  do {                                             \
    ::stepstat::Status status_macro_ = (expr);     \
    if (!status_macro_.ok()) return status_macro_; \
  } while (0)

/// `ASSIGN_OR_RETURN(auto x, MakeX());` declares x from a Result or returns its Status.
/// (`lhs` is a declaration, so it cannot be parenthesized: hence the NOLINT.)
// NOLINTBEGIN(bugprone-macro-parentheses)
#define ASSIGN_OR_RETURN(lhs, rexpr)                          \
  auto STEPSTAT_CONCAT(result_macro_, __LINE__) = (rexpr);    \
  if (!STEPSTAT_CONCAT(result_macro_, __LINE__).ok())         \
    return STEPSTAT_CONCAT(result_macro_, __LINE__).status(); \
  lhs = std::move(STEPSTAT_CONCAT(result_macro_, __LINE__)).value()
// NOLINTEND(bugprone-macro-parentheses)
