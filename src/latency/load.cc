#include "latency/load.h"

namespace rtagent {
namespace {

std::string Cpus(const CpuSet& set) { return (set.Count() == 1 ? "CPU " : "CPUs ") + set.ToList(); }

}  // namespace

CpuSet LoadReport::Leaked() const { return placement.seen.Minus(cpus_asked); }

CpuSet LoadReport::OnMeasured() const { return placement.seen.Intersect(placement.measured); }

bool LoadReport::PlacementProven() const {
  return placement.samples > 0 && Leaked().Empty() && OnMeasured().Empty();
}

std::string LoadReport::PlacementSummary() const {
  std::string asked = "(asked " + cpus_asked.ToList() + ")";
  if (placement.samples == 0) return "not sampled " + asked;
  std::string s = "ran on " + placement.seen.ToList() + " " + asked;
  CpuSet measured = OnMeasured();
  CpuSet elsewhere = Leaked().Minus(measured);
  std::vector<std::string> leaks;
  if (!measured.Empty()) leaks.push_back("LEAK onto measured " + Cpus(measured));
  if (!elsewhere.Empty()) leaks.push_back("ran outside its CPUs on " + Cpus(elsewhere));
  for (size_t i = 0; i < leaks.size(); ++i) s += (i == 0 ? ": " : "; ") + leaks[i];
  return s;
}

}  // namespace rtagent
