#include "support/utf8.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <utf8.h>

namespace croq::support {

namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0u) == 0x80u; }

}  // namespace

std::size_t utf8_boundary_before(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  // A character has at most 3 continuation bytes; past that the text is
  // not UTF-8 there anyway and any cut is as good (valid_utf8 repairs it).
  for (int back = 0; back < 3 && pos > 0 && pos < text.size() && is_continuation(text[pos]); ++back) --pos;
  return pos;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
  return text.substr(0, utf8_boundary_before(text, max_bytes));
}

std::string valid_utf8(std::string_view text) {
  if (utf8::is_valid(text)) return std::string(text);
  return utf8::replace_invalid(text);
}

bool is_valid_utf8(std::string_view text) { return utf8::is_valid(text); }

std::string json_text(const nlohmann::json& document, int indent) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace croq::support
