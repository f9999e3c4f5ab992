#include "base/result.h"
namespace rtagent {}
