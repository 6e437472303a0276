// Small text helpers for messages and generated names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace croq::support {

// "1,048,576": counts in messages.
inline std::string group_digits(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// [A-Za-z_][A-Za-z0-9_]*: what the frontend lexes as an identifier, and
// what generated code may use as a name.
inline bool is_identifier(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace croq::support
