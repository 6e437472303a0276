// croq-cache: inspect and maintain the on-disk kernel cache.
//
//   croq-cache [--dir DIR] [--json] ls | stats | verify [--remove] |
//              prune --max-bytes N | clear | export BUNDLE [--key K]... |
//              import BUNDLE
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/file_io.hpp"
#include "croq/error.hpp"
#include "jit/cache_bundle.hpp"
#include "jit/disk_cache.hpp"
#include "support/env.hpp"

namespace {

using croq::jit::CacheEntryInfo;
using croq::jit::DiskCache;
using croq::jit::DiskCacheSettings;

constexpr const char* kUsage = R"(usage: croq-cache [--dir DIR] [--json] COMMAND

Inspect and maintain libcroqjit's on-disk kernel cache. The directory is
DIR, else $CROQ_CACHE_DIR, else $XDG_CACHE_HOME/croq, else ~/.cache/croq.

commands:
  ls                    one line per entry: key, entry, arch, size, age
  stats                 entries, total bytes, oldest and newest use, temp
                        files left by writers that died
  verify [--remove]     check every entry's metadata, checksum and image;
                        --remove deletes bad ones (and says which it could not)
  prune --max-bytes N   evict least recently used entries until <= N bytes
                        (N accepts K, M, G, T suffixes); removes temp files
                        older than 10 minutes
  clear                 delete every entry and temp file
  export BUNDLE [--key K]...
                        write the valid entries (only K... when given) to the
                        bundle file BUNDLE, for `import` or CROQ_CACHE_PRELOAD
  import BUNDLE         verify the bundle and add its entries (all or none)

exit status: 0 ok, 1 verify found bad entries or an operation failed, 2 usage
)";

std::string human_bytes(std::uint64_t b) {
  char buf[32];
  if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1fM", b / 1048576.0);
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1fK", b / 1024.0);
  else std::snprintf(buf, sizeof buf, "%lluB", static_cast<unsigned long long>(b));
  return buf;
}

std::string human_age(std::int64_t last_used) {
  std::int64_t s = std::time(nullptr) - last_used;
  if (s < 120) return std::to_string(s) + "s";
  if (s < 7200) return std::to_string(s / 60) + "m";
  if (s < 172800) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

// JSON text for the terminal: invalid UTF-8 in a path is replaced, not
// thrown about.
std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// What `ls` shows for an entry without valid metadata.
std::string entry_label(const CacheEntryInfo& e) {
  if (e.metadata) return e.metadata->entry;
  return e.readable ? "(corrupt)" : "(unreadable)";
}

int cmd_ls(DiskCache& cache, bool json) {
  auto entries = cache.list();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : entries) {
      nlohmann::json item{{"key", e.key}, {"bytes", e.bytes}, {"last_used", e.last_used},
                          {"metadata", e.metadata ? e.metadata->to_json() : nlohmann::json()}};
      if (!e.problem.empty()) item["problem"] = e.problem;
      if (!e.readable) item["readable"] = false;
      out.push_back(std::move(item));
    }
    std::cout << json_text(out) << "\n";
    return 0;
  }
  std::printf("%-32s  %-24s  %-8s  %8s  %6s\n", "KEY", "ENTRY", "ARCH", "SIZE", "AGE");
  for (const auto& e : entries) {
    std::string arch = e.metadata ? e.metadata->arch : "?";
    std::string size = e.readable ? human_bytes(e.bytes) : "?";
    std::string age = e.readable ? human_age(e.last_used) : "?";
    std::printf("%-32s  %-24s  %-8s  %8s  %6s\n", e.key.c_str(), entry_label(e).c_str(), arch.c_str(), size.c_str(),
                age.c_str());
  }
  for (const auto& e : entries)
    if (!e.readable) std::fprintf(stderr, "croq-cache: %s: %s\n", e.key.c_str(), e.problem.c_str());
  return 0;
}

