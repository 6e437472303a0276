// Recursive-descent parser: preprocessed tokens -> ast::Program. One member
// function per grammar rule, the EBNF rule in a comment above it. The rules
// live in four files: parser.cpp (tokens, errors, top level, functions,
// types, declarations), parser_stmt.cpp and parser_stmt2.cpp (statements),
// parser_expr.cpp (expressions).
//
// Errors: fail() records a Diagnostic and throws SyntaxError; the innermost
// statement list catches it, skips to the next `;` or `}` and goes on, so one
// run reports many errors (at most kMaxErrors).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.hpp"
#include "frontend/lexer.hpp"

namespace croq::frontend {

// A statement node holding `payload` (the statement parsers).
template <typename Payload>
ast::StmtPtr make_stmt(ast::SourceLocation location, Payload payload) {
  return ast::make_node<ast::Stmt>(location, std::move(payload));
}

// The parser is a chain of classes over one token stream, each a part of the
// grammar: TokenCursor (tokens, errors, limits) <- ExpressionParser <-
// StatementParser (types, declarations, statements) <- Parser (the top
// level: functions, templates, device code). A part calls only itself and
// the parts before it.
class TokenCursor {
 public:
  static constexpr size_t kMaxErrors = 50;
  static constexpr int kMaxNesting = 160;
  static constexpr int kMaxOperands = 4096;  // per statement; keeps trees shallow enough to walk recursively
  static constexpr size_t kMaxTemplateHeaderTokens = 64;  // `template <...>` before __co__ (about 15 parameters)

 protected:
  TokenCursor(std::vector<Token> tokens, std::string_view source, std::vector<Diagnostic>& diagnostics);

  struct SyntaxError {};
  struct TooManyErrors {};
  struct FunctionAbandoned {};  // the body runs into the next function or the end of file

  // ---- tokens (parser.cpp)
  const Token& peek(size_t ahead = 0) const;
  const Token& advance();
  bool at(std::string_view text) const;           // punctuator or word with this text
  bool at_punct(std::string_view text) const;     // punctuator only
  bool at_word(std::string_view text) const;      // identifier only
  bool accept(std::string_view text);
  const Token& expect(std::string_view text, std::string_view context, std::string hint = {});
  const Token& expect_identifier(std::string_view what);
  void expect_semicolon(std::string_view after_what);  // (parser_stmt.cpp)
  bool at_eof() const;
  bool at_function_start() const;  // `__co__`, `__co_device__`, `__device__`: a body cannot contain them
  bool accept_closing_angle();   // `>`, splitting `>>` / `>=` / `>>=`
  bool accept_colon();           // `:`, splitting `::`
  ast::SourceLocation location(const Token& t) const;
  ast::SourceLocation location_from(const Token& first) const;  // first .. previous token
  // Records e's text in the source: from byte `begin` to the end of the previous token.
  // The expression as the user wrote it (messages never show the AST form).
  std::string written_text(const ast::Expr& e) const;
  void set_extent(ast::Expr& e, int begin) const;

  // ---- errors (parser.cpp)
  void report(const Token& at, std::string message, std::string hint = {});
  [[noreturn]] void fail(const Token& at, std::string message, std::string hint = {});
  [[noreturn]] void fail_at(const ast::SourceLocation& at, std::string message, std::string hint = {});
  void synchronize();
  // At `{`: past its matching `}` (or to end of file). A `__co__` (or, in
  // host code, `__co_device__`) on the way means a brace is missing; in a
  // `__cok__` block `__co_device__` is the CUDA qualifier of its functions.
  void skip_balanced(bool in_cok_block = false);
  struct NestingGuard {
    TokenCursor& parser;
    NestingGuard(TokenCursor& p, const Token& at);
    ~NestingGuard() { --parser.nesting_; }
  };
  void count_operand(const Token& at);

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::string_view source_;
  std::size_t device_code_bytes_ = 0;  // __device__ / __cok__ text so far (limits::kMaxDeviceCodeBytes)
  std::vector<Diagnostic>& diagnostics_;
  size_t error_count_ = 0;
  int nesting_ = 0;
  int operands_ = 0;  // operands and member accesses in the current statement
  bool bar_closes_ = false;      // inside |...|: `|` ends the operand
  bool angle_closes_ = false;    // inside <...>: `>` ends the argument
  std::vector<std::string> type_params_;  // typename parameters of the current template
  // `#pragma croq intrinsic` registrations: every one read (Program::intrinsic_pragmas),
  // and those in scope here (file scope, then each enclosing statement list's).
  std::vector<ast::IntrinsicPragma> intrinsic_pragmas_;
  std::vector<ast::IntrinsicPragma> intrinsics_in_scope_;
  void parse_pragma();  // at a pragma token: its line (parser_stmt2.cpp)
  bool is_intrinsic(const std::string& callee) const;
};

class ExpressionParser : public TokenCursor {
 protected:
  using TokenCursor::TokenCursor;

