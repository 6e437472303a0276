#include "cli/cli_common.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "frontend/lexer.hpp"

namespace croq::cli {

int usage_error(const std::string& message) {
  std::cerr << "croq: " << message << "\n(run `croq --help` for usage)\n";
  return kExitUsage;
}

namespace {

bool is_name(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// A whole decimal or 0x-hex integer with an optional sign.
std::optional<std::int64_t> parse_integer(const std::string& text, bool& out_of_range) {
  out_of_range = false;
  if (text.empty()) return std::nullopt;
  std::size_t i = text[0] == '-' || text[0] == '+' ? 1 : 0;
  bool hex = text.size() > i + 2 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X');
  std::string_view digits = std::string_view(text).substr(i + (hex ? 2 : 0));
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [&](char c) {
        return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : std::isdigit(static_cast<unsigned char>(c)) != 0;
      }))
    return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, hex ? 16 : 10);
  if (errno == ERANGE) out_of_range = true;
  return static_cast<std::int64_t>(v);
}

// An integer spelled as the lexer reads literals, with an optional sign:
// its value, or nullopt with `error` set when it is an integer literal the
// language refuses (08, too large, a bad suffix) and left empty when the
// text is no integer at all (a float, a word).
std::optional<std::int64_t> integer_literal_value(const std::string& text, std::string& error) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::string literal = text.substr(!text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0);
  if (literal.empty() || !std::isdigit(static_cast<unsigned char>(literal[0]))) return std::nullopt;
  std::vector<Diagnostic> diagnostics;
  const std::vector<frontend::Token> tokens = frontend::tokenize(literal, diagnostics);
  if (tokens.size() != 2 || tokens[0].kind != frontend::TokenKind::integer || tokens[0].text.size() != literal.size())
    return std::nullopt;  // 1.5, 1e3f, "1 2"
  const std::optional<std::uint64_t> value = frontend::integer_value(literal);
  if (auto problem = frontend::integer_literal_problem(literal)) {
    const bool digits_only = literal.find_first_not_of("0123456789'") == std::string::npos;
    if (!value && digits_only && literal[0] == '0')  // 08, 0129
      error = "`" + text + "` is no octal number: a leading 0 makes the digits octal, as in `#define`";
    else if (!value && digits_only)
      error = "`" + text + "` does not fit in a 64-bit signed integer";
    else if (value)
      error = problem->message;  // a bad suffix (10_x)
    return std::nullopt;         // else no integer at all (0x): the caller says so
  }
  const std::uint64_t magnitude = value.value_or(0);
  if (negative && magnitude == static_cast<std::uint64_t>(INT64_MAX) + 1) return INT64_MIN;
  if (magnitude > static_cast<std::uint64_t>(INT64_MAX)) {  // 18446744073709551615u
    error = "`" + text + "` does not fit in a 64-bit signed integer";
    return std::nullopt;
  }
  return negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
}

// A decimal floating literal: digits with a `.` or an exponent, optional f/F.
bool is_decimal_float(const std::string& text) {
  std::size_t i = text[0] == '-' || text[0] == '+' ? 1 : 0;
  std::size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  bool point = i < text.size() && text[i] == '.';
  if (point) ++i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  if (digits == 0) return false;
  bool exponent = i < text.size() && (text[i] == 'e' || text[i] == 'E');
  if (exponent) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exponent_digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  if (!point && !exponent) return false;
  if (i < text.size() && (text[i] == 'f' || text[i] == 'F')) ++i;
  return i == text.size();
}

}  // namespace

std::optional<std::int64_t> parse_integer_option(const std::string& text) {
  bool out_of_range = false;
  std::optional<std::int64_t> v = text.empty() ? std::nullopt : parse_integer(text, out_of_range);
  if (out_of_range) return std::nullopt;
  return v;
}

