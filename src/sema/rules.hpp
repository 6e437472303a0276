// The rules sema checks, each with a stable id (Diagnostic::rule, JSON
// "rule") and a one-line summary. The list is rules.def.
#pragma once

#include <span>

namespace croq::sema {

enum class Rule {
#define CROQ_SEMA_RULE(name, id, summary) name,
#define CROQ_SEMA_LIMIT(name, id, summary) name,
#include "sema/rules.def"
#undef CROQ_SEMA_LIMIT
#undef CROQ_SEMA_RULE
};

struct RuleInfo {
  Rule rule;
  const char* id;       // "chunkat-arity"
  const char* summary;  // "`.chunkat` takes one argument per dimension"
  // A limitation of libcroqjit (valid Croqtile it cannot run yet), not a
  // rule of the language.
  bool limitation = false;
};

std::span<const RuleInfo> all_rules();
const char* rule_id(Rule r);
bool is_limitation(Rule r);

}  // namespace croq::sema
