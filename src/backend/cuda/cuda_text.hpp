// User text that reaches generated CUDA: source names in `#line` directives
// and comments. Nothing a user writes may end a literal or a
// comment early or start a preprocessor line.
#pragma once

#include <string>
#include <string_view>

namespace croq::backend::cuda {

// `text` as a C string literal, quotes included: printable ASCII stays (with
// `"`, `\` and `?` escaped), every other byte, newlines and non-ASCII
// included, becomes a three-digit octal escape. Safe in `#line N "..."`.
std::string cuda_string_literal(std::string_view text);

// `text` for the inside of a `//` comment: one line, printable ASCII only
// (other bytes and `\` as \ooo, so nothing can end the line or splice the
// next one into the comment).
std::string cuda_comment_text(std::string_view text);

}  // namespace croq::backend::cuda
