// croq::Error family and the one diagnostic renderer (line:column + caret).
#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "croq/error.hpp"
#include "support/format.hpp"
#include "support/utf8.hpp"

namespace croq {

Error::Error(const std::string& message) : std::runtime_error(support::valid_utf8(message)) {}
Error::Error(const char* message) : Error(std::string(message != nullptr ? message : "")) {}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::note: return "note";
  }
  return "error";
}

namespace {

using support::group_digits;

// The text of 1-based line `line` of `source`, without its newline.
std::string_view source_line(const std::string& source, int line) {
  std::size_t start = 0;
  for (int l = 1; l < line; ++l) {
    std::size_t nl = source.find('\n', start);
    if (nl == std::string::npos) return {};
    start = nl + 1;
  }
  std::size_t end = source.find('\n', start);
  if (end == std::string::npos) end = source.size();
  std::string_view text(source.data() + start, end - start);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

// Bounds on what one error report may contain, so that a huge input (a
// 2 MB identifier, 10,000 functions) gives a readable message.
constexpr std::size_t kMaxQuotedBytes = 120;     // one `quoted` span of a message
constexpr std::size_t kMaxMessageBytes = 2000;   // a message or a hint
constexpr std::size_t kMaxExcerptBytes = 160;    // the source line above the caret
constexpr std::size_t kExcerptLeadBytes = 60;    // of it, before the caret
constexpr std::size_t kMaxDiagnostics = 200;     // per report; a note counts the rest

// Shortens long `quoted` spans, then the whole text, never inside a
// character; invalid UTF-8 becomes U+FFFD first.
std::string bounded_text(const std::string& raw) {
  const std::string text = support::valid_utf8(raw);
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t open = text.find('`', i);
    std::size_t close = open == std::string::npos ? std::string::npos : text.find('`', open + 1);
    if (close == std::string::npos) {
      out.append(text, i, std::string::npos);
      break;
    }
    out.append(text, i, open + 1 - i);
    std::size_t span = close - open - 1;
    const std::string_view quoted = std::string_view(text).substr(open + 1, span);
    if (span > kMaxQuotedBytes) out.append(support::utf8_prefix(quoted, kMaxQuotedBytes - 20)).append("...");
    else out.append(quoted);
    out.push_back('`');
    i = close + 1;
  }
  if (out.size() > kMaxMessageBytes) {
    const std::size_t kept = support::utf8_boundary_before(out, kMaxMessageBytes - 100);
    const std::size_t cut = out.size() - kept;
    out.resize(kept);
    out += "... (" + group_digits(cut) + " more bytes)";
  }
  return out;
}

// Derivation notes kept per diagnostic.
constexpr std::size_t kMaxNotes = 20;

// At most kMaxDiagnostics, with bounded texts, and a note for the rest.
std::vector<Diagnostic> bounded(const std::vector<Diagnostic>& diags) {
  std::vector<Diagnostic> out;
  for (std::size_t i = 0; i < diags.size() && i < kMaxDiagnostics; ++i) {
    Diagnostic d = diags[i];
    d.message = bounded_text(d.message);
    d.hint = bounded_text(d.hint);
    d.rule = bounded_text(d.rule);
    if (d.notes.size() > kMaxNotes) {
      const std::size_t rest = d.notes.size() - kMaxNotes;
      d.notes.resize(kMaxNotes);
      d.notes.push_back(group_digits(rest) + " more notes not shown");
    }
    for (std::string& note : d.notes) note = bounded_text(note);
    out.push_back(std::move(d));
  }
  if (diags.size() > kMaxDiagnostics) {
    Diagnostic note;
    note.severity = Severity::note;
    note.message = group_digits(diags.size() - kMaxDiagnostics) + " more diagnostics not shown";
    out.push_back(std::move(note));
  }
  return out;
}

// The source line with a caret under the diagnostic's span; a long line is
// cut to a window around the caret.
void render_excerpt(std::ostringstream& out, const Diagnostic& d, std::string_view text) {
  // The column counts code points, the length bytes of source (support/format.hpp).
  std::size_t col = support::column_offset(text, std::max(d.column, 1));
  std::size_t start = 0, end = text.size();
  if (text.size() > kMaxExcerptBytes) {
    start = support::utf8_boundary_before(text, col > kExcerptLeadBytes ? col - kExcerptLeadBytes : 0);
    end = support::utf8_boundary_before(text, std::min(text.size(), start + kMaxExcerptBytes));
  }
  std::string lead = start > 0 ? "..." : "";
  out << "    " << lead << text.substr(start, end - start) << (end < text.size() ? "..." : "") << '\n';
  // Keep tabs in the caret line so the caret stays under the span.
  std::string pad(lead.size(), ' ');
  for (std::size_t i = start; i < col; ++i)  // one pad column per character (none for continuation bytes)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) pad += text[i] == '\t' ? '\t' : ' ';
  std::size_t avail = end > col ? end - col : 1;
  std::size_t len = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(d.length, 1)), 1, avail);
  const int columns = std::max(1, support::text_columns(text.substr(col, len)));
  out << "    " << pad << '^' << std::string(static_cast<std::size_t>(columns - 1), '~') << '\n';
}

void render_one(std::ostringstream& out, const Diagnostic& d, const std::string& source,
                const std::string& source_name) {
  out << support::utf8_prefix(source_name, kMaxQuotedBytes) << (source_name.size() > kMaxQuotedBytes ? "..." : "");
  if (d.line > 0) out << ':' << d.line << ':' << std::max(d.column, 1);
  out << ": " << severity_name(d.severity) << ": " << d.message;
  if (!d.rule.empty()) out << " [" << d.rule << ']';
  out << '\n';
  if (d.line > 0) {
    std::string_view text = source_line(source, d.line);
    if (!text.empty()) render_excerpt(out, d, text);
  }
  for (const std::string& note : d.notes) out << "  note: " << note << '\n';
  if (!d.hint.empty()) out << "  hint: " << d.hint << '\n';
}

std::string render_for_what(const std::vector<Diagnostic>& diags, const std::string& source,
                            const std::string& name) {
  if (diags.empty()) return name + ": compile error";
  return render_diagnostics(diags, source, name);
}

}  // namespace

std::string render_diagnostics(const std::vector<Diagnostic>& diags, const std::string& source,
                               const std::string& source_name) {
  std::ostringstream out;
  for (const Diagnostic& d : bounded(diags)) render_one(out, d, source, source_name);
  // Source lines and the name may hold any bytes.
  return support::valid_utf8(out.str());
}

CompileError::CompileError(std::vector<Diagnostic> diagnostics, std::string source,
                           std::string source_name)
    : Error(render_for_what(diagnostics, source, source_name)),
      diagnostics_(bounded(diagnostics)),
      source_(std::move(source)),
      source_name_(std::move(source_name)) {}

std::string CompileError::to_json() const {
  nlohmann::json out;
  out["source"] = source_name_;
  out["diagnostics"] = nlohmann::json::array();
  for (const Diagnostic& d : diagnostics_) {
    nlohmann::json j{{"severity", severity_name(d.severity)},
                     {"message", d.message},
                     {"line", d.line},
                     {"column", d.column},
                     {"length", d.length}};
    if (!d.hint.empty()) j["hint"] = d.hint;
    if (!d.rule.empty()) j["rule"] = d.rule;
    if (!d.notes.empty()) j["notes"] = d.notes;
    out["diagnostics"].push_back(std::move(j));
  }
  return support::json_text(out, 2);
}

CudaError::CudaError(std::string call, int code, const std::string& message)
    : Error(call + ": " + message), call_(std::move(call)), code_(code) {}

}  // namespace croq
