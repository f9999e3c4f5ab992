// service (issue 6): the `hold` daemon that applies the profile at boot and keeps it.
#include <filesystem>

#include "profile/sections.h"

namespace rtagent::profile {
namespace {

void ReadTextfile(LoadContext& c, ServiceConfig& s, const YamlNode* v, const std::string& what) {
  if (v == nullptr) return;
  auto path = c.reader().String(*v, what);
  if (!path) return;
  if (path->empty() || path->front() != '/' || std::filesystem::path(*path).extension() != ".prom") {
    c.diags().Error(v->mark, "'" + what + "' must be an absolute path ending in .prom, got \"" + *path + "\"",
                    "node_exporter's textfile collector reads *.prom files from its directory, e.g. "
                    "/var/lib/prometheus/node-exporter/rtagent.prom");
    return;
  }
  Assign(&s.prometheus_textfile, std::optional<std::string>(*path), v->mark);
}

void CheckServiceCpus(const CrossCheck& cc, const ServiceConfig& s) {
  CpuSet on_iso = s.cpus->cpus.Intersect(cc.Isolated());
  if (s.cpus.IsSet() && !on_iso.Empty()) {
    cc.diags().Warning(s.cpus.mark, "service.cpus includes isolated CPU " + on_iso.ToList(),
                       "the hold daemon's wake-ups belong on housekeeping CPUs");
  }
  if (s.cpus->cpus.Empty() && !cc.Cascade(*s.cpus)) {
    cc.diags().Error(cc.At({s.cpus.mark}), "service.cpus names no CPU", "use housekeeping");
  }
}

}  // namespace

const Section<ServiceConfig>& ServiceSection() {
  static const Section<ServiceConfig> kSection{
      "service",
      {
          Choice("on_stop", &ServiceConfig::on_stop, OnStopNames(), OnStop::kKeep, "what `hold` does on SIGTERM"),
          Dur("watch_interval", &ServiceConfig::watch_interval, std::chrono::milliseconds(100), std::chrono::seconds(5),
              "how often `hold` looks for drift"),
          Cpus("cpus", &ServiceConfig::cpus, CpuKeywords{}, HousekeepingCpus(), "where the daemon runs")
              .Checked(CheckServiceCpus),
          Custom<ServiceConfig>("prometheus_textfile", "absolute path ending in `.prom`", "none",
                                "node_exporter textfile with held state, drift counts and the last verdict",
                                ReadTextfile),
      }};
  return kSection;
}

}  // namespace rtagent::profile
