// Reading environment variables (the documented CROQ_* knobs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace croq::support {

// The variable's value, or nullopt when unset or empty.
std::optional<std::string> env_string(const char* name);
// A non-negative integer with an optional K/M/G suffix; nullopt when unset.
// Throws croq::Error naming the variable when the value is malformed.
std::optional<std::uint64_t> env_bytes(const char* name);

}  // namespace croq::support
