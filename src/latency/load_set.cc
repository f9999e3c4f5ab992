#include "latency/load_set.h"

#include <pthread.h>
#include <sched.h>

#include <cerrno>

namespace rtagent {

LoadSet::LoadSet(const SysRoot& root, std::chrono::milliseconds sample_period)
    : root_(root), period_(sample_period), tracker_(root) {}

LoadSet::~LoadSet() { Stop(); }

void LoadSet::Add(std::unique_ptr<Load> load, CpuSet cpus) {
  loads_.push_back(std::move(load));
  cpus_.push_back(std::move(cpus));
}

Result<void> LoadSet::Start(const CpuSet& housekeeping, const CpuSet& measured) {
  if (running_) return MakeError("the loads are already running", EBUSY);
  if (!root_.IsLive()) return InvalidInput("loads run only on the live system, not under " + root_.Dir());
  if (housekeeping.Empty()) return InvalidInput("no housekeeping CPU to run the loads on");
  if (housekeeping.Intersects(measured)) {
    return InvalidInput("housekeeping CPUs " + housekeeping.ToList() + " include measured CPUs " +
                            housekeeping.Intersect(measured).ToList() + ": the loads would run where the sampler measures");
  }
  for (size_t i = 0; i < loads_.size(); ++i) {
    if (cpus_[i].Intersects(measured)) {
      return InvalidInput("load '" + loads_[i]->Name() + "' is placed on measured CPUs " +
                              cpus_[i].Intersect(measured).ToList());
    }
  }
  measured_ = measured;
  for (size_t i = 0; i < loads_.size(); ++i) {
    auto started = loads_[i]->Start(cpus_[i].Empty() ? housekeeping : cpus_[i]);
    if (!started) {
      for (auto& other : loads_) other->Stop();
      return started.error();
    }
  }
  running_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tracker_.Clear();
    watch_ids_.clear();
    for (auto& load : loads_) watch_ids_.push_back(tracker_.Watch(load->RootPid(), {load->RootPid(), load->WorkGroup()}));
    tracker_.Sample();
    stop_ = false;
  }
  sampler_ = std::thread([this, housekeeping] { SampleLoop(housekeeping); });
  return Ok();
}

void LoadSet::SampleLoop(CpuSet housekeeping) {
  // The sampling thread is the agent's, so it is placed like a load: housekeeping CPUs,
  // SCHED_OTHER, whatever the thread that started the run was.
  sched_param sp{};
  ::pthread_setschedparam(::pthread_self(), SCHED_OTHER, &sp);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : housekeeping.Cpus()) {
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period_, [this] { return stop_; })) tracker_.Sample();
}

void LoadSet::Stop() {
  if (!running_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (sampler_.joinable()) sampler_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    tracker_.Sample();  // the last look, while every load still runs
  }
  for (auto& load : loads_) load->RequestStop();  // all at once: a stop costs one load's time
  for (auto& load : loads_) load->Stop();
  running_ = false;
}

std::vector<std::string> LoadSet::EndedEarly() const {
  std::vector<std::string> out;
  for (const auto& load : loads_) {
    if (load->EndedEarly()) out.push_back(load->Name());
  }
  return out;
}

std::vector<LoadReport> LoadSet::Reports() const {
  std::vector<LoadReport> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < loads_.size(); ++i) {
    LoadReport r = loads_[i]->Report();
    if (i < watch_ids_.size()) r.placement = tracker_.Placement(watch_ids_[i]);
    r.placement.measured = measured_;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> LoadSet::Problems() const {
  std::vector<std::string> out;
  for (const LoadReport& r : Reports()) {
    std::string who = "load '" + r.name + "': ";
    if (!r.PlacementProven()) out.push_back(who + r.PlacementSummary());
    if (r.ended_early && r.errors.empty()) out.push_back(who + "ended before the run did" + (r.exit.empty() ? "" : " (" + r.exit + ")"));
    for (const auto& e : r.errors) out.push_back(who + e);
  }
  return out;
}

}  // namespace rtagent
