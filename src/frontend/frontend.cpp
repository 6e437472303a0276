// parse_program and select_entry: run the stages in order and turn their
// diagnostics into one CompileError.
#include "frontend/frontend.hpp"

#include <algorithm>

#include "frontend/constant_check.hpp"
#include "frontend/lexer.hpp"
#include "frontend/limits.hpp"
#include "frontend/parameter_dims.hpp"
#include "frontend/parser.hpp"
#include "frontend/preprocess.hpp"

namespace croq::frontend {

namespace {

Diagnostic note(std::string message) {
  Diagnostic d;
  d.severity = Severity::note;
  d.message = std::move(message);
  return d;
}

// Sorted by place, unlocated ones last, at most kMaxDiagnostics errors and
// warnings and a note counting the rest.
void order_and_bound(std::vector<Diagnostic>& diagnostics, std::size_t already_dropped) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.line == 0 || b.line == 0) return a.line != 0 && b.line == 0;
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  // Notes (the parser's "stopping after 50 errors") are not counted.
  std::size_t dropped = already_dropped, kept = 0;
  auto past_limit = [&](const Diagnostic& d) {
    if (d.severity == Severity::note) return false;
    if (kept < limits::kMaxDiagnostics) {
      ++kept;
      return false;
    }
    ++dropped;
    return true;
  };
  diagnostics.erase(std::remove_if(diagnostics.begin(), diagnostics.end(), past_limit), diagnostics.end());
  if (dropped > 0)
    diagnostics.push_back(note("too many diagnostics: " + limits::group_digits(dropped) + " more not shown"));
}

}  // namespace

std::unique_ptr<ast::Program> parse_program(std::string_view source, const CompileOptions& options) {
  if (source.size() > limits::kMaxSourceBytes) {
    Diagnostic d = note("");
    d.severity = Severity::error;
    d.message = "the source is " + limits::group_digits(source.size()) + " bytes; the limit is " +
                limits::group_digits(limits::kMaxSourceBytes) + " bytes (16 MiB)";
    throw CompileError({d}, std::string(), options.source_name);
  }
  auto program = std::make_unique<ast::Program>();
  program->source = std::string(source);
  program->source_name = options.source_name;

  std::vector<Diagnostic> diagnostics;
  bool complete = true;
  std::vector<Token> tokens = tokenize(program->source, diagnostics, limits::kMaxTokens, complete);
  if (!complete) throw CompileError(std::move(diagnostics), program->source, options.source_name);
  PreprocessedTokens pre = preprocess(tokens, options.defines, diagnostics);
  std::vector<Token>().swap(tokens);
  program->defines = std::move(pre.defines);
  std::size_t dropped = pre.dropped_diagnostics;
  if (!pre.fatal) {
    Parser parser(std::move(pre.tokens), program->source, diagnostics);
    parser.parse(*program);
    name_rank_only_parameters(*program);
    dropped += check_constants(*program, diagnostics);
  }

  order_and_bound(diagnostics, dropped);
  bool has_error = std::any_of(diagnostics.begin(), diagnostics.end(),
                               [](const Diagnostic& d) { return d.severity == Severity::error; });
  if (has_error) throw CompileError(std::move(diagnostics), program->source, options.source_name);
  program->warnings = std::move(diagnostics);
  return program;
}

// "`a`, `b`, ... and 9,990 more": long lists are cut.
static std::string function_list(const std::vector<const ast::Function*>& functions) {
  constexpr std::size_t kShown = 10;
  std::string names;
  for (std::size_t i = 0; i < functions.size() && i < kShown; ++i)
    names += (i ? ", " : "") + quote(functions[i]->name, 80);
  if (functions.size() > kShown) names += " and " + limits::group_digits(functions.size() - kShown) + " more";
  return names;
}

const ast::Function& select_entry(const ast::Program& program, const CompileOptions& options,
                                  const std::string& source) {
  auto error = [&](std::string message, std::string hint) -> CompileError {
    Diagnostic d;
    d.message = std::move(message);
    d.hint = std::move(hint);
    return CompileError({d}, source, options.source_name);
  };
  // The functions a caller may choose: __co__ ones, not the __co_device__ helpers they call.
  std::vector<const ast::Function*> candidates, helpers;
  for (const ast::Function& f : program.functions) (f.is_co_device ? helpers : candidates).push_back(&f);
  if (candidates.empty())
    throw error(helpers.empty() ? "no __co__ function in the source"
                                : "no __co__ function in the source, only __co_device__ helpers (" +
                                      function_list(helpers) + ")",
                "a kernel starts with `__co__`");
  if (!options.entry.empty()) {
    const ast::Function* f = program.find_function(options.entry);
    if (f && !f->is_co_device) return *f;
    throw error((f ? quote(options.entry, 80) + " is a __co_device__ helper, not a kernel"
                   : "no __co__ function named " + quote(options.entry, 80)) +
                    "; the source defines " + function_list(candidates),
                "set CompileOptions::entry to one of them");
  }
  if (candidates.size() > 1)
    throw error("the source defines several __co__ functions (" + function_list(candidates) +
                    "); choose one with the entry option",
                "set CompileOptions::entry (or `--entry NAME`)");
  return *candidates.front();
}

}  // namespace croq::frontend
