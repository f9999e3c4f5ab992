#include "bench/mqueue_limit.h"

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent::bench {
namespace {

const char kMsgsizeMax[] = "msgsize_max";

}  // namespace

MqueueLimit RaiseMqueueLimit(SysRoot& root, uint32_t bytes) {
  MqueueLimit out;
  const std::string dir = kpath::Sysctl("fs.mqueue");
  const std::string sysctl = "fs.mqueue.msgsize_max";
  auto taken = FileLease::Take(root, dir, {kMsgsizeMax});
  if (!taken) {
    out.note = "cannot read " + sysctl + " (" + taken.error().message + "): queue messages above it are skipped";
    return out;
  }
  if (!taken->Has(kMsgsizeMax)) {
    out.note = "no " + sysctl + " on this kernel (CONFIG_POSIX_MQUEUE off?): the message-queue tests are skipped";
    return out;
  }
  const std::string old = taken->Saved(kMsgsizeMax);
  if (auto now = ParseInt(old); now && *now >= static_cast<long long>(bytes)) return out;
  if (auto set = taken->Set(kMsgsizeMax, std::to_string(bytes)); !set) {
    out.note = sysctl + " is " + old + " and could not be raised to " + std::to_string(bytes) + " (" +
               set.error().message + "): queue messages above " + old + " bytes are skipped";
    return out;  // the lease goes out of scope here and puts back whatever the write changed
  }
  out.note = sysctl + " raised from " + old + " to " + std::to_string(bytes) +
             " for the run (queue messages up to " + std::to_string(bytes) + " bytes), put back after it";
  out.lease.emplace(std::move(*taken));
  return out;
}

}  // namespace rtagent::bench
