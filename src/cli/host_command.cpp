// croq host FILE.co: a C++ translation unit that runs a Croqtile file's
// host code against libcroqjit (docs/how-to/upstream-host-programs.md).
//
// The front end finds the __co__ functions (their names, return types and
// locations) and the __device__ / __cok__ code; the lexer's tokens of the
// original text give where each function's text begins (its `template`
// header or `__co__`) and ends (its closing brace, or `;`). Everything
// between is host C++ and is copied unchanged, with #line directives so
// that compiler errors point into FILE.co.
#include "cli/host_command.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "backend/cuda/cuda_text.hpp"
#include "cli/cli_common.hpp"
#include "cli/file_io.hpp"
#include "croq/dtype.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "frontend/lexer.hpp"
#include "sema/sema.hpp"

namespace croq::cli {
namespace {

namespace ast = frontend::ast;
using frontend::Token;
using frontend::TokenKind;

// A byte range of the source that is not host code, and what replaces it.
struct Cut {
  std::size_t begin = 0;
  std::size_t end = 0;
  const ast::Function* function = nullptr;  // a __co__ function defined here, if any
};

std::size_t token_end(const Token& t) { return static_cast<std::size_t>(t.offset) + t.text.size(); }

// From the `__co__` / `__co_device__` token at `i`: the text of the
// definition, declaration or instantiation it starts.
Cut co_cut(const std::vector<Token>& tokens, std::size_t i, std::size_t source_size) {
  std::size_t first = i;
  if (i > 0 && tokens[i - 1].is("template")) {
    first = i - 1;  // template __co__ f<f16>;
  } else if (i > 0 && (tokens[i - 1].is(">") || tokens[i - 1].is(">>"))) {
    int depth = 0;  // template <typename T, int N> __co__ ...
    for (std::size_t j = i; j-- > 0;) {
      if (tokens[j].is(">")) ++depth;
      if (tokens[j].is(">>")) depth += 2;
      if (tokens[j].is("<")) --depth;
      if (depth <= 0) {
        if (j > 0 && tokens[j - 1].is("template")) first = j - 1;
        break;
      }
      if (tokens[j].is(";") || tokens[j].is("{") || tokens[j].is("}")) break;
    }
  }
  Cut cut;
  cut.begin = static_cast<std::size_t>(tokens[first].offset);
  cut.end = source_size;
  int parens = 0;
  for (std::size_t j = i + 1; j < tokens.size() && tokens[j].kind != TokenKind::end_of_file; ++j) {
    const Token& t = tokens[j];
    if (t.is("(")) ++parens;
    if (t.is(")")) --parens;
    if (parens > 0) continue;
    if (t.is(";")) {
      cut.end = token_end(t);
      break;
    }
    if (t.is("{")) {
      int braces = 0;
      for (; j < tokens.size() && tokens[j].kind != TokenKind::end_of_file; ++j) {
        if (tokens[j].is("{")) ++braces;
        if (tokens[j].is("}") && --braces == 0) break;
      }
      cut.end = j < tokens.size() && tokens[j].kind != TokenKind::end_of_file ? token_end(tokens[j]) : source_size;
      break;
    }
  }
  return cut;
}

// `#include "choreo.h"` (or <choreo.h>): the compatibility header replaces it.
bool is_choreo_include(const std::string& source, const std::vector<Token>& tokens, std::size_t i, Cut& cut) {
  if (!tokens[i].is("#") || !tokens[i].at_line_start || i + 1 >= tokens.size() || !tokens[i + 1].is("include"))
    return false;
  const std::size_t begin = static_cast<std::size_t>(tokens[i].offset);
  std::size_t end = source.find('\n', begin);
  if (end == std::string::npos) end = source.size();
  const std::string line = source.substr(begin, end - begin);
  if (line.find("choreo.h\"") == std::string::npos && line.find("choreo.h>") == std::string::npos) return false;
  cut.begin = begin;
  cut.end = end;
  return true;
}

// The rank of a shape as written: one per dim, `x.span` counting x's rank
// when x is a parameter or a declaration of the function (nested `.span`s
// resolved up to a few levels). Used when sema cannot type the function.
int written_rank(const ast::Function& fn, const ast::ExprList& shape, int depth);

const ast::TypeRef* declared_type(const ast::Function& fn, const std::string& name) {
  for (const ast::Parameter& p : fn.params)
    if (p.name == name) return &p.type;
  const ast::TypeRef* found = nullptr;
  auto walk = [&](auto&& self, const ast::Stmt& st) -> void {
    if (const auto* d = std::get_if<ast::Declaration>(&st.node)) {
      for (const ast::Declarator& v : d->declarators)
        if (v.name == name) found = &d->type;
    } else if (const auto* b = std::get_if<ast::Block>(&st.node)) {
      for (const auto& c : b->statements) self(self, *c);
    }
  };
  if (fn.body) walk(walk, *fn.body);
  return found;
}

int written_rank(const ast::Function& fn, const ast::ExprList& shape, int depth) {
  int rank = 0;
  for (const ast::ExprPtr& e : shape) {
    const auto* m = e ? std::get_if<ast::Member>(&e->node) : nullptr;
    const auto* object = m && m->object ? std::get_if<ast::Name>(&m->object->node) : nullptr;
    if (m && m->kind == ast::MemberKind::span && !m->has_args && object && depth < 8) {
      const ast::TypeRef* t = declared_type(fn, object->name);
      if (t && t->has_shape) {
        rank += written_rank(fn, t->shape, depth + 1);
        continue;
      }
    }
    ++rank;
  }
  return rank;
}

// What the C++ function for `fn` returns: "void", "choreo::spanned_data<choreo::T, R>",
// or "choreo::T" for a scalar.
std::string result_type(const ast::Program& program, const ast::Function& fn) {
  std::string element;
  int rank = 0;
  try {
    sema::Options options;
    options.limitations_are_errors = false;
    const sema::CheckedProgram checked = sema::check(program, {&fn}, options);
    if (const sema::CheckedFunction* f = checked.find(fn.name)) {
      for (const sema::Buffer& b : f->buffers)
        if (b.returned && b.rank > 0) {
          element = std::string(dtype_name(b.dtype));
          rank = b.rank;
        }
    }
  } catch (const CompileError&) {
    // sema rejects the function: the call will report why.
  }
  if (element.empty()) {  // take the type as written
    const ast::TypeRef* t = ast::returned_tensor_type(fn);
    if (!t && fn.return_type.kind == ast::TypeKind::auto_ && !ast::returned_name(fn).empty()) {
      // An element type the parser does not know as one (s6, u4, ...).
      t = declared_type(fn, ast::returned_name(fn));
      if (t && (!t->has_shape || t->kind != ast::TypeKind::named)) t = nullptr;
    }
    if (t) {
      element = t->name;
      rank = written_rank(fn, t->shape, 0);
    }
  }
  if (!element.empty() && rank > 0)
    return "choreo::spanned_data<choreo::" + element + ", " + std::to_string(rank) + ">";
  // A scalar: `__co__ s32 f(...)`, or `auto` returning a scalar declaration.
  const ast::TypeRef* scalar = &fn.return_type;
  if (scalar->kind == ast::TypeKind::auto_) {
    const std::string name = ast::returned_name(fn);
    scalar = name.empty() ? nullptr : declared_type(fn, name);
  }
  if (scalar && scalar->kind == ast::TypeKind::element && !scalar->has_shape) return "choreo::" + scalar->name;
  return "void";
}

// A raw-string delimiter the source never closes with: "croq", else
// "croqN" for the smallest N. One pass over the source: each `)croqN"` in it
// rules out one N, so the answer is at most their count.
std::string raw_string_delimiter(const std::string& source) {
  constexpr std::string_view kClose = ")croq";
  std::vector<bool> taken;
  for (std::size_t at = source.find(kClose); at != std::string::npos; at = source.find(kClose, at + 1)) {
    std::size_t i = at + kClose.size();
    const std::size_t digits_begin = i;
    std::size_t n = 0;
    while (i < source.size() && std::isdigit(static_cast<unsigned char>(source[i])) && i - digits_begin < 12)
      n = n * 10 + static_cast<std::size_t>(source[i++] - '0');
    if (i >= source.size() || source[i] != '"') continue;
    if (i > digits_begin && (source[digits_begin] == '0' || n == 0)) continue;  // "croq0...": never chosen
    if (n >= taken.size()) taken.resize(std::min<std::size_t>(n + 1, source.size() + 2));
    if (n < taken.size()) taken[n] = true;
  }
  std::size_t n = 0;
  while (n < taken.size() && taken[n]) ++n;
  return "croq" + (n ? std::to_string(n) : std::string());
}

// Line numbers of increasing offsets, counted once over the source.
class LineCounter {
 public:
  explicit LineCounter(const std::string& source) : source_(source) {}
  int line_of(std::size_t offset) {
    if (offset < offset_) offset_ = 0, line_ = 1;  // never happens: offsets only grow
    const auto begin = source_.begin() + static_cast<std::ptrdiff_t>(offset_);
    line_ += static_cast<int>(std::count(begin, source_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
    offset_ = offset;
    return line_;
  }

 private:
  const std::string& source_;
  std::size_t offset_ = 0;
  int line_ = 1;
};

}  // namespace

std::string host_translation_unit(const ast::Program& program, const std::string& source_name) {
  const std::string& source = program.source;
  std::vector<Diagnostic> lex_diagnostics;
  const std::vector<Token> tokens = frontend::tokenize(source, lex_diagnostics);

  // The functions by where they start, to find each cut's in log time.
  std::vector<std::pair<std::size_t, const ast::Function*>> by_offset;
  for (const ast::Function& f : program.functions) by_offset.emplace_back(static_cast<std::size_t>(f.location.offset), &f);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Cut> cuts;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    Cut cut;
    if (tokens[i].is("__co__") || tokens[i].is("__co_device__")) {
      cut = co_cut(tokens, i, source.size());
      // The last function that starts inside the cut, as a scan in source order would find.
      auto last = std::lower_bound(by_offset.begin(), by_offset.end(), cut.end,
                                   [](const auto& f, std::size_t end) { return f.first < end; });
      if (last != by_offset.begin() && std::prev(last)->first >= cut.begin) cut.function = std::prev(last)->second;
      cuts.push_back(cut);
    } else if (is_choreo_include(source, tokens, i, cut)) {
      cuts.push_back(cut);
    }
  }
  for (const ast::DeviceCode& d : program.device_code) {
    const auto begin = static_cast<std::size_t>(d.location.offset);
    cuts.push_back({begin, std::min(source.size(), begin + d.text.size()), nullptr});
  }
  std::sort(cuts.begin(), cuts.end(), [](const Cut& a, const Cut& b) { return a.begin < b.begin; });

