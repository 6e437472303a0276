// Statement attributes ([[launch_bounds(...)]], [[maxnreg(N)]],
// [[schedule(k_tiles(...))]]) and the thread counts a block's levels agree
// on: the launch bound, sibling thread-level statements, and `: thread`
// levels that fill whole warps or warpgroups.
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

// The first level of a parallel statement runs at block level.
bool block_level_statement(const Stmt& s) {
  const auto* p = std::get_if<Parallel>(&s.node);
  if (!p || p->levels.empty()) return false;
  const SpaceSpecifier space = p->levels[0].space;
  return space == SpaceSpecifier::block || space == SpaceSpecifier::none || space == SpaceSpecifier::cluster;
}

}  // namespace

std::int64_t LevelChecker::attribute_integer(const Attribute& a, const Expr& arg, std::int64_t least, const char* what) {
  Type v = c_.expressions.expr(arg);
  require_ok(v);
  const std::string attr = "`[[" + a.name + "]]`";
  if (v.is_float() || !v.is_number())
    fail(Rule::attribute_argument, arg.location, attr + " takes integers, got `" + text(arg) + "`");
  if (!v.known_now())
    fail(Rule::attribute_argument, arg.location,
         attr + " takes integer constants; `" + text(arg) + "` is not known when the kernel is compiled",
         "use a literal or a #define", notes_of(v));
  if (v.value < least)
    fail(Rule::attribute_argument, arg.location,
         attr + " " + what + " must be " + (least == 0 ? "zero or more" : "at least " + std::to_string(least)) + ", got " +
             std::to_string(v.value));
  return v.value;
}

void LevelChecker::attributes(const Stmt& s) {
  for (const Attribute& a : s.attributes) {
    try {
      if (a.name == "schedule") {
        schedule_attribute(s, a);
        continue;
      }
      if (a.name != "launch_bounds" && a.name != "maxnreg") continue;
      const std::string attr = "`[[" + a.name + "]]`";
      if (!block_level_statement(s))
        fail(Rule::attribute_placement, a.location, attr + " applies to a block-level parallel statement",
             "put it right before `parallel ... : block`");
      if (a.name == "maxnreg") {
        if (a.args.size() != 1)
          fail(Rule::attribute_argument, a.location,
               "`[[maxnreg]]` takes one argument (registers per thread), got " + std::to_string(a.args.size()));
        attribute_integer(a, *a.args[0], 1, "(registers per thread)");
        continue;
      }
      if (a.args.empty() || a.args.size() > 3)
        fail(Rule::attribute_argument, a.location,
             "`[[launch_bounds]]` takes 1 to 3 arguments (threads per block, blocks per SM, cluster size), got " +
                 std::to_string(a.args.size()));
      static const char* const what[] = {"(threads per block)", "(blocks per SM)", "(cluster size)"};
      for (std::size_t i = 0; i < a.args.size(); ++i) {
        if (i == 0 && std::holds_alternative<Wildcard>(a.args[0]->node)) continue;  // computed from the levels
        const std::int64_t v = attribute_integer(a, *a.args[i], i == 0 ? 0 : 1, what[i]);
        if (i == 0) {
          cx_.pending_launch_bound_ = v;
          cx_.launch_bound_at_ = a.location;
        }
      }
    } catch (const Abort&) {
    }
  }
}

void LevelChecker::schedule_attribute(const Stmt& s, const Attribute& a) {
  (void)s;
  for (const auto& arg : a.args) {
    const auto* call = std::get_if<Call>(&arg->node);
    const auto* callee = call ? std::get_if<Name>(&call->callee->node) : nullptr;
    if (!callee || callee->name != "k_tiles") continue;
    std::vector<std::int64_t> order;
    for (const auto& tile : call->args) {
      Type v = c_.expressions.expr(*tile);
      require_ok(v);
      if (!v.known_now() || v.is_float())
        fail(Rule::mma_schedule, tile->location, "`k_tiles(...)` lists constant k tile numbers, got `" + text(*tile) + "`");
      order.push_back(v.value);
    }
    const auto n = static_cast<std::int64_t>(order.size());
    std::vector<bool> seen(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::int64_t t = order[i];
      if (t < 0 || t >= n || seen[static_cast<std::size_t>(t)])
        fail(Rule::mma_schedule, call->args[i]->location,
             "`k_tiles(...)` must list each of the k tiles 0.." + std::to_string(n - 1) + " once; " +
                 (t < 0 || t >= n ? std::to_string(t) + " is out of range" : std::to_string(t) + " appears twice"));
      seen[static_cast<std::size_t>(t)] = true;
    }
  }
}

void LevelChecker::block_threads(const ParallelLevel& lv, std::int64_t threads, bool leaf) {
  if (cx_.launch_bound_ > 0 && threads > cx_.launch_bound_)
    fail(Rule::launch_bounds_threads, lv.location,
         "this level runs " + std::to_string(threads) + " threads in the block, but its [[launch_bounds]] at " +
             std::to_string(cx_.launch_bound_at_.line) + ":" + std::to_string(cx_.launch_bound_at_.column) + " allows " +
             std::to_string(cx_.launch_bound_),
         "raise the first [[launch_bounds]] argument, or run fewer threads");
  if (!leaf) return;
  if (!cx_.block_threads_) {
    cx_.block_threads_ = threads;
    cx_.block_threads_at_ = lv.location;
  } else if (*cx_.block_threads_ != threads) {
    fail(Rule::block_threads_mismatch, lv.location,
         "this statement runs " + std::to_string(threads) + " threads per block, but the one at " +
             std::to_string(cx_.block_threads_at_.line) + ":" + std::to_string(cx_.block_threads_at_.column) + " runs " +
             std::to_string(*cx_.block_threads_),
         "the thread-level statements of one block share its thread count; give them the same size");
  }
}

void LevelChecker::thread_level_units(const ParallelLevel& lv, std::int64_t threads) {
  const std::int64_t unit = cx_.parent_space_ == SpaceSpecifier::group ? 32 : cx_.parent_space_ == SpaceSpecifier::group4 ? 128 : 0;
  if (unit == 0 || threads % unit == 0) return;
  fail(Rule::thread_level_units, lv.location,
       std::string(lv.space == SpaceSpecifier::thread ? "a `: thread` level" : "a thread level") + " inside a `: " +
           std::string(space_name(cx_.parent_space_)) + "` level runs a multiple of " +
           std::to_string(unit) + " threads, got " + std::to_string(threads),
       unit == 32 ? "a group is one warp of 32 threads" : "a group-4 is one warpgroup of 128 threads");
}

}  // namespace croq::sema::detail
