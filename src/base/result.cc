#include "base/result.h"

#include <cstring>

namespace rtagent {

Error MakeError(std::string message, int err) {
  if (err != 0) {
    message += ": ";
    message += std::strerror(err);
  }
  return Error{std::move(message), err};
}

}  // namespace rtagent