  // ---- expressions (parser_expr.cpp)
  ast::ExprPtr parse_expression();
  ast::ExprPtr parse_conditional();
  ast::ExprPtr parse_binary(int min_precedence);
  ast::ExprPtr parse_unary();
  ast::ExprPtr parse_postfix();
  ast::ExprPtr parse_primary();
  ast::ExprPtr parse_convert();
  ast::ExprPtr parse_tuple_pick(ast::ExprPtr object);
  ast::ExprList parse_call_arguments(std::string_view what);
  ast::ExprPtr parse_call_argument();
  ast::ExprPtr parse_range(const Token& open);
  ast::ExprList parse_template_arguments(std::string_view what);
  std::string parse_scoped_name();
  ast::ExprList parse_expression_list();
  ast::ExprPtr parse_call_expression();  // (parser_stmt2.cpp)
};

class StatementParser : public ExpressionParser {
 protected:
  using ExpressionParser::ExpressionParser;

  // ---- types and declarations (parser.cpp)
  bool at_type_name(size_t ahead = 0) const;
  bool at_declaration() const;
  ast::TypeRef parse_type();
  void parse_shape(ast::TypeRef& type);
  ast::ExprPtr parse_angle_value(const std::string& where);
  ast::StmtPtr parse_declaration();
  ast::Declarator parse_declarator();

  // ---- statements (parser_stmt.cpp)
  ast::StmtPtr parse_statement();
  ast::StmtPtr parse_block();
  ast::StmtPtr parse_parallel();
  ast::ParallelLevel parse_parallel_level();
  ast::SpaceSpecifier parse_space_specifier();
  ast::StmtPtr parse_loop();
  ast::StmtPtr parse_while();
  ast::StmtPtr parse_if();
  ast::StmtPtr parse_copy(ast::ExprPtr future, const Token& first);
  ast::StmtPtr parse_mma(ast::ExprPtr result, const Token& first);
  std::vector<ast::Modifier> parse_modifiers(bool for_copy);
  ast::ExprList parse_after_list();
  ast::StmtPtr parse_wait();
  ast::StmtPtr parse_trigger();
  ast::StmtPtr parse_inthreads();
  ast::StmtPtr parse_sync();
  ast::StmtPtr parse_return();
  ast::StmtPtr parse_call_statement();
  ast::StmtPtr parse_assert();
  ast::StmtPtr parse_swap();
  ast::StmtPtr parse_yield();
  ast::StmtPtr parse_asm();
  // ---- statements with several spellings (parser_stmt2.cpp)
  ast::StmtPtr parse_body();
  void parse_level_annotation(ast::ParallelLevel& level);
  ast::StmtPtr parse_compile_time_print();
  bool at_frag_accumulators() const;
  ast::StmtPtr parse_frag_accumulators();
  void reject_removed_copy(const Token& engine, const Token& op);
  void check_copy_modifiers(const ast::Copy& copy, const Token& engine);
  ast::ExprList parse_sparsity();
  std::vector<ast::AsmOperand> parse_asm_operands();
  std::vector<ast::Attribute> parse_attributes();
  ast::StmtPtr parse_expression_statement();
};

class Parser : public StatementParser {
 public:
  Parser(std::vector<Token> tokens, std::string_view source, std::vector<Diagnostic>& diagnostics);

  // Fills program.functions and program.device_code; errors go to diagnostics.
  void parse(ast::Program& program);

 private:
  // ---- top level (parser.cpp)
  void parse_top_level(ast::Program& program);
  void parse_function(ast::Program& program);
  void parse_template_header(ast::Function& function);
  void parse_parameters(ast::Function& function);
  ast::Parameter parse_parameter();
  void capture_device_code(ast::Program& program, size_t start_token);
  void collect_device_functions(ast::DeviceCode& code, size_t start_token, int depth);
  bool template_introduces_function(size_t& after) const;
};

// Edit-distance suggestion: the candidate closest to `word` within 2 edits, or "".
std::string closest_name(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace croq::frontend
