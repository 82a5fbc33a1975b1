// Result<T>: a value or an error message that names the input and the fix.
// Parsers and rules return these; exceptions never cross a layer boundary.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace servescope {

struct Error {
  std::string message;
};

/// Builds an Error from a message; reads well at return sites: `return fail("...")`.
inline Error fail(std::string message) {
  return Error{std::move(message)};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }
  const std::string& message() const { return error().message; }

 private:
  std::variant<T, Error> state_;
};

struct Unit {};
/// A Result that carries no value: success or an error.
using Status = Result<Unit>;
inline Status ok_status() {
  return Unit{};
}

}  // namespace servescope
