// The Hopper device prelude (see hopper_prelude.hpp). The hand-written parts
// are the files of prelude/ (hopper_*.cuh, embedded at build time:
// prelude_files.hpp); the TMA functions of rank 1..5 and the WGMMA
// specializations (one inline-asm block per N and type, up to 128 output
// registers each) are generated below into their files' marked lines, so
// their operand lists cannot drift from their asm strings.
//
// PTX references: the PTX ISA sections on mbarrier, cp.async.bulk.tensor,
// wgmma.mma_async (matrix descriptor format, register fragments of D),
// setmaxnreg and elect.sync.
#include "backend/cuda/hopper_prelude.hpp"
#include "backend/cuda/hopper_prelude_parts.hpp"
#include "backend/cuda/prelude_files.hpp"

#include <string>

namespace croq::backend::cuda {
namespace {

// Closes the sm_90 region that runs from mbar_wait_cluster through the
// generated TMA functions.

// "%first, %first+1, ..." for operands inside an asm string literal; every
// 16 operands the literal is closed and reopened on the next line.
std::string operand_list(int first, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += (i % 16 == 0) ? ", \"\n        \"" : ", ";
    out += "%" + std::to_string(first + i);
  }
  return out;
}

std::string coord_params(int rank) {
  std::string out;
  for (int i = 0; i < rank; ++i) out += ", int c" + std::to_string(i);
  return out;
}

std::string coord_operands(int rank) {
  std::string out;
  for (int i = 0; i < rank; ++i) out += ", \"r\"(c" + std::to_string(i) + ")";
  return out;
}

// One TMA function: `name`, its extra leading parameters, the PTX mnemonic
// and operand text, and its input operands (before the coordinates).
void emit_tma(std::string& out, const std::string& name, const std::string& params, const std::string& ptx,
              const std::string& inputs, int rank) {
  out += "__device__ __forceinline__ void " + name + "_" + std::to_string(rank) + "d(" + params +
         coord_params(rank) + ") {\n  asm volatile(\"" + ptx + ";\\n\"\n               ::" + inputs +
         coord_operands(rank) + "\n               : \"memory\");\n}\n";
}

// A TMA load of `rank` dims: tma_load, with `multicast` to the blocks of a
// CTA mask (tma_load_multicast), with `hint` under an L2 cache policy
// (..._hint). Operands: dst, map, bar, then the mask and the policy, then
// the coordinates.
void emit_tma_load(std::string& out, int rank, bool multicast, bool hint) {
  std::string name = "tma_load", params = "void* dst, const croq_tensor_map* map, u64* bar";
  std::string modifiers, tail = "[%2]";
  std::string inputs = "\"r\"(smem_addr(dst)), \"l\"(map_addr(map)), \"r\"(smem_addr(bar))";
  int operands = 3;
  if (multicast) {
    name += "_multicast";
    params += ", u16 cta_mask";
    modifiers += ".multicast::cluster";
    tail += ", %" + std::to_string(operands++);
    inputs += ", \"h\"(cta_mask)";
  }
  if (hint) {
    name += "_hint";
    params += ", u64 policy";
    modifiers += ".L2::cache_hint";
    tail += ", %" + std::to_string(operands++);
    inputs += ", \"l\"(policy)";
  }
  const std::string d = std::to_string(rank);
  emit_tma(out, name, params,
           "cp.async.bulk.tensor." + d + "d.shared::cluster.global.mbarrier::complete_tx::bytes" + modifiers + " [%0], [%1, {" +
               operand_list(operands, rank) + "}], " + tail,
           inputs, rank);
}

std::string tma_functions() {
  // L2 eviction priorities for `tma.load.evict_*` (an L2 cache policy
  // covering every line the load reads).
  std::string out;
  for (const char* priority : {"evict_first", "evict_last", "evict_normal"})
    out += "__device__ __forceinline__ u64 l2_policy_" + std::string(priority) +
           "() {\n  u64 policy;\n  asm volatile(\"createpolicy.fractional.L2::" + priority +
           ".b64 %0, 1.0;\" : \"=l\"(policy));\n  return policy;\n}\n";
  for (int rank = 1; rank <= 5; ++rank) {
    std::string d = std::to_string(rank);
    for (bool hint : {false, true})
      for (bool multicast : {false, true}) emit_tma_load(out, rank, multicast, hint);
    // The store's coordinates follow map and src (operands 0 and 1).
    emit_tma(out, "tma_store", "const croq_tensor_map* map, const void* src",
             "cp.async.bulk.tensor." + d + "d.global.shared::cta.bulk_group [%0, {" + operand_list(2, rank) +
                 "}], [%1]",
             "\"l\"(map_addr(map)), \"r\"(smem_addr(src))", rank);
  }
  return out;
}

std::string wgmma_functions() {
  static const WgmmaKind kinds[] = {
      {"wgmma_ss", "f32_f16", "k16", ".f32.f16.f16", "float", "+f", 1, true},
      {"wgmma_ss", "f32_bf16", "k16", ".f32.bf16.bf16", "float", "+f", 1, true},
      {"wgmma_ss", "f16_f16", "k16", ".f16.f16.f16", "u32", "+r", 2, true},
  };
  std::string out;
  for (const WgmmaKind& kind : kinds)
    for (int n = 8; n <= 256; n += 8) emit_wgmma(out, n, kind);
  return out;
}

// The files in the order they include each other.
std::string build_prelude() {
  std::string text = prelude_with("hopper_core.cuh", "tma_functions", tma_functions());
  text += prelude_with("hopper_wgmma.cuh", "wgmma_ss", wgmma_functions());
  text += prelude_file("hopper_accumulators.cuh");
  text += prelude_file("hopper_warp.cuh");
  text += prelude_file("hopper_registers.cuh");
  return text;
}

}  // namespace

// template <> struct Struct<N, Kind> { static void run(...) { asm(...); } };
void emit_wgmma(std::string& out, int n, const WgmmaKind& kind) {
  const int regs = n / 2 / kind.values_per_reg;
  const std::string ns = std::to_string(n);
  // f16/bf16 take imm-trans-a and imm-trans-b (0: K-major); fp8 has none
  // (its operands are always K-major).
  const std::string immediates = kind.transposes ? "1, 1, 0, 0" : "1, 1";
  out += "template <>\nstruct " + std::string(kind.struct_name) + "<" + ns + ", " + kind.enumerator +
         "> {\n  static __device__ __forceinline__ void run(" + kind.reg_type + " (&d)[" + std::to_string(regs) +
         "], u64 a, u64 b, int scale_d) {\n    asm volatile(\n        \"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" +
         std::to_string(regs + 2) + ", 0;\\n\"\n        \"wgmma.mma_async.sync.aligned.m64n" + ns + kind.shape_k +
         kind.ptx_types + " {\"\n        \"" + operand_list(0, regs) + "},\"\n        \" %" +
         std::to_string(regs) + ", %" + std::to_string(regs + 1) + ", p, " + immediates + ";\\n}\\n\"\n        : ";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 8 == 0) ? ",\n          " : ", ";
    out += std::string("\"") + kind.constraint + "\"(d[" + std::to_string(i) + "])";
  }
  out += "\n        : \"l\"(a), \"l\"(b), \"r\"(scale_d)\n        : \"memory\");\n  }\n};\n";
}

std::string_view hopper_prelude() {
  static const std::string text = build_prelude();
  return text;
}

}  // namespace croq::backend::cuda
