// The one definition of every kernel path kernel_paths.h declares (see the comment there).
// Compiled alone, never in a unity group (tools/unity_groups.py, ALONE): a group whose earlier
// file included the header would skip it here (#pragma once) and define nothing.
#define RTAGENT_KPATH_DEFINE
#include "base/kernel_paths.h"
