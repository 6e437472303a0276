#include "passes/passes.hpp"

namespace croq::passes {

void run_passes(ir::Kernel& kernel, const target::Target& target, std::int64_t max_shared_bytes) {
  select_mma_instructions(kernel, target);
  complete_mma_groups(kernel);
  count_event_arrivals(kernel);
  reallocate_registers(kernel, target);
  vectorize_copies(kernel);
  remove_redundant_barriers(kernel);
  lay_out_shared_memory(kernel, max_shared_bytes);
}

}  // namespace croq::passes
