// The two kinds of failure. Part of the public API.
#pragma once

#include <stdexcept>
#include <string>

namespace tensorjit {

// A mistake in what the caller passed (shapes, dtypes, axes, files). The message names the op, the
// shapes and dtypes involved, and what to do. Every existing tensor stays valid after it is thrown.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A bug of ours: an invariant the library itself broke. Still an Error so that a caller who catches
// tensorjit::Error sees it; the message starts with "internal error".
class InternalError : public Error {
 public:
  using Error::Error;
};

}  // namespace tensorjit
