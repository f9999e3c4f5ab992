// Errors as values: every fallible call in rtagent returns Result<T>.
#pragma once

#include <cerrno>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace rtagent {

/// A failure: a message that names the path, the value and the errno, plus the errno itself
/// (0 when the failure did not come from the kernel) so callers can tell EIO from ENOENT.
struct Error {
  std::string message;
  int err = 0;
};

/// Builds an Error from a message and an errno, appending strerror when err != 0.
Error MakeError(std::string message, int err = 0);

/// An error about input rtagent was given (a file's content, an argument, a value out of
/// range), in a sentence that already says what is wrong: errno EINVAL for callers that test it,
/// and no strerror words ("Invalid argument") after the sentence. A kernel call that fails with
/// EINVAL keeps MakeError, whose words then say which call refused.
inline Error InvalidInput(std::string message) { return Error{std::move(message), EINVAL}; }

/// `inner` with the words a caller adds before it (and after it), keeping its errno so callers
/// further up can still tell ENOENT from EIO. Its message already ends with the errno's text
/// (MakeError put it there), so the text is not added again.
inline Error Wrap(std::string prefix, const Error& inner, std::string_view suffix = {}) {
  prefix += inner.message;
  prefix += suffix;
  return Error{std::move(prefix), inner.err};
}

/// Either a value or an Error. Callers test with ok() (or bool) and return early on failure.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }
  /// The value, or `fallback` when this holds an error.
  T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

/// Result of an operation that has no value to return.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

/// Success value for Result<void>.
inline Result<void> Ok() { return {}; }

}  // namespace rtagent
