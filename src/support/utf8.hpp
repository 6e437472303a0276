// Text that leaves the library is valid UTF-8: messages (what() of every
// croq::Error), diagnostics, JSON documents, strings handed to Python.
// Sources, file names and tool logs may hold any bytes, and a message cut to
// a length may end inside a character; these helpers are the one place that
// cuts text and the one place that repairs it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace croq::support {

// The largest position <= `pos` (and <= text.size()) that does not fall
// inside a UTF-8 sequence: a cut there never splits a character.
std::size_t utf8_boundary_before(std::string_view text, std::size_t pos);

// The longest prefix of `text` of at most `max_bytes` bytes that ends on a
// character boundary.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

// `text` with each invalid UTF-8 sequence (a stray continuation byte, a
// truncated or overlong sequence, a surrogate, a code point past U+10FFFF)
// replaced by U+FFFD. Valid text comes back unchanged.
std::string valid_utf8(std::string_view text);

bool is_valid_utf8(std::string_view text);

// A JSON document as text (indented by `indent` spaces per level; -1: on one
// line), invalid UTF-8 in its strings replaced by U+FFFD instead of throwing.
std::string json_text(const nlohmann::json& document, int indent = -1);

}  // namespace croq::support