  const std::string delimiter = raw_string_delimiter(source);
  std::vector<std::string> entries;
  std::string body;
  std::size_t at = 0;
  LineCounter lines(source);
  const std::string file_literal = backend::cuda::cuda_string_literal(source_name);
  auto host_text = [&](std::size_t end) {
    if (end <= at) return;
    body += "\n#line " + std::to_string(lines.line_of(at)) + " " + file_literal + "\n";
    body += source.substr(at, end - at);
  };
  for (const Cut& cut : cuts) {
    if (cut.begin < at) {  // inside an earlier cut (a __device__ helper of a __cok__ block)
      at = std::max(at, cut.end);
      continue;
    }
    host_text(cut.begin);
    at = cut.end;
    const ast::Function* f = cut.function;
    if (!f || f->is_co_device) continue;
    if (f->is_template || !f->specialization_args.empty()) {
      body += "\n// croq host: `" + f->name + "` is a template __co__ function; host calls of it are not supported yet\n";
      continue;
    }
    const std::string result = result_type(program, *f);
    entries.push_back(f->name);
    body += "\n// The __co__ function `" + f->name + "`, compiled on its first call.\n"
            "template <typename... CroqArgs>\n" +
            result + " " + f->name + "(CroqArgs&&... croq_args) {\n" +
            "  return choreo::host::call<" + result + ">(croq_host_source, croq_host_source_name, \"" + f->name +
            "\", std::forward<CroqArgs>(croq_args)...);\n}\n";
  }
  host_text(source.size());