bool parse_define(const std::string& spec, CompileOptions& options, std::string& error) {
  size_t eq = spec.find('=');
  std::string name = spec.substr(0, eq);
  if (!is_name(name)) {
    error = name.empty() ? "--define needs NAME=VALUE, got `" + spec + "`"
                         : "--define: `" + name + "` is not a name (a letter or `_`, then letters, digits, `_`)";
    return false;
  }
  if (eq == std::string::npos) {
    if (options.defines.count(name)) {
      error = "--define " + name + " is given twice; give it once";
      return false;
    }
    options.defines[name] = std::int64_t{1};
    return true;
  }
  std::string value = spec.substr(eq + 1);
  if (value.empty()) {
    error = "--define " + name + ": the value is empty";
    return false;
  }
  if (auto it = options.defines.find(name); it != options.defines.end()) {
    error = "--define " + name + " is given twice; give it once";
    return false;
  }
  if (std::optional<std::int64_t> i = integer_literal_value(value, error)) {
    options.defines[name] = *i;
    return true;
  }
  if (!error.empty()) {
    error = "--define " + name + ": " + error;
    return false;
  }
  if (is_decimal_float(value)) {
    double d = std::strtod(value.c_str(), nullptr);  // 1e999 is inf; 1e-999 is 0
    bool is_float = value.back() == 'f' || value.back() == 'F';
    if (!std::isfinite(d) ||
        (is_float && std::fabs(d) > std::numeric_limits<float>::max())) {
      error = "--define " + name + ": `" + value + "` is out of range for " + (is_float ? "float" : "double");
      return false;
    }
    options.defines[name] = d;
    return true;
  }
  error = "--define " + name + ": `" + value +
          "` is not a number (an integer such as 128 or 0x80, or a finite float such as 0.5 or 1e-3f)";
  return false;
}

