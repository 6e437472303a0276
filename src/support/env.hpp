// Reading environment variables (the documented CROQ_* knobs) and the value
// syntaxes they share with the command-line tools.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace croq::support {

// The variable's value, or nullopt when unset or empty.
std::optional<std::string> env_string(const char* name);

// A byte count: decimal digits with an optional K, M, G or T suffix (any
// case, powers of 1024). Throws croq::Error naming `what` (the variable or
// option the text came from) when the text is malformed (a bare suffix,
// signs, spaces) or the value does not fit in 64 bits.
std::uint64_t parse_byte_count(std::string_view text, const std::string& what);
// parse_byte_count of the variable's value; nullopt when unset.
std::optional<std::uint64_t> env_bytes(const char* name);

// A duration: decimal digits, in milliseconds, at most `max_ms`; nullopt
// when unset. Throws croq::Error naming the variable when the value is
// malformed or larger.
std::optional<std::chrono::milliseconds> env_milliseconds(const char* name, std::uint64_t max_ms);

// A yes/no value: 1/true/yes/on and 0/false/no/off in any case; nullopt
// for anything else.
std::optional<bool> parse_flag(std::string_view text);
// parse_flag of the variable's value; `fallback` when unset or empty, and
// (with a warning naming the variable) when the value is not a flag.
bool env_flag(const char* name, bool fallback);

// ASCII lower case, for case-insensitive names.
std::string lower_ascii(std::string_view text);

}  // namespace croq::support