  std::string out = "// Generated by `croq host` from " + backend::cuda::cuda_comment_text(source_name) +
                    ": its host code, calling its __co__ functions through libcroqjit.\n"
                    "#include <croq/choreo.hpp>\n\n"
                    "namespace {\n"
                    "const char croq_host_source[] = R\"" + delimiter + "(" + source + ")" + delimiter + "\";\n" +
                    "const char croq_host_source_name[] = " + backend::cuda::cuda_string_literal(source_name) + ";\n" +
                    "// CROQ_HOST_CHECK_ONLY=1: compile every __co__ function and exit.\n"
                    "const bool croq_host_checked = choreo::host::check_only_if_asked(croq_host_source, croq_host_source_name, {";
  for (std::size_t i = 0; i < entries.size(); ++i) out += (i ? ", " : "") + backend::cuda::cuda_string_literal(entries[i]);
  out += "});\n}  // namespace\n";
  return out + body + "\n";
}

// croq host FILE.co [-o OUT.cpp]
int run_host(const std::vector<std::string>& args) {
  std::string path, output, error;
  FlagValues once;
  ArgReader r(args);
  for (; !r.done(); r.next()) {
    std::string v;
    if (r.value("-o", v) || r.value("--output", v)) {
      if (!once.take("-o", v, output, error)) return usage_error(error);
    } else if (r.missing_value()) {
      return usage_error(r.current() + " needs a value");
    } else if (!r.current().empty() && r.current()[0] == '-' && r.current() != "-") {
      return usage_error("host: unknown option `" + r.current() + "`");
    } else if (path.empty()) {
      path = r.current();
    } else {
      return usage_error("host: one input file expected, got `" + path + "` and `" + r.current() + "`");
    }
  }
  if (path.empty()) return usage_error("host: missing input file");
  if (std::string problem = output_overwrites_input(output, path); !problem.empty())
    return usage_error("host: " + problem);
  std::string source;
  if (std::string problem = read_source(path, source); !problem.empty()) return usage_error(problem);
  CompileOptions options;
  options.source_name = path == "-" ? "<stdin>" : path;
  std::string unit;
  try {
    auto program = frontend::parse_program(source, options);
    unit = host_translation_unit(*program, options.source_name);
  } catch (const CompileError& e) {
    std::cerr << e.what();
    return kExitErrors;
  }
  return write_output(unit, output, "croq host");
}

}  // namespace croq::cli
