// Inline PTX (`__asm__`) in interpret mode: the warp shuffles that kernels
// write by hand (`shfl.sync.bfly.b32 %0, %1, 16, 31, -1;`, the butterfly
// reductions of samples/row_norm_source.hpp) run as a warp collective, and
// the named barriers (`bar.sync %0, %1;`, `bar.arrive`: __bar_sync and
// __bar_arrive) as PTX defines them; any other PTX is refused at its line,
// since the CPU cannot run it.
#include <bit>
#include <cstring>
#include <regex>

#include "interp/executor.hpp"
#include "interp/values.hpp"

namespace croq::interp {

namespace {

// `shfl.sync.MODE.b32 %0, %1, B, C, MASK;`: one 32-bit output, one input,
// and B, C, MASK integer literals or operands (%2, ...).
struct Shuffle {
  enum class Mode { bfly, down, up, idx } mode = Mode::bfly;
  std::string b, c, mask;
};

bool parse_shuffle(const std::string& text, Shuffle& out) {
  static const std::regex pattern(
      R"(^\s*shfl\.sync\.(bfly|down|up|idx)\.b32\s+%0\s*,\s*%1\s*,\s*([^,\s]+)\s*,\s*([^,\s]+)\s*,\s*([^,;\s]+)\s*;?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return false;
  const std::string mode = m[1];
  out.mode = mode == "bfly" ? Shuffle::Mode::bfly
             : mode == "down" ? Shuffle::Mode::down
             : mode == "up"   ? Shuffle::Mode::up
                              : Shuffle::Mode::idx;
  out.b = m[2];
  out.c = m[3];
  out.mask = m[4];
  return true;
}

// `bar.sync A, B;` / `bar.arrive A, B;` (also `barrier.sync` and
// `bar.sync.aligned`): barrier A, thread count B, each a literal or %N.
bool parse_named_barrier(const std::string& text, bool& sync, std::string& id, std::string& threads) {
  static const std::regex pattern(R"(^\s*bar(?:rier)?\.(sync|arrive)(?:\.aligned)?\s+([^,\s]+)\s*,\s*([^,;\s]+)\s*;?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return false;
  sync = m[1] == "sync";
  id = m[2];
  threads = m[3];
  return true;
}

// The 32 bits of `v` (of type `t`) as a b32 register holds them.
std::uint32_t bits_of(const ir::Type& t, const Value& v) {
  if (t.is_float()) return std::bit_cast<std::uint32_t>(static_cast<float>(as_double(t, v)));
  return static_cast<std::uint32_t>(as_int(t, v));
}

Value value_of(const ir::Type& t, std::uint32_t bits) {
  if (t.is_float()) return from_double(t, static_cast<double>(std::bit_cast<float>(bits)));
  return from_int(t, static_cast<std::int64_t>(bits));
}

}  // namespace

std::int64_t Executor::asm_integer(Thread& t, const ir::InlineAsm& a, const std::string& operand) {
  if (operand.size() > 1 && operand[0] == '%') {
    const std::size_t n = static_cast<std::size_t>(std::stoul(operand.substr(1)));
    if (n >= a.outputs.size() && n - a.outputs.size() < a.inputs.size()) {
      const ir::ExprRef& e = a.inputs[n - a.outputs.size()].value;
      return as_int(e->type, eval(t, e));
    }
    fault(t.line, "inline PTX operand " + operand + " does not exist");
  }
  try {
    return std::stoll(operand, nullptr, 0);
  } catch (const std::exception&) {
    fault(t.line, "interpret mode cannot read `" + operand + "` in inline PTX as an integer");
  }
}

void Executor::named_barrier(Thread& t, std::int64_t id, std::int64_t threads, bool sync) {
  const std::string name = "named barrier " + std::to_string(id);
  if (id < 0 || id > 15) fault(t.line, "bar." + std::string(sync ? "sync" : "arrive") + " names barrier " + std::to_string(id) + "; a block has 0..15");
  if (threads <= 0 || threads % 32 != 0 || threads > launch_.threads)
    fault(t.line, "the thread count of " + name + " is " + std::to_string(threads) +
                      "; it is a positive multiple of 32, at most the block's " + std::to_string(launch_.threads) + " threads");
  NamedBarrier& b = t.block->named_barriers[id];
  if (b.arrived == 0) b.threads = threads;
  else if (b.threads != threads)
    fault(t.line, "threads disagree on the count of " + name + ": " + std::to_string(b.threads) + " and " +
                      std::to_string(threads) + " in one phase");
  const std::int64_t phase = b.completed;
  race_release(t, b.arrivals);
  if (++b.arrived == b.threads) {
    b.released.clock = std::move(b.arrivals.clock);
    b.arrivals.clock.clear();
    b.arrived = 0;
    ++b.completed;
  }
  if (!sync) return;
  NamedBarrier* waited = &b;
  wait_until(t, [waited, phase] { return waited->completed > phase; }, name);
  race_acquire(t, b.released);
}

void Executor::inline_asm(Thread& t, const ir::InlineAsm& a, const ir::Stmt& s) {
  bool sync = false;
  std::string id, threads;
  if (parse_named_barrier(a.text, sync, id, threads) && a.outputs.empty())
    return named_barrier(t, asm_integer(t, a, id), asm_integer(t, a, threads), sync);
  Shuffle shuffle;
  if (!parse_shuffle(a.text, shuffle) || a.outputs.size() != 1 || a.inputs.empty() ||
      a.outputs[0].value->kind != ir::ExprKind::var)
    fault(t.line, "interpret mode cannot run inline PTX (__asm__); run this program on the GPU (of inline PTX, "
                  "interpret mode runs the warp shuffles shfl.sync and the named barriers bar.sync, bar.arrive)");
  const std::int64_t b_operand = asm_integer(t, a, shuffle.b), c = asm_integer(t, a, shuffle.c);
  if ((asm_integer(t, a, shuffle.mask) & 0xffffffffLL) != 0xffffffffLL)
    fault(t.line, "interpret mode runs warp shuffles of the whole warp only (member mask -1 / 0xffffffff)");
  const ir::ExprRef& input = a.inputs[0].value;
  const std::int64_t warp = t.tid / 32, lane = t.tid % 32;
  Block& blk = *t.block;
  blk.shuffle_inputs[warp][static_cast<std::size_t>(lane)] = bits_of(input->type, eval(t, input));
  // PTX ISA, shfl.sync: c packs the clamp (bits 0-4) and the segment mask
  // (bits 8-12); a source lane out of range gives the lane its own value.
  const std::int64_t clamp = c & 31, segment = (c >> 8) & 31, b = b_operand & 31;
  gather(t, "warp " + std::to_string(warp), warp * 32, 32, &s, [&blk, warp, b, clamp, segment, shuffle] {
    auto& in = blk.shuffle_inputs[warp];
    auto& out = blk.shuffle_results[warp];
    for (std::int64_t l = 0; l < 32; ++l) {
      const std::int64_t min_lane = l & segment, max_lane = min_lane | (clamp & ~segment);
      std::int64_t from = l;
      bool valid = true;
      switch (shuffle.mode) {
        case Shuffle::Mode::bfly: from = l ^ b, valid = from <= max_lane; break;
        case Shuffle::Mode::down: from = l + b, valid = from <= max_lane; break;
        case Shuffle::Mode::up: from = l - b, valid = from >= max_lane; break;
        case Shuffle::Mode::idx: from = min_lane | (b & ~segment), valid = from <= max_lane; break;
      }
      out[static_cast<std::size_t>(l)] = in[static_cast<std::size_t>(valid ? from : l)];
    }
  });
  const ir::Expr& target = *a.outputs[0].value;
  auto it = t.vars.find(target.text);
  if (it == t.vars.end()) fault(t.line, "internal error: inline PTX writes an unknown variable `" + target.text + "`");
  it->second = value_of(target.type, blk.shuffle_results[warp][static_cast<std::size_t>(lane)]);
}

}  // namespace croq::interp
