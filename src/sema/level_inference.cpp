// Croqtile's inference of the levels of unannotated parallel statements
// (level_inference.hpp). Levels are ranked by depth: block 1, group-4 2,
// group 3, thread 4; the kernel around everything is 0 and "no level below"
// is 5. A run of k unannotated levels between an outer rank and an inner one
// takes k of the ranks strictly between them: thread first (the innermost
// level runs threads), then block (the outermost runs blocks), then group,
// then group-4; in nesting order. So `parallel by 2 parallel by 4` is block
// and thread, three levels are block, group and thread, four fill the nest.
#include "sema/level_inference.hpp"

#include <algorithm>
#include <variant>
#include <vector>

#include "frontend/ast_walk.hpp"

namespace croq::sema::detail {

namespace {

using frontend::ast::Parallel;
using frontend::ast::SpaceSpecifier;
using frontend::ast::Stmt;

constexpr int kNoLevelBelow = 5;
constexpr int kPreference[] = {4, 1, 3, 2};  // thread, block, group, group-4

int depth(SpaceSpecifier s) {
  switch (s) {
    case SpaceSpecifier::block: return 1;
    case SpaceSpecifier::group4: return 2;
    case SpaceSpecifier::group: return 3;
    case SpaceSpecifier::thread: return 4;
    default: return 0;
  }
}

SpaceSpecifier space_at(int d) {
  switch (d) {
    case 1: return SpaceSpecifier::block;
    case 2: return SpaceSpecifier::group4;
    case 3: return SpaceSpecifier::group;
    default: return SpaceSpecifier::thread;
  }
}

// A run of unannotated levels down one path of the nest: how many, and the
// depth of the annotated level that ends it. Cluster, device and term
// levels below end a run without bounding it: their own rules place them.
struct Run {
  int levels = 0;
  int below = kNoLevelBelow;
};

void runs_from(const Parallel& p, std::size_t level_index, int seen, std::vector<Run>& out) {
  for (; level_index < p.levels.size(); ++level_index) {
    const SpaceSpecifier s = p.levels[level_index].space;
    if (s != SpaceSpecifier::none) {
      out.push_back({seen, depth(s) > 0 ? depth(s) : kNoLevelBelow});
      return;
    }
    ++seen;
  }
  bool nested = false;
  frontend::ast::walk_statements(*p.body, [&](const Stmt& st) {
    const auto* inner = std::get_if<Parallel>(&st.node);
    if (inner) {
      nested = true;
      runs_from(*inner, 0, seen, out);
    }
    return inner != nullptr;
  });
  if (!nested) out.push_back({seen, kNoLevelBelow});
}

std::string where(int d, bool outer) {
  if (d == 0) return "the kernel";
  if (d == kNoLevelBelow) return "the innermost statements";
  return std::string(outer ? "the `: " : "a `: ") + frontend::ast::space_name(space_at(d)) + "` level";
}

}  // namespace

InferredLevel infer_level(SpaceSpecifier outer, const Parallel& p, std::size_t level_index) {
  // After a cluster level comes its `: block` level (cluster-needs-block).
  if (outer == SpaceSpecifier::cluster) return {};
  const int top = depth(outer);
  std::vector<Run> runs;
  runs_from(p, level_index, 0, runs);
  if (top == 0 && runs.size() == 1 && runs[0].levels == 1 && runs[0].below == kNoLevelBelow) return {};
  int chosen = kNoLevelBelow;
  for (const Run& r : runs) {
    const int room = std::max(0, r.below - top - 1);
    if (room < r.levels) {
      if (r.below != kNoLevelBelow) return {SpaceSpecifier::thread, {}};
      const bool one = r.levels == 1;
      return {SpaceSpecifier::thread,
              "cannot infer where this parallel level runs: " +
                  (one ? std::string("1 unannotated level, this one, stands")
                       : std::to_string(r.levels) + " unannotated levels, this one first, stand") +
                  " between " + where(top, true) + (one ? " around it" : " around them") + " and " +
                  where(r.below, false) + ", which leave room for " + (room ? std::to_string(room) : "none") +
                  " (levels nest block, group-4, group, thread from the outside in)"};
    }
    // The run takes its most preferred free depths; this level the outermost.
    int taken = 0, outermost = kNoLevelBelow;
    for (int d : kPreference)
      if (taken < r.levels && d > top && d < r.below) {
        ++taken;
        outermost = std::min(outermost, d);
      }
    chosen = std::min(chosen, outermost);
  }
  return {space_at(chosen), {}};
}

}  // namespace croq::sema::detail
