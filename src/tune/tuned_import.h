// `rtagent import tuned`: a TuneD profile (read by profile/tuned_profile.h) written as an
// rtagent profile. One table (TunedMappingTable) says where each TuneD setting goes or why it
// goes nowhere; the importer dispatches by it and docs/migrating-from-tuned.md prints it (a
// test holds the two equal). It sits in tune/ because the keys it writes are the tuners'.
#pragma once

#include <string>
#include <vector>

#include "profile/tuned_profile.h"

namespace rtagent {

/// One row of the mapping: a TuneD setting, the rtagent key that makes it ("" when none), and
/// how (or why not).
struct TunedMappingRow {
  std::string section;  ///< the TuneD plugin: "sysctl", "bootloader"; "*" for any other
  std::string option;   ///< the option, an argument of the command line, or "*" for the rest
  std::string key;      ///< the rtagent key; "" when not mapped
  std::string note;     ///< how it maps, or why it does not
};

/// The mapping, in the order docs/migrating-from-tuned.md lists it.
const std::vector<TunedMappingRow>& TunedMappingTable();

/// The table as the Markdown rows the migration doc holds (header included).
std::string TunedMappingMarkdown();

/// A TuneD setting the importer did not map: which, where, and the table's reason.
struct TunedUnmapped {
  std::string setting;  ///< "[sysfs] /sys/kernel/mm/ksm/run = 2"
  profile::SourceMark mark;
  std::string why;
};

/// The imported profile and what the summary reports.
struct TunedImport {
  std::string yaml;                     ///< the rtagent profile, with a comment per unmapped setting
  int mapped = 0;                       ///< TuneD settings that became rtagent keys
  std::vector<TunedUnmapped> unmapped;  ///< in file order
  std::vector<std::string> notes;       ///< choices the importer made (a CPU list that differs, ...)
};

/// Maps `p` onto rtagent's keys. `system` gives the online CPUs the housekeeping set is taken
/// from. `source` is how the profile was named on the command line, for the header comment.
TunedImport ImportTuned(const profile::TunedProfile& p, const profile::TunedSystem& system);

}  // namespace rtagent
