#include "frontend/parameter_dims.hpp"

#include <optional>

namespace croq::frontend {

using namespace ast;

void name_rank_only_parameters(Program& program) {
  for (Function& fn : program.functions)
    for (Parameter& p : fn.params) {
      if (!is_rank_only(p.type)) continue;
      std::optional<std::int64_t> rank;
      if (const auto* lit = std::get_if<IntegerLiteral>(&p.type.rank->node)) {
        if (lit->value <= static_cast<std::uint64_t>(kMaxParameterRank)) rank = static_cast<std::int64_t>(lit->value);
      } else if (const auto* n = std::get_if<Name>(&p.type.rank->node)) {
        auto def = program.defines.find(n->name);
        if (def != program.defines.end() && def->second.value && std::holds_alternative<std::int64_t>(*def->second.value))
          rank = std::get<std::int64_t>(*def->second.value);
      }
      if (!rank || *rank < 1 || *rank > kMaxParameterRank) continue;
      for (std::int64_t d = 0; d < *rank; ++d) p.type.shape.push_back(make_node<Expr>(p.type.rank->location, Name{"?"}));
    }
}

}  // namespace croq::frontend
