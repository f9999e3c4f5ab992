// The sections the profile declares itself: the ones several layers read, and cores, which
// every CPU-list keyword resolves against. Each is declared, keys and cross-checks together,
// in profile/<name>_section.cc; language.cc puts them at the top level with the sections and
// blocks the tuners and checks declare for themselves (keys.h, Block).
#pragma once

#include "profile/keys.h"

namespace rtagent::profile {

const Section<CoresConfig>& CoresSection();            ///< cores_section.cc (Chapter 6)
const Section<IrqsConfig>& IrqsSection();              ///< irqs_section.cc (Chapters 3 and 6)
const Section<RanksConfig>& RanksSection();            ///< ranks_section.cc (Chapters 2 and 4)
const Key<Profile>& PartitionsKey();                   ///< partitions_section.cc (Chapter 6)
const Section<PowerConfig>& PowerSection();            ///< power_section.cc (Chapter 7)
const Section<KernelConfig>& KernelSection();          ///< kernel_section.cc (Chapters 2 and 4)
const Section<AcceptanceConfig>& AcceptanceSection();  ///< acceptance_section.cc (Chapter 5)
const Section<ServiceConfig>& ServiceSection();        ///< service_section.cc (issue 6)
/// checks.suite: a built-in suite or a suite file (the checks' own blocks join it, language.cc).
Key<ChecksConfig> SuiteKey();

}  // namespace rtagent::profile
