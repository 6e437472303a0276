// croq::Error family and the one diagnostic renderer (line:column + caret).
#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "croq/error.hpp"

namespace croq {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::note: return "note";
  }
  return "error";
}

namespace {

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

void render_one(std::ostringstream& out, const Diagnostic& d, const std::string& source,
                const std::string& source_name) {
  out << source_name;
  if (d.line > 0) out << ':' << d.line << ':' << std::max(d.column, 1);
  out << ": " << severity_name(d.severity) << ": " << d.message;
  if (!d.rule.empty()) out << " [" << d.rule << ']';
  out << '\n';
  if (d.line > 0) {
    std::string_view text = source_line(source, d.line);
    if (!text.empty()) {
      out << "    " << text << '\n';
      // Keep tabs in the caret line so the caret stays under the span.
      std::string pad;
      int col = std::max(d.column, 1);
      for (int i = 0; i + 1 < col; ++i)
        pad += (static_cast<std::size_t>(i) < text.size() && text[i] == '\t') ? '\t' : ' ';
      int avail = std::max(1, static_cast<int>(text.size()) - (col - 1));
      int len = std::clamp(d.length, 1, avail);
      out << "    " << pad << '^' << std::string(static_cast<std::size_t>(len - 1), '~') << '\n';
    }
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
  for (const Diagnostic& d : diags) render_one(out, d, source, source_name);
  return out.str();
}

CompileError::CompileError(std::vector<Diagnostic> diagnostics, std::string source,
                           std::string source_name)
    : Error(render_for_what(diagnostics, source, source_name)),
      diagnostics_(std::move(diagnostics)),
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
  return out.dump(2);
}

CudaError::CudaError(std::string call, int code, const std::string& message)
    : Error(call + ": " + message), call_(std::move(call)), code_(code) {}

}  // namespace croq
