#include "inspect/boot_files.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace rtagent;

namespace {

// Built at start-up from the boot file names, as fuzz/bootfile_fuzz.cc's table of kinds is. The
// names are defined in another file (boot_files.cc), whose object the linker places after this
// one: without their init_priority this table copied them before they were made, empty, and
// every boot file edit the fuzzer journaled had an empty key (CI of 84a8789).
const std::vector<std::string> kSeenAtStart = {bootpath::kGrubDefault, bootpath::kExtlinux, bootpath::kRpiCmdline};
const std::vector<std::string> kDirsSeenAtStart = bootpath::kLoaderDirs;

}  // namespace

TEST_CASE("the boot file names are made before any other file's start-up code reads them", "[inspect][boot]") {
  CHECK(kSeenAtStart == std::vector<std::string>{"etc/default/grub", "boot/extlinux/extlinux.conf", "boot/firmware/cmdline.txt"});
  CHECK(kDirsSeenAtStart == std::vector<std::string>{"boot/loader", "efi/loader", "boot/efi/loader"});
}
