// Shared by the croq subcommands: exit codes, option parsing, input files,
// and turning --shape bindings into a kernel's argument signature.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/options.hpp"
#include "croq/tensor.hpp"
#include "frontend/ast.hpp"

namespace croq::cli {

constexpr int kExitOk = 0;
constexpr int kExitErrors = 1;
constexpr int kExitUsage = 2;

int usage_error(const std::string& message);
// --define NAME=VALUE: integers as the lexer reads a literal (decimal, 0x
// hex, 0b binary, a leading 0 octal: 010 is 8, as in `#define T 010`;
// digit separators and u/l suffixes; a sign), 64-bit signed, and finite
// decimal floats (1.5, 1e-3, 0.5f); NAME alone is 1. Anything else (inf,
// nan, 1e999, 1.5_x, 08, a bad name) and a NAME given twice are refused with
// the reason in `error`.
bool parse_define(const std::string& spec, CompileOptions& options, std::string& error);
// A whole decimal or 0x-hex 64-bit integer (sign allowed); nullopt otherwise.
std::optional<std::int64_t> parse_integer_option(const std::string& text);
// --shape NAME=VALUE (a NAME given twice is refused)
bool parse_shape(const std::string& spec, std::map<std::string, std::int64_t>& shapes, std::string& error);

// Flags that take one value (--emit, -o, --entry, --arch): a second one is
// a usage error, never a silent replacement of the first.
class FlagValues {
 public:
  // Stores `value` in `slot` the first time `flag` comes; false, with why in
  // `error`, the second time.
  bool take(const std::string& flag, const std::string& value, std::string& slot, std::string& error);

 private:
  std::map<std::string, std::string> seen_;
};

// Walks argv the same way for every subcommand: flags with values as
// `--flag V` or `--flag=V`.
class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}
  bool done() const { return i_ >= args_.size(); }
  const std::string& current() const { return args_[i_]; }
  void next();
  // True (and the value in `out`, consuming it) when the current argument is `flag`.
  bool value(const char* flag, std::string& out);
  // The current argument is a flag at the end of argv: one that value()
  // was asked about (`-o`), or any `--flag`.
  bool missing_value() const;

 private:
  const std::vector<std::string>& args_;
  std::size_t i_ = 0;
  bool flag_without_value_ = false;
};

// The argument signature of `fn` for the given tensors (by parameter index;
// missing ones get the parameter's dtype and a shape from literals, defines
// and `shapes`). Throws croq::Error naming the dim that is still unknown.
std::vector<abi::ArgSignature> signature_for(const frontend::ast::Program& program,
                                                 const frontend::ast::Function& fn,
                                                 const std::map<std::string, std::int64_t>& shapes,
                                                 const std::map<std::size_t, TensorView>& given);

}  // namespace croq::cli