// `--shape x=3,5`: the extents of parameter x's dims without a name (`?`,
// a rank only), kept as x.0 and x.1.
bool parse_parameter_extents(const std::string& spec, std::map<std::string, std::int64_t>& shapes, std::string& error) {
  const size_t eq = spec.find('=');
  const std::string name = spec.substr(0, eq);
  std::vector<std::int64_t> extents;
  bool out_of_range = false;
  for (size_t from = eq + 1;;) {
    const size_t comma = spec.find(',', from);
    const std::optional<std::int64_t> v = parse_integer(spec.substr(from, comma - from), out_of_range);
    if (!v || *v <= 0) {
      error = "--shape " + name + "=E0,E1,...: each extent is a positive integer, got `" + spec.substr(eq + 1) + "`";
      return false;
    }
    extents.push_back(*v);
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (!is_name(name)) {
    error = "--shape needs NAME=POSITIVE_INTEGER or PARAMETER=E0,E1,..., got `" + spec + "`";
    return false;
  }
  for (std::size_t d = 0; d < extents.size(); ++d) {
    const std::string key = name + "." + std::to_string(d);
    if (!shapes.emplace(key, extents[d]).second) {
      error = "--shape " + name + " is given twice; give it once";
      return false;
    }
  }
  return true;
}

bool parse_shape(const std::string& spec, std::map<std::string, std::int64_t>& shapes, std::string& error) {
  size_t eq = spec.find('=');
  if (eq != std::string::npos && spec.find(',', eq) != std::string::npos)
    return parse_parameter_extents(spec, shapes, error);
  bool out_of_range = false;
  std::optional<std::int64_t> v;
  if (eq != std::string::npos && eq + 1 < spec.size()) v = parse_integer(spec.substr(eq + 1), out_of_range);
  if (out_of_range) {
    error = "--shape " + spec.substr(0, eq) + ": `" + spec.substr(eq + 1) + "` does not fit in a 64-bit signed integer";
    return false;
  }
  if (eq == std::string::npos || !is_name(spec.substr(0, eq)) || !v || *v <= 0) {
    error = "--shape needs NAME=POSITIVE_INTEGER, got `" + spec + "`";
    return false;
  }
  const std::string name = spec.substr(0, eq);
  if (auto it = shapes.find(name); it != shapes.end()) {
    error = "--shape " + name + " is given twice (" + name + "=" + std::to_string(it->second) + " and " + spec +
            "); give it once";
    return false;
  }
  shapes[name] = *v;
  return true;
}

bool FlagValues::take(const std::string& flag, const std::string& value, std::string& slot, std::string& error) {
  auto [it, first] = seen_.emplace(flag, value);
  if (!first) {
    error = flag + " is given twice (`" + it->second + "` and `" + value + "`); give it once";
    return false;
  }
  slot = value;
  return true;
}

bool ArgReader::value(const char* flag, std::string& out) {
  const std::string& a = args_[i_];
  std::string f = flag;
  if (a.rfind(f + "=", 0) == 0) {
    out = a.substr(f.size() + 1);
    return true;
  }
  if (a == f && i_ + 1 < args_.size()) {
    out = args_[++i_];
    return true;
  }
  if (a == f) flag_without_value_ = true;  // `-o` last: its value is missing, it is no unknown option
  return false;
}

void ArgReader::next() {
  ++i_;
  flag_without_value_ = false;
}

bool ArgReader::missing_value() const {
  return flag_without_value_ || (i_ + 1 == args_.size() && args_[i_].rfind("--", 0) == 0);
}

std::vector<abi::ArgSignature> signature_for(const frontend::ast::Program& program,
                                                 const frontend::ast::Function& fn,
                                                 const std::map<std::string, std::int64_t>& shapes,
                                                 const std::map<std::size_t, TensorView>& given) {
  using namespace frontend::ast;
  std::map<std::string, std::int64_t> bound = shapes;
  // Dims named by tensors that were given bind first.
  for (const auto& [index, view] : given) {
    const Parameter& p = fn.params.at(index);
    for (std::size_t d = 0; d < p.type.shape.size() && d < static_cast<std::size_t>(view.shape.rank()); ++d)
      if (const auto* n = std::get_if<Name>(&p.type.shape[d]->node); n && !program.defines.count(n->name))
        bound.emplace(n->name, static_cast<std::int64_t>(view.shape[d]));
  }
  std::vector<abi::ArgSignature> sig;
  for (std::size_t i = 0; i < fn.params.size(); ++i) {
    const Parameter& p = fn.params[i];
    abi::ArgSignature a;
    if (!p.type.has_shape) {
      a.is_tensor = false;
      a.is_stream = p.type.kind == TypeKind::stream;
      DType scalar_type;
      a.is_integer = !(p.type.kind == TypeKind::element && parse_dtype(p.type.name, scalar_type) &&
                       is_floating(scalar_type));
      sig.push_back(a);
      continue;
    }
    if (auto g = given.find(i); g != given.end()) {
      a.dtype = g->second.dtype;
      for (int d = 0; d < g->second.shape.rank(); ++d) a.shape.push_back(static_cast<std::int64_t>(g->second.shape[d]));
      sig.push_back(a);
      continue;
    }
    if (!parse_dtype(p.type.name, a.dtype))
      throw Error("parameter '" + p.name + "': element type `" + p.type.name + "` is not supported");
    for (const auto& dim : p.type.shape) {
      if (const auto* lit = std::get_if<IntegerLiteral>(&dim->node)) {
        a.shape.push_back(static_cast<std::int64_t>(lit->value));
      } else if (const auto* n = std::get_if<Name>(&dim->node); n && n->name == "?") {
        // A dim without a name: `--shape x=E0,E1,...` gives each dim of x.
        const std::size_t d = static_cast<std::size_t>(&dim - p.type.shape.data());
        auto b = bound.find(p.name + "." + std::to_string(d));
        if (b == bound.end() && p.type.shape.size() == 1) b = bound.find(p.name);  // `--shape factor=3`: one dim
        if (b == bound.end())
          throw Error("parameter '" + p.name + "' has dims without a name; give its extents with --shape " + p.name +
                      "=E0,E1,... (one per dim)");
        a.shape.push_back(b->second);
      } else if (const auto* n = std::get_if<Name>(&dim->node)) {
        auto def = program.defines.find(n->name);
        if (def != program.defines.end() && def->second.value && std::holds_alternative<std::int64_t>(*def->second.value)) {
          a.shape.push_back(std::get<std::int64_t>(*def->second.value));
        } else if (auto b = bound.find(n->name); b != bound.end()) {
          a.shape.push_back(b->second);
        } else {
          throw Error("parameter '" + p.name + "' has the symbolic dim " + n->name + "; give it with --shape " +
                      n->name + "=N");
        }
      } else {
        throw Error("parameter '" + p.name + "': dim `" + frontend::source_text(program, *dim) +
                    "` cannot be sized from the command line");
      }
    }
    sig.push_back(a);
  }
  return sig;
}

}  // namespace croq::cli
