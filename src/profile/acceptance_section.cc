// acceptance (Chapter 5, "Measuring the worst case"; issue 5): the loaded latency test, its
// pass criteria and the loads that push against it.
#include <filesystem>

#include "profile/sections.h"

namespace rtagent::profile {
namespace {

constexpr IntRange kLimitUs{1, 100000000};

const Section<Load>& BuiltinLoadSection() {
  static const Section<Load> kSection{
      "acceptance.loads.builtin[]",
      {
          // Read by the list (below), before the other keys.
          Custom<Load>("name", ChoiceType(BuiltinLoadChoices()), "required", "`cache`: compute over a buffer", nullptr),
          Cpus("cpus", &Load::cpus, CpuKeywords{}, std::nullopt, "placement").Fallback("`acceptance.loads.cpus`"),
          Int("workers", &Load::workers, {1, 4096}, std::nullopt, "tasks").Fallback("one per CPU"),
      }};
  return kSection;
}

// A builtin load is a name or a mapping with the name and its placement.
void ReadBuiltinLoads(LoadContext& c, AcceptanceConfig& a, const YamlNode& node, const std::string& what) {
  FieldReader& r = c.reader();
  if (!node.IsSequence()) {
    r.WrongType(node, what, "a list", "write [cache, messaging] or a list of {name, cpus, workers}");
    return;
  }
  const Section<Load>& item_keys = BuiltinLoadSection();
  const std::string item_what = what + "[]";
  for (const YamlNode& item : node.items) {
    Load l;
    l.mark = item.mark;
    l.cpus.value = a.load_cpus.value;
    const YamlNode* name = &item;
    if (item.IsMap()) {
      if (!r.Map(item, item_keys.Names(), item_what)) continue;
      name = Field(&item, "name");
      if (name == nullptr) {
        c.diags().Error(item.mark, "a builtin load needs a 'name'", "name one of: " + JoinChoices(BuiltinLoadChoices()));
        continue;
      }
      item_keys.Walk(c, l, &item, item_what);
    }
    auto i = r.Choice(*name, item_what, BuiltinLoadChoices());
    if (!i) continue;
    l.kind = static_cast<BuiltinLoad>(*i);
    l.name = BuiltinLoadChoices()[static_cast<size_t>(*i)];
    a.loads.push_back(std::move(l));
  }
}

const Section<Load>& ExternalLoadSection() {
  static const Section<Load> kSection{
      "acceptance.loads.external[]",
      {
          Custom<Load>("name", "string", "the program's name", "label in reports",
                       [](LoadContext& c, Load& l, const YamlNode* v, const std::string& what) {
                         if (v == nullptr) return;
                         if (auto s = c.reader().String(*v, what)) l.name = *s;
                       }),
          // Read by the list (below), before the other keys.
          Custom<Load>("argv", "list of strings", "required",
                       "the command, run without a shell in its own process group", nullptr),
          Cpus("cpus", &Load::cpus, CpuKeywords{}, std::nullopt, "placement").Fallback("`acceptance.loads.cpus`"),
      }};
  return kSection;
}

// An external load is a command run without a shell: argv first, the rest optional.
void ReadExternalLoads(LoadContext& c, AcceptanceConfig& a, const YamlNode& node, const std::string& what) {
  FieldReader& r = c.reader();
  if (!node.IsSequence()) {
    r.WrongType(node, what, "a list", "write one '- argv: [stress-ng, --cpu, \"1\"]' per load");
    return;
  }
  const Section<Load>& item_keys = ExternalLoadSection();
  const std::string item_what = what + "[]";
  for (const YamlNode& item : node.items) {
    if (!r.Map(item, item_keys.Names(), item_what)) continue;
    Load l;
    l.builtin = false;
    l.mark = item.mark;
    l.cpus.value = a.load_cpus.value;
    const YamlNode* argv = Field(&item, "argv");
    if (argv == nullptr) {
      c.diags().Error(item.mark, "an external load needs 'argv'",
                      "give the command as a list, run without a shell: argv: [stress-ng, --vm, \"2\"]");
      continue;
    }
    auto list = r.StringList(*argv, item_what + ".argv", false);
    if (!list) continue;
    if (list->empty() || list->front().empty()) {
      c.diags().Error(argv->mark, "'" + item_what + ".argv' is empty", "name the program to run first");
      continue;
    }
    l.argv = *list;
    l.name = std::filesystem::path(l.argv.front()).filename().string();
    item_keys.Walk(c, l, &item, item_what);
    a.loads.push_back(std::move(l));
  }
}

// acceptance.loads: where loads run by default, and the loads. Its keys fill the acceptance
// section itself (load_cpus, loads).
const Section<AcceptanceConfig>& LoadsSection() {
  static const Section<AcceptanceConfig> kSection{
      "acceptance.loads",
      {
          Cpus("cpus", &AcceptanceConfig::load_cpus, CpuKeywords{}, HousekeepingCpus(), "default placement of every load"),
          Custom<AcceptanceConfig>("builtin", "list", "`[]`", "built-in loads by name, or mappings below",
                                   [](LoadContext& c, AcceptanceConfig& a, const YamlNode* v, const std::string& what) {
                                     if (v != nullptr) ReadBuiltinLoads(c, a, *v, what);
                                   })
              .Holding(BuiltinLoadSection()),
          Custom<AcceptanceConfig>("external", "list of mappings", "`[]`", "commands run during the test",
                                   [](LoadContext& c, AcceptanceConfig& a, const YamlNode* v, const std::string& what) {
                                     if (v != nullptr) ReadExternalLoads(c, a, *v, what);
                                   })
              .Holding(ExternalLoadSection()),
      }};
  return kSection;
}

// What no single criterion shows: a run too short for its interval or its sample count, limits
// that can never bind, loads on the measured CPUs.
void CheckCriteria(const CrossCheck& cc, const AcceptanceConfig& a) {
  Diagnostics& d = cc.diags();
  if (a.cpus->cpus.Empty()) {
    d.Error(cc.At({a.cpus.mark, cc.profile().cores.isolated.mark}), "acceptance measures no CPU",
            "measure at least one CPU: 'cpus: isolated'");
  }
  auto interval = std::chrono::microseconds(*a.interval_us);
  if (interval >= *a.duration) {
    d.Error(cc.At({a.interval_us.mark, a.duration.mark}),
            "acceptance.interval_us " + std::to_string(*a.interval_us) + " is not shorter than the duration " +
                FormatDuration(*a.duration),
            "a run takes many wake-ups: lengthen the duration or shorten the interval");
  }
  long long possible = a.WakeupsIn(*a.duration);
  if (*a.min_samples > possible) {
    d.Error(cc.At({a.min_samples.mark}),
            "acceptance.min_samples " + std::to_string(*a.min_samples) + " cannot be reached: " +
                FormatDuration(*a.duration) + " at " + std::to_string(*a.interval_us) + " us gives " +
                std::to_string(possible) + " wake-ups per CPU",
            a.DurationForMinSamples() == Duration::max()
                ? "lower min_samples: at this interval no run could last long enough (more than 292 years)"
                : "lengthen the duration to at least " + FormatDuration(a.DurationForMinSamples()) + " or lower min_samples");
  }
}

// A lower percentile with a looser limit than a higher one never binds.
void CheckLimits(const CrossCheck& cc, const AcceptanceConfig& a) {
  const std::vector<std::pair<const char*, const Marked<std::optional<int>>*>> limits = {
      {"p50_us", &a.p50_us}, {"p90_us", &a.p90_us}, {"p99_us", &a.p99_us},
      {"p99_9_us", &a.p99_9_us}, {"p99_99_us", &a.p99_99_us}, {"max_us", &a.max_us}};
  for (size_t i = 0; i < limits.size(); ++i) {
    const auto& lo = *limits[i].second;
    if (!lo->has_value()) continue;
    for (size_t j = i + 1; j < limits.size(); ++j) {
      const auto& hi = *limits[j].second;
      if (hi->has_value() && **lo > **hi) {
        cc.diags().Warning(lo.mark, std::string("acceptance.") + limits[i].first + " (" + std::to_string(**lo) + ") is above " +
                                        limits[j].first + " (" + std::to_string(**hi) + "), so it can never be the limit that fails",
                           "limits should grow with the percentile: p50 <= p90 <= p99 <= p99_9 <= max");
        break;
      }
    }
  }
  if (a.max_us->has_value() && **a.max_us > *a.histogram_limit_us) {
    cc.diags().Warning(a.max_us.mark,
                       "acceptance.max_us " + std::to_string(**a.max_us) + " is above histogram_limit_us " +
                           std::to_string(*a.histogram_limit_us) +
                           ": a wake-up past the histogram overflows and fails the run first",
                       "raise histogram_limit_us to at least max_us");
  }
}

void CheckLoads(const CrossCheck& cc, const AcceptanceConfig& a) {
  for (const Load& l : a.loads) {
    CpuSet on_measured = l.cpus->cpus.Intersect(a.cpus->cpus);
    if (l.cpus->cpus.Empty()) {
      if (cc.Cascade(*l.cpus)) continue;
      cc.diags().Error(cc.At({l.cpus.mark, l.mark}),
                       "load '" + l.name + "' is placed on no CPU (" + l.cpus->text + " is empty here)",
                       "place loads on housekeeping CPUs: 'cpus: housekeeping'");
    } else if (!on_measured.Empty() && !cc.Isolated().Empty()) {
      cc.diags().Warning(cc.At({l.cpus.mark, a.load_cpus.mark, l.mark}),
                         "load '" + l.name + "' runs on measured CPU " + on_measured.ToList(),
                         "loads belong on housekeeping CPUs; a load on a measured CPU measures the load, not the tuning");
    }
  }
}

}  // namespace

const Section<AcceptanceConfig>& AcceptanceSection() {
  static const Section<AcceptanceConfig> kSection{
      "acceptance",
      {
          Dur("duration", &AcceptanceConfig::duration, std::chrono::seconds(1), std::chrono::minutes(1),
              "length of the run"),
          Int("interval_us", &AcceptanceConfig::interval_us, {10, 10000000}, 1000, "the beat"),
          Int("priority", &AcceptanceConfig::priority, {1, 99}, 90, "the sampler's SCHED_FIFO priority"),
          Cpus("cpus", &AcceptanceConfig::cpus, CpuKeywords{}, IsolatedOrAllCpus(), "measured CPUs"),
          Int("histogram_limit_us", &AcceptanceConfig::histogram_limit_us, {1, 10000000}, 1000, "last 1 us bin"),
          OptInt("max_us", &AcceptanceConfig::max_us, kLimitUs, "none", "limit on the worst wake-up"),
          OptInt("p50_us", &AcceptanceConfig::p50_us, kLimitUs, "none", "limit on the median"),
          OptInt("p90_us", &AcceptanceConfig::p90_us, kLimitUs, "none", "limit on the 90th percentile"),
          OptInt("p99_us", &AcceptanceConfig::p99_us, kLimitUs, "none", "limit on the 99th percentile"),
          OptInt("p99_9_us", &AcceptanceConfig::p99_9_us, kLimitUs, "none", "limit on the 99.9th percentile"),
          OptInt("p99_99_us", &AcceptanceConfig::p99_99_us, kLimitUs, "none", "limit on the 99.99th percentile"),
          Int("min_samples", &AcceptanceConfig::min_samples, {0, 1000000000000000LL}, 0LL,
              "wake-ups each CPU must reach"),
          OptInt("pm_qos_us", &AcceptanceConfig::pm_qos_us, {0, 2000000000}, "none", "the sampler's own PM QoS note"),
          Nested("loads", LoadsSection(), "the loads that push against the test"),
          Choice("explain", &AcceptanceConfig::explain, ExplainWhenNames(), ExplainWhen::kOnBreach,
                 "record the kernel's tracers during the run and say why the worst wake-up was late"),
      },
      {CheckCriteria, CheckLimits, CheckLoads}};
  return kSection;
}

}  // namespace rtagent::profile
