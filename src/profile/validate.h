// Validation across sections: what no single value shows (overlapping CPU sets, a rank order
// the priorities contradict, a safety net removed while the profile says keep it).
#pragma once

#include "profile/diagnostics.h"
#include "profile/model.h"

namespace rtagent::profile {

/// Reports every contradiction in `p` to `diags` as errors (the profile must not be applied)
/// or warnings (it may be, but a Field Guide rule says it is probably wrong).
void ValidateProfile(const Profile& p, Diagnostics* diags);

}  // namespace rtagent::profile
