// croq: the command-line tool. Subcommands live in one table; each parses
// its own arguments and returns the exit status:
//   0 success, 1 the input has errors, 2 usage error (bad arguments, unreadable file).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_common.hpp"
#include "cli/file_io.hpp"
#include "cli/host_command.hpp"
#include "cli/kernel_commands.hpp"
#include "cli/precompile_command.hpp"
#include "croq/error.hpp"
#include "croq/options.hpp"
#include "frontend/frontend.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "sema/sema.hpp"
#include "support/utf8.hpp"

namespace {

using croq::cli::kExitErrors;
using croq::cli::kExitOk;
using croq::cli::kExitUsage;
using croq::cli::parse_define;
using croq::cli::read_source;
using croq::cli::usage_error;

struct Subcommand {
  const char* name;
  const char* usage;    // arguments after the name
  const char* summary;  // one line for `croq --help`
  const char* details;  // option help for `croq NAME --help`
  int (*run)(const std::vector<std::string>& args);
};

// croq check FILE.co [--json] [--syntax-only] [--define N=V]... [--entry NAME] [--arch A]
int run_check(const std::vector<std::string>& args) {
  croq::CompileOptions options;
  std::string path;
  bool json = false;
  bool syntax_only = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag, std::string& out) {
      if (a.rfind(std::string(flag) + "=", 0) == 0) {
        out = a.substr(std::string(flag).size() + 1);
        return true;
      }
      if (a == flag && i + 1 < args.size()) {
        out = args[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (a == "--json") {
      json = true;
    } else if (a == "--syntax-only") {
      syntax_only = true;
    } else if (value("--define", v) || value("-D", v)) {
      std::string error;
      if (!parse_define(v, options, error)) return usage_error(error);
    } else if (a.rfind("-D", 0) == 0 && a.size() > 2) {
      std::string error;
      if (!parse_define(a.substr(2), options, error)) return usage_error(error);
    } else if (value("--entry", v)) {
      options.entry = v;
    } else if (value("--arch", v)) {
      options.arch = v;
    } else if (a == "--define" || a == "--entry" || a == "--arch") {
      return usage_error(a + " needs a value");
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usage_error("check: unknown option `" + a + "`");
    } else if (path.empty()) {
      path = a;
    } else {
      return usage_error("check: one input file expected, got `" + path + "` and `" + a + "`");
    }
  }
  if (path.empty()) return usage_error("check: missing input file");
  std::string source;
  if (std::string problem = read_source(path, source); !problem.empty()) return usage_error(problem);
  options.source_name = path == "-" ? "<stdin>" : path;

  try {
    auto program = croq::frontend::parse_program(source, options);
    // Every __co__ function, or just the entry when one is named.
    std::vector<const croq::frontend::ast::Function*> functions;
    if (!options.entry.empty()) functions.push_back(&croq::frontend::select_entry(*program, options, source));
    // Constructs libcroqjit cannot run yet are valid Croqtile: warnings here.
    croq::sema::Options checks;
    checks.limitations_are_errors = false;
    // The target's rules (thread counts, MMA and TMA forms) only with --arch.
    if (!options.arch.empty()) {
      checks.target = croq::target::parse_target(options.arch);
      croq::jit::validate_arch(options.arch);  // one NVRTC can target, as croq::compile requires
    }
    std::vector<croq::Diagnostic> warnings = program->warnings;
    if (!syntax_only) {
      const croq::sema::CheckedProgram checked = croq::sema::check(*program, functions, checks);
      warnings.insert(warnings.end(), checked.limitations.begin(), checked.limitations.end());
      // Without a limitation (which compile refuses already), the functions
      // the source sizes itself go through lowering too.
      if (checked.limitations.empty()) {
        std::vector<std::string> names;
        for (const auto* f : functions) names.push_back(f->name);
        const auto refused = croq::cli::constant_shape_refusals(source, options, names);
        warnings.insert(warnings.end(), refused.begin(), refused.end());
      }
    }
    if (json) {
      // A CompileError is the one JSON form of diagnostics; here it carries warnings only.
      nlohmann::json out = nlohmann::json::parse(croq::CompileError(warnings, source, options.source_name).to_json());
      out["functions"] = nlohmann::json::array();
      for (const auto& f : program->functions) out["functions"].push_back(f.name);
      std::cout << croq::support::json_text(out, 2) << "\n";
    } else {
      std::cerr << croq::render_diagnostics(warnings, source, options.source_name);
      std::cout << options.source_name << ": ok (" << program->functions.size() << " __co__ function"
                << (program->functions.size() == 1 ? "" : "s");
      for (size_t i = 0; i < program->functions.size(); ++i)
        std::cout << (i ? ", " : ": ") << program->functions[i].name;
      std::cout << ")\n";
    }
    return kExitOk;
  } catch (const croq::CompileError& e) {
    if (json) std::cout << e.to_json() << "\n";
    else std::cerr << e.what();
    return kExitErrors;
  }
}

const Subcommand kSubcommands[] = {
    {"check", "FILE.co [--json] [--syntax-only] [--define N=V]... [--entry NAME] [--arch A]",
     "parse and check a Croqtile source file (host code included) and report its diagnostics",
     "  --json          print diagnostics as JSON on stdout\n"
     "  --syntax-only   parse only (preprocessor and parser), no semantic checks\n"
     "  --arch A        also check the rules of target A (sm_80, sm_90a, ...)\n"
     "  --define N=V    define N (integer or float) as if by #define; overrides the\n"
     "                  source's #define N (also -DN=V)\n"
     "  --entry NAME    check only the __co__ function NAME (default: every one)\n"
     "  FILE may be `-` for standard input.\n"
     "  Valid Croqtile that libcroqjit cannot run yet is a warning here (exit 0);\n"
     "  croq::compile and `croq compile` reject it.\n",
     run_check},
    {"compile", "FILE.co [--emit ast|ir|cuda|ptx|cubin|info] [--after STAGE] [--full] [-o FILE] [--shape N=V]... [--define N=V]... [--entry NAME] [--arch A] [--explain]",
     "specialize a __co__ function for given shapes and print its AST, IR, CUDA, PTX, cubin or resource use",
     "  --emit KIND     ast, ir (the tile IR after the passes), cuda (default),\n"
     "                  ptx, cubin (cubin needs -o), or info: each kernel's\n"
     "                  registers, spills, shared and local memory, launch shape,\n"
     "                  occupancy and image (the driver's figures with a GPU,\n"
     "                  else ptxas's report of the compile; through the cache)\n"
     "  --after STAGE   with --emit ir: the IR after `lower` or after the named\n"
     "                  pass instead (see docs/architecture.md for the pass list)\n"
     "  --full          with --emit ir: the full text (every fact the passes read;\n"
     "                  what the IR parser and tests/passes/ read)\n"
     "  --explain       specialize through the kernel cache (as a call would) and\n"
     "                  print where the image came from (source: memory, disk,\n"
     "                  remote or compiled) and why it compiled; on standard\n"
     "                  output without --emit, else on standard error\n"
     "  -o FILE         write the output to FILE instead of standard output\n"
     "  --shape N=V     bind the symbolic dim N (repeat for each dim)\n"
     "  --define N=V    define N as if by #define (overrides the source)\n"
     "  --entry NAME    the __co__ function to compile; without it, a file of\n"
     "                  several compiles each, under a `// ==== __co__ NAME` line\n"
     "  --arch A        target architecture (default: CROQ_ARCH, the device's, or sm_90a);\n"
     "                  compute_XY emits PTX only\n",
     croq::cli::run_compile},
    {"precompile", "FILE.co [--shape N=V]... [--signatures FILE] [--define N=V]... [--entry NAME] [--arch A[,B...]] [--source-name NAME] [--json]",
     "fill the kernel cache for given shapes and architectures, without a GPU",
     "  --shape N=V        bind the symbolic dim N (for every signature)\n"
     "  --signatures FILE  one signature per line: N=V bindings separated by spaces\n"
     "                     (`#` starts a comment; a line's binding wins over --shape)\n"
     "  --arch A,B         compile for each architecture (default: CROQ_ARCH, the\n"
     "                     device's, or sm_90a)\n"
     "  --source-name N    the name the application compiles the source under\n"
     "                     (CompileOptions::source_name; croq::compile's default is\n"
     "                     <source>): the generated code names it, so the cache keys\n"
     "                     match the application's only with the same name\n"
     "                     (default: FILE as given)\n"
     "  --json             print the results as JSON\n"
     "  --define, --entry as for `croq compile`\n"
     "  Prints one line per architecture and signature: where its image came from\n"
     "  (compiled, disk, memory) and why it compiled. Exit 1 when any failed.\n",
     croq::cli::run_precompile},
    {"run", "FILE.co [--arg NAME=FILE.npy]... [--random SEED] [--shape N=V]... [--out result.npy] [--interpret]",
     "run a __co__ function on the GPU (or the CPU: --interpret) with NumPy inputs (or random data) and save the result",
     "  --arg NAME=FILE.npy  the input for parameter NAME (its shape binds symbolic dims)\n"
     "  --random SEED        fill parameters without --arg with random data from SEED\n"
     "  --shape N=V          bind a symbolic dim that no input determines\n"
     "  --out FILE.npy       write the returned tensor as .npy\n"
     "  --interpret          run on the CPU with the tile IR interpreter (no GPU; checks\n"
     "                       out-of-bounds accesses and synchronization hazards)\n"
     "  --define, --entry, --arch as for `croq compile`\n",
     croq::cli::run_run},
    {"bench", "FILE.co --shape N=V... [--reps N] [--flops F] [--tune NAME=V1,V2,...]... [--plot FILE.png]",
     "time a __co__ function on random device data: median time, GB/s, TFLOP/s",
     "  --shape N=V      bind every symbolic dim\n"
     "  --reps N         timed runs after one warm-up (default 50)\n"
     "  --flops F        floating-point operations per call, to report TFLOP/s\n"
     "  --tune N=V1,V2   tune the #define N over the values (repeat for more names:\n"
     "                   the cross product is tried); prints each configuration's\n"
     "                   time or why it was skipped, then benches the fastest. The\n"
     "                   choice is recorded next to the kernel cache: a later run\n"
     "                   with the same source, shapes and values times nothing\n"
     "  --plot FILE.png  draw the call's roofline (achieved FLOP/s and bytes/s\n"
     "                   against the device's peaks) with the croqjit Python\n"
     "                   package and matplotlib ($CROQ_PYTHON, default python3)\n"
     "  GB/s counts the bytes of all tensor arguments and the result once per call;\n"
     "  every call writes into one result buffer (allocated once, not timed).\n"
     "  --define, --entry, --arch as for `croq compile`\n",
     croq::cli::run_bench},
    {"host", "FILE.co [-o OUT.cpp]",
     "print a C++ program that runs FILE.co's host code, calling its __co__ functions through libcroqjit",
     "  -o FILE   write the program to FILE instead of standard output\n"
     "  The output includes <croq/choreo.hpp>; build it with\n"
     "  g++ -std=c++20 -I<prefix>/include OUT.cpp -L<prefix>/lib -lcroqjit\n"
     "  (and -lcudart where the CUDA toolkit's headers are found). Each __co__\n"
     "  function becomes a C++ function of the same name that compiles it on its\n"
     "  first call; a failing call exits with 3 (compile error), 4 (arguments),\n"
     "  5 (CUDA) or 6. CROQ_HOST_CHECK_ONLY=1 compiles every function and exits.\n",
     croq::cli::run_host},
};

void print_help() {
  std::cout << "usage: croq <command> [arguments]\n\ncommands:\n";
  for (const Subcommand& s : kSubcommands) std::printf("  %-10s %s\n", s.name, s.summary);
  std::cout << "\nexit status: 0 success, 1 errors in the input, 2 usage error\n"
               "run `croq <command> --help` for a command's options\n";
}

// Runs a subcommand; what it prints must reach standard output, and nothing
// it throws may end the process without a message.
int run_guarded(const Subcommand& s, const std::vector<std::string>& args) {
  int status = kExitErrors;
  try {
    status = s.run(args);
  } catch (const std::bad_alloc&) {
    std::cerr << "croq " << s.name << ": out of memory\n";
    status = kExitErrors;
  } catch (const std::exception& e) {
    std::cerr << "croq " << s.name << ": " << e.what() << "\n";
    status = kExitErrors;
  }
  if (std::string problem = croq::cli::flush_stdout(); !problem.empty()) {
    std::cerr << "croq " << s.name << ": " << problem << "\n";
    if (status == kExitOk) status = kExitErrors;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_help();
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_help();
    return kExitOk;
  }
  for (const Subcommand& s : kSubcommands) {
    if (args[0] != s.name) continue;
    std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const std::string& a : rest) {
      if (a == "--help" || a == "-h") {
        std::cout << "usage: croq " << s.name << " " << s.usage << "\n" << s.summary << "\n\n" << s.details;
        return kExitOk;
      }
    }
    return run_guarded(s, rest);
  }
  return usage_error("unknown command `" + args[0] + "`");
}
