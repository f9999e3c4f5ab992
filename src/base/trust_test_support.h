// Test support: the file trust rule enforced for one test case, with the test's own uid
// standing for root's, and the process's rule restored afterwards.
#pragma once

#include <unistd.h>

#include "base/file_trust.h"

namespace rtagent::test {

/// While alive, ProcessFileTrust() is enforced and trusts this process's uid as root.
class EnforcedFileTrust {
 public:
  EnforcedFileTrust() : saved_(ProcessFileTrust()) {
    FileTrust t;
    t.enforce = true;
    t.owner = ::geteuid();
    SetProcessFileTrust(t);
  }
  ~EnforcedFileTrust() { SetProcessFileTrust(saved_); }
  EnforcedFileTrust(const EnforcedFileTrust&) = delete;
  EnforcedFileTrust& operator=(const EnforcedFileTrust&) = delete;

 private:
  FileTrust saved_;
};

}  // namespace rtagent::test
