// The command line the benchmarks share: `--json FILE` (where the results
// go) and, for those that time several groups, `--only NAME`. Anything
// else, a flag without its value or an unknown group is a usage error
// (exit 2) rather than a run that silently measures everything.
#pragma once

#include <iostream>
#include <string>
#include <vector>

namespace croq::bench {

struct BenchArgs {
  std::string json;  // empty: no JSON file
  std::string only;  // empty: every group
};

// `groups`: the names `--only` accepts (empty: the bench has no `--only`).
// Returns false (after printing the usage) when the command line is wrong.
inline bool parse_bench_args(int argc, char** argv, const std::string& name, const std::vector<std::string>& groups,
                             BenchArgs& out) {
  std::string usage = "usage: " + name + " [--json FILE]";
  if (!groups.empty()) {
    usage += " [--only ";
    for (std::size_t i = 0; i < groups.size(); ++i) usage += (i ? "|" : "") + groups[i];
    usage += "]";
  }
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    std::string* value = flag == "--json" ? &out.json : flag == "--only" && !groups.empty() ? &out.only : nullptr;
    if (!value || i + 1 >= argc) {
      std::cerr << name << ": " << (value ? "`" + flag + "` needs a value" : "unknown argument `" + flag + "`") << "\n"
                << usage << "\n";
      return false;
    }
    *value = argv[++i];
  }
  bool known = out.only.empty();
  for (const std::string& g : groups) known = known || g == out.only;
  if (!known) {
    std::cerr << name << ": `--only " << out.only << "` names no group\n" << usage << "\n";
    return false;
  }
  return true;
}

}  // namespace croq::bench