int cmd_stats(DiskCache& cache, bool json) {
  auto entries = cache.list();
  std::uint64_t temp_bytes = 0;
  std::size_t stale = 0;
  const auto temps = cache.temp_files();
  for (const auto& t : temps) {
    temp_bytes += t.bytes;
    stale += t.stale;
  }
  std::uint64_t bytes = 0;
  std::int64_t oldest = 0, newest = 0;
  std::size_t unreadable = 0;
  for (const auto& e : entries) {
    unreadable += !e.readable;
    if (!e.readable) continue;  // size and last use unknown
    bytes += e.bytes;
    if (oldest == 0 || e.last_used < oldest) oldest = e.last_used;
    newest = std::max(newest, e.last_used);
  }
  if (json) {
    std::cout << json_text({{"dir", cache.dir().string()}, {"entries", entries.size()}, {"bytes", bytes},
                            {"unreadable_entries", unreadable}, {"oldest_use", oldest}, {"newest_use", newest},
                            {"temp_files", temps.size()}, {"temp_bytes", temp_bytes}, {"stale_temp_files", stale}})
              << "\n";
    return 0;
  }
  std::printf("directory: %s\nentries:   %zu\nbytes:     %llu (%s)\n", cache.dir().c_str(), entries.size(),
              static_cast<unsigned long long>(bytes), human_bytes(bytes).c_str());
  if (unreadable > 0) std::printf("unreadable: %zu entries (their bytes are not counted)\n", unreadable);
  if (!temps.empty())
    std::printf("temp files: %zu (%s), %zu of them stale (left by writers that died; prune removes them)\n",
                temps.size(), human_bytes(temp_bytes).c_str(), stale);
  if (newest > 0)
    std::printf("last used: newest %s ago, oldest %s ago\n", human_age(newest).c_str(), human_age(oldest).c_str());
  return 0;
}

int cmd_verify(DiskCache& cache, bool json, bool remove) {
  auto result = cache.verify(remove);
  if (json) {
    nlohmann::json bad = nlohmann::json::array();
    for (const auto& b : result.bad) {
      nlohmann::json item{{"key", b.key}, {"reason", b.reason}};
      if (remove) item["removed"] = b.removed;
      if (!b.remove_error.empty()) item["remove_error"] = b.remove_error;
      bad.push_back(std::move(item));
    }
    std::cout << json_text({{"valid", result.valid}, {"bad", bad}}) << "\n";
  } else {
    for (const auto& b : result.bad) {
      std::string outcome = !remove ? "" : b.removed ? " (removed)" : " (not removed: " + b.remove_error + ")";
      std::printf("bad: %s: %s%s\n", b.key.c_str(), b.reason.c_str(), outcome.c_str());
    }
    std::printf("%zu valid, %zu bad\n", result.valid, result.bad.size());
  }
  return result.bad.empty() ? 0 : 1;
}

int cmd_export(DiskCache& cache, bool json, const std::string& bundle, const std::vector<std::string>& keys) {
  std::size_t skipped = 0;
  const auto entries = cache.read_entries(keys, &skipped);
  croq::jit::write_bundle(bundle, entries);
  std::uint64_t bytes = 0;
  for (const auto& e : entries) bytes += e.cubin.size();
  if (json) {
    std::cout << json_text({{"bundle", bundle}, {"entries", entries.size()}, {"skipped", skipped},
                            {"image_bytes", bytes}})
              << "\n";
  } else {
    std::printf("exported %zu entries (%s of images) to %s\n", entries.size(), human_bytes(bytes).c_str(),
                bundle.c_str());
    if (skipped > 0) std::printf("skipped %zu invalid entries (see `croq-cache verify`)\n", skipped);
  }
  return 0;
}

