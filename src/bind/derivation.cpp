// Where the values in a shape-dependent error came from: the bound dims and
// the #defines that the failing source line names.
#include <cctype>
#include <set>
#include <string_view>

#include "bind/bind.hpp"

namespace croq::bind {
namespace {

// Line `line` (1-based) of `text`; empty past the end.
std::string_view line_of(std::string_view text, int line) {
  std::size_t begin = 0;
  for (int l = 1; l < line; ++l) {
    begin = text.find('\n', begin);
    if (begin == std::string_view::npos) return {};
    ++begin;
  }
  const std::size_t end = text.find('\n', begin);
  return text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
}

// The identifiers of `line`, in order of first appearance.
std::vector<std::string> identifiers_of(std::string_view line) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = 0; i < line.size();) {
    if (line.substr(i, 2) == "//") break;
    if (!word_char(line[i])) { ++i; continue; }
    std::size_t j = i;
    while (j < line.size() && word_char(line[j])) ++j;
    std::string word(line.substr(i, j - i));
    if (!std::isdigit(static_cast<unsigned char>(word[0])) && seen.insert(word).second) out.push_back(word);
    i = j;
  }
  return out;
}

}  // namespace

std::vector<std::string> derivation_notes(const BoundFunction& bound, int line) {
  std::vector<std::string> dims, defines;
  if (line <= 0) return dims;
  const frontend::ast::Program& program = *bound.program;
  auto argument = [&](const abi::DimSource& w) {
    const auto& params = bound.function->params;
    std::string name = w.argument >= 0 && static_cast<std::size_t>(w.argument) < params.size()
                           ? " '" + params[static_cast<std::size_t>(w.argument)].name + "'"
                           : std::string();
    return "argument " + std::to_string(w.argument + 1) + name + ", dim " + std::to_string(w.dim);
  };
  for (const std::string& word : identifiers_of(line_of(program.source, line))) {
    if (auto d = bound.dims.find(word); d != bound.dims.end()) {
      auto w = bound.dim_sources.find(word);
      dims.push_back(word + " = " + std::to_string(d->second) +
                     (w != bound.dim_sources.end() ? " from " + argument(w->second) : std::string()));
    } else if (auto dyn = bound.dynamic.find(word); dyn != bound.dynamic.end() && !dyn->second.empty()) {
      dims.push_back(word + " is a dynamic dim, read at launch from " + argument(dyn->second.front()));
    } else if (auto def = program.defines.find(word); def != program.defines.end() && def->second.value &&
                                                         std::holds_alternative<std::int64_t>(*def->second.value)) {
      const std::string value = std::to_string(std::get<std::int64_t>(*def->second.value));
      defines.push_back(word + " = " + value +
                        (def->second.from_options ? " (from the compile options)"
                                                  : " (#define at line " + std::to_string(def->second.line) + ")"));
    }
  }
  // A line without bound dims does not depend on the call: its #defines
  // are plain to see in the source.
  if (dims.empty()) return dims;
  dims.insert(dims.end(), defines.begin(), defines.end());
  return dims;
}

}  // namespace croq::bind
