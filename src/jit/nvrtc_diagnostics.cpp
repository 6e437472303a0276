#include "jit/nvrtc_diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>
#include <string_view>

#include "jit/nvrtc_sandbox.hpp"
#include "support/format.hpp"

namespace croq::jit {
namespace {

// ---- lines and #line directives --------------------------------------------

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\f\v");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\f\v") - first + 1);
}

// The text of a C string literal starting at `s[pos]` (the opening quote),
// escapes resolved; how #line names arrive in NVRTC's messages.
std::string unescape_string_literal(std::string_view s, std::size_t pos) {
  std::string out;
  for (std::size_t i = pos + 1; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    const char e = s[++i];
    if (e >= '0' && e <= '7') {
      int v = 0;
      for (int k = 0; k < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++k, ++i) v = v * 8 + (s[i] - '0');
      --i;
      out += static_cast<char>(v);
    } else if (e == 'x') {
      int v = 0;
      while (i + 1 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1]))) {
        const char h = s[++i];
        v = v * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
      }
      out += static_cast<char>(v);
    } else {
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        default: out += e;  // \\ \" \' \?
      }
    }
  }
  return out;
}

std::string line_directive_name(const std::string& name);

struct Presumed {
  std::string name;
  int line = 0;
};

// `#line N ["name"]` (or `# N "name"`, the GNU form): true with N, and the
// name when one is given.
bool parse_line_directive(const std::string& line, int& number, std::optional<std::string>& name) {
  std::string_view t = trim(line);
  if (t.empty() || t[0] != '#') return false;
  t = trim(t.substr(1));
  if (t.rfind("line", 0) == 0 && t.size() >= 5 && std::isspace(static_cast<unsigned char>(t[4]))) t = trim(t.substr(4));
  std::size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0 || digits > 9) return false;
  number = std::stoi(std::string(t.substr(0, digits)));
  std::string_view rest = trim(t.substr(digits));
  name.reset();
  if (!rest.empty() && rest[0] == '"') name = unescape_string_literal(rest, 0);
  return true;
}

// The presumed location (#line file and line) of every physical line of
// the CUDA text, as NVRTC reports it: index 0 is line 1.
std::vector<Presumed> presumed_locations(const std::vector<std::string>& lines, const std::string& cuda_name) {
  std::vector<Presumed> out;
  Presumed next{cuda_name, 1};
  for (const std::string& line : lines) {
    out.push_back(next);
    ++next.line;
    int number = 0;
    std::optional<std::string> name;
    if (!parse_line_directive(line, number, name)) continue;
    next.line = number;
    if (name) next.name = *name;
  }
  return out;
}

// The line of the user's source each physical line of the CUDA text is a
// copy of, by the last #line that names that source (0 before any). A
// #line naming another file, which only the user's own __device__ code can
// hold, does not move it: that directive and the lines after it are copies
// of the user's lines too.
std::vector<int> origin_lines(const std::vector<std::string>& lines, const std::string& origin_name) {
  std::vector<int> out;
  int next = 0;
  for (const std::string& line : lines) {
    out.push_back(next);
    if (next > 0) ++next;
    int number = 0;
    std::optional<std::string> name;
    if (parse_line_directive(line, number, name) && name &&
        line_directive_name(*name) == line_directive_name(origin_name))
      next = number;
  }
  return out;
}

// Where the caret line points inside the echoed source line that NVRTC
// prints under each message; a 1-based column in `actual`, or 0.
int caret_column(const std::string& echoed, const std::string& caret, const std::string& actual) {
  std::size_t caret_pos = caret.find('^');
  if (caret_pos == std::string::npos) return 0;
  std::size_t first = echoed.find_first_not_of(' ');
  std::size_t actual_first = actual.find_first_not_of(" \t");
  if (first == std::string::npos || actual_first == std::string::npos || caret_pos < first) return 0;
  return static_cast<int>(actual_first + (caret_pos - first)) + 1;
}

// ---- NVRTC's log -------------------------------------------------------------

struct LogHeader {
  std::string file;
  int line = 0;
  Severity severity = Severity::error;
  bool remark = false;
  std::string message;
};

