// Streaming check macros (Halide's user_assert/internal_assert): the message is built only when the
// condition fails, and the library never aborts.
//
//   TJ_CHECK(axis < rank) << "sum: axis " << axis << " is out of range for shape " << shape;
//   TJ_INTERNAL_CHECK(node) << "lowering met a null node";
#pragma once

#include <sstream>
#include <tensorjit/error.hpp>

namespace tensorjit::detail {

class ErrorBuilder {
 public:
  explicit ErrorBuilder(bool internal) : internal_(internal) {
    if (internal_) message_ << "internal error (a tensorjit bug, please report it): ";
  }
  ErrorBuilder(const ErrorBuilder&) = delete;
  ErrorBuilder& operator=(const ErrorBuilder&) = delete;
  [[noreturn]] ~ErrorBuilder() noexcept(false) {
    if (internal_) throw InternalError(message_.str());
    throw Error(message_.str());
  }
  template <typename T> ErrorBuilder& operator<<(const T& value) {
    message_ << value;
    return *this;
  }

 private:
  bool internal_;
  std::ostringstream message_;
};

}  // namespace tensorjit::detail

#define TJ_CHECK(cond) \
  if (cond) {          \
  } else               \
    ::tensorjit::detail::ErrorBuilder(false)

#define TJ_INTERNAL_CHECK(cond) \
  if (cond) {                   \
  } else                        \
    ::tensorjit::detail::ErrorBuilder(true)

#define TJ_FAIL() ::tensorjit::detail::ErrorBuilder(false)