int cmd_import(DiskCache& cache, bool json, const std::string& bundle) {
  const auto entries = croq::jit::read_bundle(bundle);
  const std::size_t added = cache.add_entries(entries);
  if (json) {
    std::cout << json_text({{"bundle", bundle}, {"entries", entries.size()}, {"added", added}}) << "\n";
  } else {
    std::printf("imported %zu of %zu entries into %s (%zu were there already)\n", added, entries.size(),
                cache.dir().c_str(), entries.size() - added);
  }
  return 0;
}

struct Command {
  std::string name, operand, max_bytes;
  std::vector<std::string> keys;
  bool json = false, remove = false;
};

int run(DiskCache& cache, const Command& c) {
  if (c.name == "ls") return cmd_ls(cache, c.json);
  if (c.name == "stats") return cmd_stats(cache, c.json);
  if (c.name == "verify") return cmd_verify(cache, c.json, c.remove);
  if (c.name == "export") return cmd_export(cache, c.json, c.operand, c.keys);
  if (c.name == "import") return cmd_import(cache, c.json, c.operand);
  if (c.name == "prune") {
    std::uint64_t removed = cache.prune(croq::support::parse_byte_count(c.max_bytes, "--max-bytes"));
    std::printf("removed %s\n", human_bytes(removed).c_str());
    return 0;
  }
  const croq::jit::ClearResult removed = cache.clear();
  std::printf("removed %zu entries and %zu temp files\n", removed.entries, removed.temp_files);
  return 0;
}

int usage(const std::string& problem) {
  std::cerr << "croq-cache: " << problem << "\n" << kUsage;
  return 2;
}

// The command's status, made 1 when its output did not all reach standard
// output (a full disk, a closed pipe): every write is checked through the
// stream's error state, then the flush and the close.
int finish(int status) {
  std::string problem = croq::cli::flush_stdout();
  if (problem.empty() && std::fclose(stdout) != 0) problem = "cannot write to standard output";
  if (problem.empty()) return status;
  std::cerr << "croq-cache: " << problem << "\n";
  return status == 0 ? 1 : status;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Command c;
  std::string dir;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") { std::cout << kUsage; return finish(0); }
    if (a == "--json") c.json = true;
    else if (a == "--remove") c.remove = true;
    else if (a == "--dir" && i + 1 < args.size()) dir = args[++i];
    else if (a == "--max-bytes" && i + 1 < args.size()) c.max_bytes = args[++i];
    else if (a == "--key" && i + 1 < args.size()) c.keys.push_back(args[++i]);
    else if (c.name.empty() && !a.empty() && a[0] != '-') c.name = a;
    else if ((c.name == "export" || c.name == "import") && c.operand.empty() && !a.empty() && a[0] != '-') c.operand = a;
    else return usage("unexpected argument `" + a + "`");
  }
  if (c.name.empty()) { std::cerr << kUsage; return 2; }
  const std::vector<std::string> known{"ls", "stats", "verify", "prune", "clear", "export", "import"};
  if (std::find(known.begin(), known.end(), c.name) == known.end()) return usage("unknown command `" + c.name + "`");
  if (c.name == "prune" && c.max_bytes.empty()) return usage("prune needs --max-bytes N");
  if ((c.name == "export" || c.name == "import") && c.operand.empty()) return usage(c.name + " needs a BUNDLE file");
  if (!c.keys.empty() && c.name != "export") return usage("--key goes with export");
  int status = 1;
  try {
    DiskCacheSettings settings = DiskCacheSettings::from_environment();
    if (!dir.empty()) settings.dir = dir;
    if (settings.dir.empty()) {
      std::cerr << "croq-cache: no cache directory (set CROQ_CACHE_DIR or HOME)\n";
      return finish(1);
    }
    settings.enabled = true;
    DiskCache cache(settings);
    status = run(cache, c);
  } catch (const croq::Error& e) {
    std::cerr << "croq-cache: " << e.what() << "\n";
  } catch (const std::exception& e) {  // a bug, but report it rather than abort
    std::cerr << "croq-cache: internal error: " << e.what() << "\n";
  }
  return finish(status);
}
