// Function-like defines (`#define ADD(a, b) (a + b)`): expanded inside
// __co__ and __co_device__ functions, as C expands them (arguments first,
// then the body again, the define itself left alone); host code keeps them
// for the C++ compiler.
#include "frontend/preprocess.hpp"
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

struct Expanded {
  std::vector<Diagnostic> diags;
  std::string text;  // token texts joined by spaces
  std::vector<Token> tokens;
};

Expanded run(const std::string& source) {
  static std::vector<std::string> keep;  // tokens point into the source
  keep.push_back(source);
  Expanded p;
  auto tokens = tokenize(keep.back(), p.diags);
  PreprocessedTokens result = preprocess(tokens, {}, p.diags);
  for (const Token& t : result.tokens) {
    if (t.kind == TokenKind::end_of_file) break;
    p.tokens.push_back(t);
    if (!p.text.empty()) p.text += " ";
    p.text += t.text;
  }
  return p;
}

TEST(FunctionLikeDefine, ExpandsInsideACoFunctionWithItsArgumentsFirst) {
  auto p = run("#define ADD(a, b) (a + b)\n#define NESTED_ADD(a, b) ADD(ADD(a, b), b)\n"
               "__co__ void f() { x = NESTED_ADD(y.at(i, j), 1.0f); }");
  EXPECT_TRUE(p.diags.empty());
  EXPECT_EQ(p.text, "__co__ void f ( ) { x = ( ( y . at ( i , j ) + 1.0f ) + 1.0f ) ; }");
}

TEST(FunctionLikeDefine, ExpandedTokensTakeTheUsesPlace) {
  auto p = run("#define SQ(v) ((v) * (v))\n__co__ void f() {\n  x = SQ(3);\n}");
  for (const Token& t : p.tokens)
    if (t.text == "*") {
      EXPECT_EQ(t.line, 3);
      EXPECT_EQ(t.column, 7);
    }
}

TEST(FunctionLikeDefine, HostCodeAndNamesWithoutParenthesesStayAsWritten) {
  auto p = run("#define SQ(v) ((v) * (v))\nint host = SQ(2);\n__co__ void f() { g = SQ; h = SQ (4); }\n"
               "int after = SQ(5);");
  EXPECT_TRUE(p.diags.empty());
  EXPECT_EQ(p.text,
            "int host = SQ ( 2 ) ; __co__ void f ( ) { g = SQ ; h = ( ( 4 ) * ( 4 ) ) ; } int after = SQ ( 5 ) ;");
}

TEST(FunctionLikeDefine, NoArgumentsAndSelfReference) {
  auto p = run("#define ZERO() 0\n#define F(x) F(x + 1)\n__co_device__ void d() { a = ZERO(); b = F(2); }");
  EXPECT_TRUE(p.diags.empty());
  EXPECT_EQ(p.text, "__co_device__ void d ( ) { a = 0 ; b = F ( 2 + 1 ) ; }");
}

TEST(FunctionLikeDefine, WrongArgumentCountsAndOperatorsAreErrorsAtTheUse) {
  auto p = run("#define ADD(a, b) (a + b)\n#define STR(x) #x\n__co__ void f() {\n  x = ADD(1);\n  y = STR(z);\n}");
  ASSERT_EQ(p.diags.size(), 2u);
  EXPECT_EQ(p.diags[0].message, "`ADD` takes 2 arguments, got 1");
  EXPECT_EQ(p.diags[0].line, 4);
  EXPECT_EQ(p.diags[1].message, "the define `STR` uses `...`, `#` or `##`, which libcroqjit does not expand yet");
  EXPECT_EQ(p.diags[1].line, 5);
}

TEST(FunctionLikeDefine, AnUnclosedArgumentListIsAnError) {
  auto p = run("#define ADD(a, b) (a + b)\n__co__ void f() {\n  x = ADD(1, 2;\n#define Q 1\n}");
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_EQ(p.diags[0].message, "the arguments of `ADD` have no closing `)`");
  EXPECT_EQ(p.diags[0].line, 3);
}

TEST(FunctionLikeDefine, ArgumentsWithCommasInsideBrackets) {
  auto p = run("#define FIRST(a, b) a\n__co__ void f() { x = FIRST(g(1, 2), [3, 4]); }");
  EXPECT_TRUE(p.diags.empty());
  EXPECT_EQ(p.text, "__co__ void f ( ) { x = g ( 1 , 2 ) ; }");
}

}  // namespace
}  // namespace croq::frontend::testing
