// Preprocessing over tokens: #define constants and #if/#ifdef/#ifndef/#elif/
// #else/#endif. Host directives (#include, #pragma, ...) are dropped.
//
// Precedence of defines: a CompileOptions define overrides a source #define
// of the same name (the source line still counts as "defined" for #ifdef),
// and supplies the name when the source does not define it at all. So
// `--define M=256` wins over `#define M 128`, everywhere M is used, including
// in #if expressions.
//
// Limits (limits.hpp): one use of a define expands to at most
// kMaxTokensPerDefineUse tokens and kMaxDefineNesting levels, a whole source
// to kMaxExpandedTokens; each is an error naming the define. Function-like
// defines are recorded, never expanded (the parser sees their uses as calls).
//
// Locations: tokens keep the position they have in the original source; a
// token that comes from expanding a define takes the position of the name it
// replaced, so every diagnostic points at text the user wrote.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "croq/options.hpp"
#include "frontend/ast.hpp"
#include "frontend/lexer.hpp"

namespace croq::frontend {

struct PreprocessedTokens {
  std::vector<Token> tokens;                   // ends with end_of_file
  std::map<std::string, ast::Define> defines;  // what is defined at the end of the file
  // Text of option-supplied values; expanded tokens point into it.
  std::vector<std::unique_ptr<std::string>> storage;
  // A limit of limits.hpp was hit (an expansion too large): the tokens are
  // cut short and not worth parsing.
  bool fatal = false;
  std::size_t dropped_diagnostics = 0;  // errors past kMaxDiagnostics, only counted
};

PreprocessedTokens preprocess(const std::vector<Token>& tokens,
                              const std::map<std::string, DefineValue>& option_defines,
                              std::vector<Diagnostic>& diagnostics);

}  // namespace croq::frontend
