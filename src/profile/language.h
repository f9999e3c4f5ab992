// The profile language as a whole: the top level (version, include, name, description and the
// sections), put together from the sections the profile declares (sections.h) and the ones the
// tuners and checks declare for themselves (keys.h, Block), which join it once at start-up.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "profile/keys.h"

namespace rtagent::profile {

/// Completes the language with the blocks the layers above declare for themselves: the
/// tuners' sections (read after power, before kernel) and the checks' blocks (under checks),
/// each in its registry's order. Called once, before the first profile loads
/// (check::DeclareProfileLanguage, from main and the tests' main).
void DeclareBlocks(const std::vector<const BlockBase*>& tuner_sections,
                   const std::vector<const CheckBlockBase*>& check_blocks);

/// The top level of a profile, every section below it. Aborts when DeclareBlocks was never
/// called: a profile read without the tuners' and checks' blocks would refuse their keys.
const Section<Profile>& TopLevel();

/// Reports a `version` other than 1 (the only schema there is) to `d`. Run on the merged
/// profile and on each included file, whose own version the merge would hide.
void CheckProfileVersion(Diagnostics& d, const YamlNode& version);

/// Every key of the language with its dotted path ("cores.boot.isolcpus",
/// "irqs.rules.<name>.cpus"), depth first in declaration order: what docs/profile.md documents.
std::vector<std::pair<std::string, KeyDoc>> AllKeys();

}  // namespace rtagent::profile
