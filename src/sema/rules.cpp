// The rule table, from rules.def.
#include "sema/rules.hpp"

namespace croq::sema {

namespace {

constexpr RuleInfo kRules[] = {
#define CROQ_SEMA_RULE(name, id, summary) {Rule::name, id, summary, false},
#define CROQ_SEMA_LIMIT(name, id, summary) {Rule::name, id, summary, true},
#include "sema/rules.def"
#undef CROQ_SEMA_LIMIT
#undef CROQ_SEMA_RULE
};

}  // namespace

std::span<const RuleInfo> all_rules() { return kRules; }

const char* rule_id(Rule r) { return kRules[static_cast<int>(r)].id; }

bool is_limitation(Rule r) { return kRules[static_cast<int>(r)].limitation; }

}  // namespace croq::sema
