// The pass list: every pass, in the order the pipeline runs them, with the
// decision each makes (see passes.hpp).
#include <array>

#include "passes/passes.hpp"

namespace croq::passes {

namespace {

using ir::Decision;

constexpr std::array kPasses{
    Pass{"pipeline_k_loops", [](ir::Kernel& k, const PassContext&) { pipeline_k_loops(k); }, Decision::pipelining},
    Pass{"choose_index_width", [](ir::Kernel& k, const PassContext&) { choose_index_width(k); }, Decision::index_width},
    Pass{"place_shared_barriers", [](ir::Kernel& k, const PassContext&) { place_shared_barriers(k); },
         Decision::shared_barriers},
    Pass{"select_mma_instructions",
         [](ir::Kernel& k, const PassContext& c) { select_mma_instructions(k, c.target); }, Decision::mma_instructions},
    Pass{"complete_mma_groups", [](ir::Kernel& k, const PassContext&) { complete_mma_groups(k); },
         Decision::mma_completion},
    Pass{"pin_overlapped_waits", [](ir::Kernel& k, const PassContext&) { pin_overlapped_waits(k); },
         ir::Decisions::none()},
    Pass{"count_event_arrivals", [](ir::Kernel& k, const PassContext&) { count_event_arrivals(k); },
         Decision::event_arrivals},
    Pass{"reallocate_registers", [](ir::Kernel& k, const PassContext& c) { reallocate_registers(k, c.target); },
         ir::Decisions::none()},
    Pass{"tile_transposes", [](ir::Kernel& k, const PassContext&) { tile_transposes(k); }, ir::Decisions::none()},
    Pass{"vectorize_elementwise", [](ir::Kernel& k, const PassContext&) { vectorize_elementwise(k); },
         ir::Decisions::none()},
    Pass{"vectorize_copies", [](ir::Kernel& k, const PassContext&) { vectorize_copies(k); }, Decision::copy_vectors},
    Pass{"remove_redundant_barriers", [](ir::Kernel& k, const PassContext&) { remove_redundant_barriers(k); },
         ir::Decisions::none()},
    Pass{"lay_out_shared_memory",
         [](ir::Kernel& k, const PassContext& c) { lay_out_shared_memory(k, c.max_shared_bytes); },
         Decision::shared_layout},
};

}  // namespace

std::span<const Pass> pass_list() { return kPasses; }

const Pass* find_pass(std::string_view name) {
  for (const Pass& p : kPasses)
    if (p.name == name) return &p;
  return nullptr;
}

std::string stage_names() {
  std::string names(kLowered);
  for (const Pass& p : kPasses) names += ", " + std::string(p.name);
  return names;
}

}  // namespace croq::passes
