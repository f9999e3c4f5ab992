// inspect on the machine the tests run on. Needs a live /proc and /sys (any Linux).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/cpuset.h"
#include "inspect/inspect_test_support.h"
#include "inspect/system_state.h"
#include "base/skip_test_support.h"

using namespace rtagent;
using rtagent::testing::RunRtagent;

TEST_CASE("inspect --json on this machine agrees with sysconf", "[inspect][host]") {
  if (!std::filesystem::exists("/sys/devices/system/cpu/online")) {
    RTAGENT_SKIP("needs a live sysfs");
  }
  auto r = RunRtagent("inspect --json");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  CHECK(j["cpus"]["online_count"] == online);
  auto set = CpuSet::ParseList(j["cpus"]["online"].get<std::string>());
  REQUIRE(set.ok());
  CHECK(set->Count() == online);
  CHECK(j["irqs"]["cpu_columns"].size() == static_cast<size_t>(online));
  CHECK_FALSE(j["kernel"]["release"].is_null());
  CHECK(j["threads"]["threads"].get<int>() > 0);
  CHECK(RunRtagent("inspect").code == 0);
}

TEST_CASE("the live collectors find this process's own threads", "[inspect][host]") {
  auto root = OpenRoot("/");
  REQUIRE(root.ok());
  SystemState s = CollectSystemState(**root, {Section::kThreads});
  REQUIRE(s.threads);
  CHECK(s.threads->processes > 1);
  CHECK(s.threads->threads >= s.threads->processes);
  CHECK_FALSE(s.kernel.has_value());  // only the section asked for
}
