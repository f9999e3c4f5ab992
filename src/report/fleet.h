// `rtagent report --fleet DIR`: many hosts' verdicts (the files a fleet's Ansible run or a board
// farm brings back) summarised: pass or fail per host, each host's worst case and the fleet's,
// and the hosts whose kernel or profile is not the one most of the fleet runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "report/verdict.h"

namespace rtagent {

/// One file found under the fleet's directory: a verdict, or why it is not one.
struct FleetFile {
  std::string path;
  Result<Verdict> verdict;
};

/// One host: its newest verdict.
struct FleetHost {
  std::string host;           ///< the verdict's host name; "unknown (PATH)" when the file does not say
  std::string path;           ///< the newest verdict's file
  std::string started_at;     ///< ISO 8601 UTC
  bool pass = false;
  std::optional<int64_t> worst_ns;  ///< the worst wake-up of any CPU; nullopt without samples
  std::optional<int> worst_cpu;
  std::optional<uint32_t> worst_p99_us;  ///< the largest p99 of a CPU (nullopt when none is known)
  bool p99_beyond_limit = false;         ///< a CPU's p99 lies beyond its histogram's limit
  uint64_t overflows = 0;
  std::optional<std::string> kernel;     ///< release; nullopt when the file does not say
  std::optional<bool> preempt_rt;
  std::optional<bool> virtual_machine;
  std::string profile;                   ///< name
  std::string profile_digest;
  std::vector<std::string> failed;       ///< "CPU 2: max", ... (the failed criteria, by role)
  int older = 0;                         ///< further verdicts of this host, older than this one
};

/// A fact that is not the same on every host.
struct FleetDifference {
  std::string fact;                 ///< "kernel", "profile"
  std::string common;               ///< the value most hosts have
  int common_hosts = 0;
  std::vector<std::pair<std::string, std::string>> others;  ///< host, its value
};

struct FleetSummary {
  std::string dir;
  std::vector<FleetHost> hosts;     ///< by host name
  int passed = 0, failed = 0;
  std::optional<size_t> worst;      ///< index of the host with the fleet's worst wake-up
  std::vector<FleetDifference> differences;
  std::vector<std::pair<std::string, std::string>> unread;  ///< path, why it is not a verdict
};

/// The summary of the files: the newest verdict per host, the counts, the worst host, the
/// differences. Files that are not verdicts are listed in `unread`.
FleetSummary SummarizeFleet(const std::string& dir, const std::vector<FleetFile>& files);

std::string RenderFleetMarkdown(const FleetSummary& f);
std::string RenderFleetJson(const FleetSummary& f);
/// One test case per host, failed when its verdict failed (the failed criteria in the message).
std::string RenderFleetJUnit(const FleetSummary& f);

}  // namespace rtagent
