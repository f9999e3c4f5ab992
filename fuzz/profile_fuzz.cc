// The profile loader (profile/loader.h): YAML text, its includes (resolved in the repository's
// profiles/ directory, so `include: base/...` reads the fixtures there), the declared keys of
// every section, CPU keywords resolved against a 4-CPU system, and the diagnostics rendered
// as `rtagent validate` prints them.
#include "check/check.h"
#include "fuzz/fuzz_support.h"
#include "profile/loader.h"

using namespace rtagent;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  check::DeclareProfileLanguage();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::Text(data, size));
  profile::SystemCpus cpus;
  cpus.possible = CpuSet::Range(0, 3);
  cpus.online = cpus.possible;
  profile::Diagnostics diags;
  auto p = profile::LoadProfileText(text, "fuzz.yaml", RTAGENT_SOURCE_DIR "/profiles", cpus, &diags);
  (void)p;
  (void)diags.FormatText();
  (void)diags.FormatJsonArray();
  return 0;
}
