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

// Source columns count UTF-8 code points (what an editor shows): every byte
// but a continuation byte (10xxxxxx) starts one, so a stray invalid byte is
// one column too.
inline int text_columns(std::string_view text) {
  int columns = 0;
  for (char c : text) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return columns;
}

// The byte offset in `line` where 1-based column `column` (code points)
// starts; line.size() when the line is shorter.
inline std::size_t column_offset(std::string_view line, int column) {
  std::size_t at = 0;
  for (int c = 1; c < column && at < line.size(); ++c) {
    ++at;
    while (at < line.size() && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) ++at;
  }
  return at;
}

}  // namespace croq::support
