// The public entry points throw croq::Errors only. Inputs are validated
// where they come in (dtypes, memory kinds, sizes, null data); what is left
// is the library running out of memory, or a fault of its own, which the
// caller cannot tell apart from a std::exception of their code unless it is
// named. Internal to src/api.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "croq/error.hpp"

namespace croq::detail {

// Runs `body` (the work of the entry point `entry`, e.g. "croq::compile"):
// croq::Errors pass through; std::bad_alloc becomes an Error saying that
// host memory ran out; any other std::exception an Error that names it as
// an internal error.
template <typename Body>
decltype(auto) entry_point(const char* entry, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(std::string(entry) + ": out of host memory");
  } catch (const std::exception& e) {
    throw Error(std::string(entry) + ": internal error: " + e.what() + " (please report it)");
  }
}

}  // namespace croq::detail