// "<file>(<line>): <kind>[ #N-D]: <message>", where <file> may itself hold
// parentheses; false for other lines.
bool parse_header(const std::string& l, LogHeader& h) {
  for (std::size_t close = l.find("): "); close != std::string::npos; close = l.find("): ", close + 1)) {
    std::size_t open = l.rfind('(', close);
    if (open == std::string::npos || open + 1 == close) continue;
    const std::string number = l.substr(open + 1, close - open - 1);
    if (number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string rest = l.substr(close + 3);
    static const std::pair<const char*, Severity> kinds[] = {{"catastrophic error", Severity::error},
                                                              {"error", Severity::error},
                                                              {"warning", Severity::warning},
                                                              {"remark", Severity::note}};
    for (const auto& [word, severity] : kinds) {
      if (rest.rfind(word, 0) != 0) continue;
      std::size_t colon = rest.find(": ");
      if (colon == std::string::npos) break;
      h.file = l.substr(0, open);
      h.line = std::stoi(number);
      h.severity = severity;
      h.remark = severity == Severity::note;
      h.message = rest.substr(colon + 2);
      return true;
    }
  }
  return false;
}

// ---- includes -----------------------------------------------------------------

// Phase 2 of translation: the text with backslash-newlines removed, and the
// physical line and column of each remaining character.
struct SplicedText {
  std::string text;
  std::vector<std::pair<int, int>> where;
};

SplicedText splice_lines(const std::string& src) {
  SplicedText out;
  int line = 1, column = 1;
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (src[i] == '\\') {
      std::size_t j = i + 1;
      if (j < src.size() && src[j] == '\r') ++j;
      if (j < src.size() && src[j] == '\n') {
        i = j;
        ++line;
        column = 1;
        continue;
      }
    }
    out.text += src[i];
    out.where.emplace_back(line, column);
    if (src[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return out;
}

// A header NVRTC has in memory (device_headers), named as it is there.
bool is_safe_header_name(std::string_view name) {
  const std::vector<std::string>& names = includable_header_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string includable_list() {
  std::string out;
  for (const std::string& name : includable_header_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

class IncludeScanner {
 public:
  explicit IncludeScanner(const std::string& cuda) : s_(splice_lines(cuda)), t_(s_.text) {}

  std::vector<Diagnostic> run() {
    bool line_start = true;
    std::size_t i = 0;
    while (i < t_.size()) {
      const char c = t_[i];
      if (c == '\n') {
        line_start = true;
        ++i;
      } else if (is_blank(c)) {
        ++i;
      } else if (t_.compare(i, 2, "//") == 0) {
        i = std::min(t_.find('\n', i), t_.size());
      } else if (t_.compare(i, 2, "/*") == 0) {
        i = skip_block_comment(i);  // a comment keeps the line's start: `/* */ #include` is a directive
      } else if ((c == '#' || t_.compare(i, 2, "%:") == 0) && line_start) {
        line_start = false;
        i = directive(i, c == '#' ? 1 : 2);
      } else if (c == '"' || c == '\'') {
        line_start = false;
        i = skip_quoted(i);
      } else if (is_identifier_start(c)) {
        line_start = false;
        i = identifier(i);
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        line_start = false;
        i = skip_number(i);
      } else {
        line_start = false;
        ++i;
      }
    }
    return std::move(out_);
  }

 private:
  static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
  static bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
  static bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  std::size_t skip_block_comment(std::size_t i) const {
    std::size_t end = t_.find("*/", i + 2);
    return end == std::string::npos ? t_.size() : end + 2;
  }

  // Blanks and comments within one logical line.
  std::size_t skip_blanks(std::size_t i) const {
    for (;;) {
      while (i < t_.size() && is_blank(t_[i])) ++i;
      if (t_.compare(i, 2, "/*") != 0) return i;
      i = skip_block_comment(i);
    }
  }

  std::size_t skip_quoted(std::size_t i) const {
    const char quote = t_[i++];
    while (i < t_.size() && t_[i] != quote && t_[i] != '\n') i += t_[i] == '\\' ? 2 : 1;
    return std::min(i + 1, t_.size());
  }

  std::size_t skip_number(std::size_t i) const {  // a pp-number, digit separators included
    ++i;
    while (i < t_.size()) {
      const char c = t_[i];
      if (is_identifier_char(c) || c == '.') ++i;
      else if (c == '\'' && i + 1 < t_.size() && is_identifier_char(t_[i + 1])) i += 2;
      else if ((c == '+' || c == '-') && std::string_view("eEpP").find(t_[i - 1]) != std::string_view::npos) ++i;
      else break;
    }
    return i;
  }

  // R"delim( ... )delim", whose text may hold anything, `#include` lines too.
  std::size_t skip_raw_string(std::size_t quote) const {
    std::size_t open = t_.find('(', quote);
    if (open == std::string::npos || open - quote > 17) return quote + 1;
    const std::string close = ")" + t_.substr(quote + 1, open - quote - 1) + "\"";
    std::size_t end = t_.find(close, open);
    return end == std::string::npos ? t_.size() : end + close.size();
  }

  std::size_t identifier(std::size_t i) {
    const std::size_t begin = i;
    while (i < t_.size() && is_identifier_char(t_[i])) ++i;
    const std::string_view word(t_.data() + begin, i - begin);
    if (i < t_.size() && t_[i] == '"' && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR"))
      return skip_raw_string(i);
    if (word == "__has_include" || word == "__has_include_next") {
      std::size_t k = skip_blanks(i);
      if (k < t_.size() && t_[k] == '(') check_header_operand(skip_blanks(k + 1), begin, std::string(word));
    }
    return i;
  }

  std::size_t directive(std::size_t hash, std::size_t hash_length) {
    std::size_t k = skip_blanks(hash + hash_length);
    std::size_t name_end = k;
    while (name_end < t_.size() && is_identifier_char(t_[name_end])) ++name_end;
    const std::string name = t_.substr(k, name_end - k);
    const std::string introducer = t_.substr(hash, hash_length);  // `#` or the digraph `%:`
    if (name == "include" || name == "include_next") {
      check_header_operand(skip_blanks(name_end), hash, introducer + name);
    } else if (name == "embed" || name == "import") {
      report(hash, "`" + introducer + name + "` is not allowed in device code: it reads files of the host");
    }
    return name_end;
  }

  // The operand of an include at `k`: <name> or "name" with a safe name.
  void check_header_operand(std::size_t k, std::size_t where, const std::string& what) {
    const char open = k < t_.size() ? t_[k] : '\n';
    const char close = open == '<' ? '>' : open == '"' ? '"' : '\0';
    std::size_t end = close ? t_.find_first_of(std::string(1, close) + "\n", k + 1) : std::string::npos;
    if (!close || end == std::string::npos || t_[end] != close) {
      report(where, "`" + what + "` must name a CUDA header directly (<cuda_fp16.h>), not through a macro");
      return;
    }
    const std::string header = t_.substr(k + 1, end - k - 1);
    if (!is_safe_header_name(header))
      report(where, "`" + what + " " + open + header + close +
                        "` is not allowed: device code may include only the CUDA toolkit headers that NVRTC "
                        "gets in memory, by name (<cuda_fp16.h>)");
  }

  void report(std::size_t at, const std::string& message) {
    Diagnostic d;
    d.severity = Severity::error;
    d.message = message;
    d.line = s_.where[at].first;
    d.column = s_.where[at].second;
    d.hint = "kernels cannot read files of the host; put the code in the source instead (the headers: " +
             includable_list() + ")";
    out_.push_back(std::move(d));
  }

  SplicedText s_;
  const std::string& t_;
  std::vector<Diagnostic> out_;
};

// A #line file name as the generator may have written it: bytes it cannot
// put in a string literal (controls, non-ASCII) become '?'.
std::string line_directive_name(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return out;
}

// The 1-based column in the user's line `user` of `column` in generated
// line `generated`, when the generated line is text copied from it; 0 when
// it is not (generated code that merely carries the user's #line).
int column_in_user_line(const std::string& generated, int column, const std::string& user) {
  const std::string_view copied = trim(generated);
  if (copied.empty()) return 0;
  const std::size_t at = user.find(copied);
  if (at == std::string::npos) return 0;
  const std::size_t lead = generated.find_first_not_of(" \t\r\f\v");
  const std::size_t offset = column > 0 && static_cast<std::size_t>(column - 1) >= lead ? column - 1 - lead : 0;
  return support::text_columns(std::string_view(user).substr(0, at + std::min(offset, copied.size()))) + 1;
}

}  // namespace

std::vector<Diagnostic> unsafe_include_diagnostics(const std::string& cuda_source) {
  return IncludeScanner(cuda_source).run();
}

std::vector<Diagnostic> parse_nvrtc_log(const std::string& log, const std::string& cuda_source,
                                        const std::string& cuda_name) {
  std::vector<Diagnostic> out;
  const std::vector<std::string> lines = split_lines(log);
  const std::vector<std::string> src_lines = split_lines(cuda_source);
  const std::vector<Presumed> presumed = presumed_locations(src_lines, cuda_name);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    LogHeader h;
    if (!parse_header(lines[i], h) || h.remark) continue;
    const std::string echoed = i + 1 < lines.size() ? lines[i + 1] : "";
    const std::string caret = i + 2 < lines.size() ? lines[i + 2] : "";
    // The physical lines NVRTC may mean; the echoed text picks among them
    // (generated lines after a #line share presumed numbers).
    int physical = 0;
    for (std::size_t p = 0; p < presumed.size(); ++p) {
      if (presumed[p].line != h.line || presumed[p].name != h.file) continue;
      if (physical == 0) physical = static_cast<int>(p) + 1;
      if (trim(src_lines[p]) == trim(echoed)) {
        physical = static_cast<int>(p) + 1;
        break;
      }
    }
    Diagnostic d;
    d.severity = h.severity;
    if (physical == 0) {  // a header NVRTC included
      d.message = h.file + ":" + std::to_string(h.line) + ": " + h.message;
    } else {
      d.message = h.message;
      d.line = physical;
      d.column = std::max(1, caret_column(echoed, caret, src_lines[physical - 1]));
    }
    if (h.message.find("open source file") != std::string::npos)  // NVRTC found nothing: the sandbox
      d.hint = "NVRTC cannot read files of the host; device code may include only " + includable_list();
    out.push_back(std::move(d));
  }
  if (std::none_of(out.begin(), out.end(), [](const Diagnostic& d) { return d.severity == Severity::error; }))
    out.push_back(Diagnostic{Severity::error, "NVRTC failed to compile " + cuda_name + ":\n" + log, 0, 0, 1, ""});
  return out;
}

CompileError located_compile_error(std::vector<Diagnostic> diagnostics, const std::string& cuda_source,
                                   const std::string& cuda_name, const SourceOrigin& origin) {
  if (origin.name.empty()) return CompileError(std::move(diagnostics), cuda_source, cuda_name);
  const std::vector<std::string> src_lines = split_lines(cuda_source);
  const std::vector<int> user_line_of = origin_lines(src_lines, origin.name);
  const std::vector<std::string> user_lines = split_lines(origin.text);
  std::vector<Diagnostic> mapped = diagnostics;
  bool any_error_mapped = false;
  for (Diagnostic& d : mapped) {
    if (d.line < 1 || static_cast<std::size_t>(d.line) > src_lines.size()) continue;
    const int user_line = user_line_of[d.line - 1];
    int column = 0;
    if (user_line >= 1 && static_cast<std::size_t>(user_line) <= user_lines.size())
      column = column_in_user_line(src_lines[d.line - 1], d.column, user_lines[user_line - 1]);
    if (column > 0) {
      d.line = user_line;
      d.column = column;
      any_error_mapped = any_error_mapped || d.severity == Severity::error;
    } else {
      d.message += " (in the generated CUDA, " + cuda_name + ":" + std::to_string(d.line) + ":" +
                   std::to_string(d.column) + ": `" + std::string(trim(src_lines[d.line - 1])) + "`)";
      d.line = 0;
      d.column = 0;
    }
  }
  if (!any_error_mapped) return CompileError(std::move(diagnostics), cuda_source, cuda_name);
  return CompileError(std::move(mapped), origin.text, origin.name);
}

}  // namespace croq::jit
