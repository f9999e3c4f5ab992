#include "inspect/power.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>

using namespace rtagent;

static std::string Binary(int32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}

TEST_CASE("cpu_dma_latency: the live binary value and fixture text", "[inspect]") {
  CHECK(ParseCpuDmaLatency(Binary(2000000000)) == 2000000000);
  CHECK(ParseCpuDmaLatency(Binary(0)) == 0);
  CHECK(ParseCpuDmaLatency(Binary(50)) == 50);  // "2\0\0\0": a NUL means binary, not "2"
  CHECK(ParseCpuDmaLatency("2000000000\n") == 2000000000);
  CHECK(ParseCpuDmaLatency("0\n") == 0);
  CHECK_FALSE(ParseCpuDmaLatency("abc").has_value());
  CHECK_FALSE(ParseCpuDmaLatency("").has_value());
}
