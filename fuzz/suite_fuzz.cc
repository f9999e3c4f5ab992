// A check suite file (check/runner.h ParseSuite): `rtagent verify --suite FILE` reads it.
#include "check/check.h"
#include "check/runner.h"
#include "fuzz/fuzz_support.h"

using namespace rtagent;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  check::DeclareProfileLanguage();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)check::ParseSuite(std::string(fuzz::Text(data, size)), "fuzz-suite.yaml");
  return 0;
}
