#include "check/kernel_log.h"

#include <sys/klog.h>

#include <cerrno>

#include "base/kernel_paths.h"

namespace rtagent::check {
namespace {
// include/linux/syslog.h (not exported to user space).
constexpr int kSyslogActionReadAll = 3;
constexpr int kSyslogActionSizeBuffer = 10;
}  // namespace

Result<std::string> ReadKernelLog(const SysRoot& root) {
  if (!root.IsLive()) {
    auto text = root.Read(kpath::kKmsg);
    if (!text) return Wrap("the kernel log cannot be read: ", text.error());
    return *text;
  }
  int size = ::klogctl(kSyslogActionSizeBuffer, nullptr, 0);
  if (size < 0) return MakeError("the kernel log cannot be read (syslog(2) SYSLOG_ACTION_SIZE_BUFFER)", errno);
  std::string buf(static_cast<size_t>(size > 0 ? size : 1 << 17), '\0');
  int n = ::klogctl(kSyslogActionReadAll, buf.data(), static_cast<int>(buf.size()));
  if (n < 0) {
    return MakeError("the kernel log cannot be read (syslog(2) SYSLOG_ACTION_READ_ALL; kernel.dmesg_restrict "
                     "needs CAP_SYSLOG)",
                     errno);
  }
  buf.resize(static_cast<size_t>(n));
  return buf;
}

}  // namespace rtagent::check
