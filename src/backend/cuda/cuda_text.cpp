#include "backend/cuda/cuda_text.hpp"

namespace croq::backend::cuda {
namespace {

bool printable(unsigned char c) { return c >= 0x20 && c < 0x7f; }

void append_octal(std::string& out, unsigned char c) {
  out += '\\';
  out += static_cast<char>('0' + ((c >> 6) & 7));
  out += static_cast<char>('0' + ((c >> 3) & 7));
  out += static_cast<char>('0' + (c & 7));
}

// Printable ASCII as is except the characters in `escaped`, which get a
// backslash, and those in `octal`; everything else in octal.
std::string escape(std::string_view text, std::string_view escaped, std::string_view octal) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (!printable(c) || octal.find(ch) != std::string_view::npos) {
      append_octal(out, c);
    } else {
      if (escaped.find(ch) != std::string_view::npos) out += '\\';
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string cuda_string_literal(std::string_view text) {
  // `?` too: "??/" would be a trigraph for `\` under pre-C++17 dialects.
  return "\"" + escape(text, "\"\\?", "") + "\"";
}

// A backslash as \134, so none can end the line and splice the next one into the comment.
std::string cuda_comment_text(std::string_view text) { return escape(text, "", "\\"); }

}  // namespace croq::backend::cuda
