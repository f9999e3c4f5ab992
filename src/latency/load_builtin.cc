// The built-in loads: each a real stressor with the pattern of a known tool or study
// (seed 002, chapter 5: "as busy as its worst day"). Every worker runs until the supervisor
// kills it; nothing here needs to be stopped cooperatively, so a stop takes milliseconds.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "latency/load.h"
#include "latency/load_process.h"

namespace rtagent {
namespace {

using load_internal::LoadBody;
using load_internal::ProcessLoad;
using load_internal::SetDetail;
using load_internal::SharedState;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kCacheFallbackBytes = 64 * kMiB;
constexpr uint64_t kCacheLine = 64;
constexpr size_t kMessageBytes = 100;          // hackbench's DATASIZE
constexpr size_t kTcpChunkBytes = 64 * 1024;   // one send() of the TCP stream
constexpr size_t kUdpDatagramBytes = 1400;     // under a typical MTU, as real traffic is
constexpr uint64_t kDefaultHugePage = 2 * kMiB;

std::string Mib(uint64_t bytes) {
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes / 1024) + " KiB";
}

// Anonymous memory; `shared` maps it MAP_SHARED so workers forked later share one copy.
Result<void*> MapMemory(uint64_t bytes, bool shared) {
  int flags = MAP_ANONYMOUS | (shared ? MAP_SHARED : MAP_PRIVATE);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) return MakeError("cannot map " + Mib(bytes), errno);
  return p;
}

// Writes all of `len` bytes (pipes and stream sockets may take less per call).
Result<void> WriteAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = ::write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return MakeError("write", errno);
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return Ok();
}

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  return a;
}

// Binds a socket to 127.0.0.1 on a port the kernel picks; returns the port.
Result<uint16_t> BindLoopback(int fd) {
  sockaddr_in a = Loopback(0);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return MakeError("cannot bind 127.0.0.1", errno);
  socklen_t len = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return MakeError("getsockname", errno);
  return ntohs(a.sin_port);
}

class BuiltinBody : public LoadBody {
 public:
  std::string Kind() const override { return "builtin"; }
  std::string StaticDetail() const override { return detail_; }

 protected:
  std::string detail_;
};

// --- cache: the 2013 study's calculating load -----------------------------------------
// "a loop reading random places in a block of memory picked deliberately bigger than the
// processor's own cache" (seed 002, chapter 5). Random read-modify-write of whole 64-byte
// lines, so nearly every access misses the last-level cache and evicts someone else's line.
class CacheBody : public BuiltinBody {
 public:
  CacheBody(const BuiltinLoadOptions& o, const SysRoot& root) : o_(o), root_(root) {}
  std::string Pattern() const override {
    return "random read-modify-write of 64-byte lines over a buffer larger than the last-level cache";
  }
  std::string OpsUnit() const override { return "cache lines"; }
  int Workers(const CpuSet& cpus) const override { return o_.workers > 0 ? o_.workers : cpus.Count(); }

  Result<void> Configure(const CpuSet& cpus) override {
    std::string why;
    uint64_t want = o_.cache_buffer_bytes;
    if (want == 0) {
      auto llc = LastLevelCacheBytes(root_, cpus.Cpus().front());
      if (llc) {
        want = 2 * *llc;
        why = "2x the " + Mib(*llc) + " last-level cache";
      } else {
        want = kCacheFallbackBytes;
        why = "last-level cache size unknown (" + llc.error().message + ")";
      }
    } else {
      why = "as configured";
    }
    bytes_ = std::min(want, o_.memory_limit_bytes) / kCacheLine * kCacheLine;
    if (bytes_ < want) why += ", capped at the " + Mib(o_.memory_limit_bytes) + " memory limit";
    detail_ = "buffer " + Mib(bytes_) + " (" + why + ")";
    return Ok();
  }

  Result<void> Prepare(SharedState&, int) override {
    auto p = MapMemory(bytes_, /*shared=*/true);
    if (!p) return Wrap("cache load: ", p.error());
    buffer_ = static_cast<uint64_t*>(*p);
    return Ok();
  }

  Result<void> Run(int index, SharedState& shared, const std::function<void()>& started) override {
    started();
    constexpr uint64_t kBatch = 4096;
    const uint64_t lines = bytes_ / kCacheLine;
    uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(index + 1) | 1;
    for (;;) {
      for (uint64_t k = 0; k < kBatch; ++k) {
        x ^= x << 13;  // xorshift64: cheap, so the time goes to the misses
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t line = static_cast<uint64_t>((static_cast<unsigned __int128>(x) * lines) >> 64);
        buffer_[line * (kCacheLine / sizeof(uint64_t))] += x;
      }
      shared.ops.fetch_add(kBatch, std::memory_order_relaxed);
      shared.bytes.fetch_add(kBatch * kCacheLine, std::memory_order_relaxed);
    }
  }

 private:
  const BuiltinLoadOptions o_;
  const SysRoot& root_;
  uint64_t bytes_ = 0;
  uint64_t* buffer_ = nullptr;
};

// --- messaging: hackbench's pattern ----------------------------------------------------
// Groups of `fds` receivers and `fds` senders; each receiver owns a socketpair (or pipe);
// every sender of a group writes 100-byte messages to every receiver of its group in turn
// (rt-tests src/hackbench/hackbench.c). Here the loop never ends: it runs until stopped.
class MessagingBody : public BuiltinBody {
 public:
  explicit MessagingBody(const BuiltinLoadOptions& o) : o_(o) {
    detail_ = std::to_string(o.messaging_groups) + (o.messaging_groups == 1 ? " group" : " groups") + " of " +
              std::to_string(o.messaging_fds) + " senders and " + std::to_string(o.messaging_fds) + " receivers over " +
              (o.messaging_pipes ? "pipes" : "AF_UNIX socketpairs");
  }
  std::string Pattern() const override {
    return "hackbench: groups of sender and receiver tasks passing 100-byte messages";
  }
  std::string OpsUnit() const override { return "messages"; }
  int Workers(const CpuSet&) const override { return 2 * Receivers(); }

  Result<void> Prepare(SharedState&, int) override {
    for (int i = 0; i < Receivers(); ++i) {
      int fds[2];
      int rc = o_.messaging_pipes ? ::pipe(fds) : ::socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
      if (rc != 0) return MakeError("messaging load: cannot create a channel", errno);
      ends_.push_back({fds[0], fds[1]});  // [0] read by the receiver, [1] written by senders
    }
    return Ok();
  }

  void AfterStart() override { CloseAllBut(-1, -1); }

  Result<void> Run(int index, SharedState& shared, const std::function<void()>& started) override {
    if (index < Receivers()) {
      CloseAllBut(index, -1);
      started();
      return Receive(ends_[static_cast<size_t>(index)].read, shared);
    }
    int group = (index - Receivers()) / o_.messaging_fds;
    CloseAllBut(-1, group);
    started();
    return Send(group);
  }

 private:
  struct Channel {
    int read;
    int write;
  };
  int Receivers() const { return o_.messaging_groups * o_.messaging_fds; }

  // Closes every channel end except receiver `keep_read`'s read end and the write ends of
  // group `keep_group` (-1: none), so EOF and EPIPE mean what they say.
  void CloseAllBut(int keep_read, int keep_group) {
    for (int i = 0; i < Receivers(); ++i) {
      if (i != keep_read) ::close(ends_[static_cast<size_t>(i)].read);
      if (i / o_.messaging_fds != keep_group) ::close(ends_[static_cast<size_t>(i)].write);
    }
  }

  Result<void> Receive(int fd, SharedState& shared) {
    char buf[kMessageBytes];
    size_t partial = 0;
    uint64_t unreported = 0;
    for (;;) {
      ssize_t n = ::read(fd, buf, kMessageBytes - partial);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return MakeError("messaging receiver: read", errno);
      if (n == 0) return MakeError("messaging receiver: every sender went away");
      partial += static_cast<size_t>(n);
      if (partial < kMessageBytes) continue;
      partial = 0;
      if (++unreported == 64) {
        shared.ops.fetch_add(unreported, std::memory_order_relaxed);
        shared.bytes.fetch_add(unreported * kMessageBytes, std::memory_order_relaxed);
        unreported = 0;
      }
    }
  }

  Result<void> Send(int group) {
    char msg[kMessageBytes];
    std::memset(msg, 'm', sizeof msg);
    for (;;) {
      for (int r = group * o_.messaging_fds; r < (group + 1) * o_.messaging_fds; ++r) {
        auto w = WriteAll(ends_[static_cast<size_t>(r)].write, msg, sizeof msg);
        if (!w) return Wrap("messaging sender: ", w.error());
      }
    }
  }

  const BuiltinLoadOptions o_;
  std::vector<Channel> ends_;
};

// --- disk: writes that reach the device --------------------------------------------------
// Like bonnie++ in the 2013 study, "skipping the copy of the disk that the kernel keeps in
// memory": O_DIRECT writes of aligned blocks, wrapping at a bounded file size. Filesystems
// that refuse O_DIRECT (EINVAL at open or at the first write: ramfs, tmpfs before 6.6,
// some FUSE and network filesystems) get buffered writes plus fdatasync after each
// block instead, and the report says so.
class DiskBody : public BuiltinBody {
 public:
  explicit DiskBody(const BuiltinLoadOptions& o) : o_(o) {
    detail_ = Mib(o.disk_block_bytes) + " blocks, " + Mib(o.disk_file_bytes) + " file per worker in " + o.disk_dir;
  }
  std::string Pattern() const override { return "O_DIRECT writes of aligned blocks to an unlinked temporary file"; }
  std::string OpsUnit() const override { return "blocks"; }
  int Workers(const CpuSet&) const override { return o_.workers > 0 ? o_.workers : 1; }
  Result<void> Prepare(SharedState&, int) override { return Ok(); }

  Result<void> Run(int index, SharedState& shared, const std::function<void()>& started) override {
    auto mem = MapMemory(o_.disk_block_bytes, /*shared=*/false);  // page-aligned, as O_DIRECT needs
    if (!mem) return Wrap("disk load: ", mem.error());
    char* buf = static_cast<char*>(*mem);
    std::memset(buf, 0x5a + index, o_.disk_block_bytes);
    std::string path = o_.disk_dir + "/rtagent-load-disk." + std::to_string(::getpid()) + "." + std::to_string(index);

    bool direct = true;
    int refused = 0;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EINVAL) {
      refused = errno;
      direct = false;
      // The file may exist already: the VFS creates it before do_dentry_open() refuses
      // O_DIRECT (fs/open.c), so ramfs leaves an empty file behind the EINVAL. The name
      // holds our pid, so it is ours to remove.
      ::unlink(path.c_str());
      fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    }
    if (fd < 0) return MakeError("disk load: cannot create " + path, errno);
    ssize_t w = ::pwrite(fd, buf, o_.disk_block_bytes, 0);
    if (w < 0 && errno == EINVAL && direct) {
      // Accepted at open, refused at the write (alignment the filesystem will not do).
      refused = errno;
      direct = false;
      ::close(fd);
      fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
      w = fd < 0 ? -1 : ::pwrite(fd, buf, o_.disk_block_bytes, 0);
    }
    int err = errno;
    ::unlink(path.c_str());  // the space goes back when the last descriptor closes, even on SIGKILL
    if (w < 0) return MakeError("disk load: cannot write " + path, err);
    SetDetail(shared, direct ? "O_DIRECT" : std::string("buffered writes + fdatasync (O_DIRECT refused: ") +
                                                 std::strerror(refused) + ")");
    started();
    uint64_t offset = 0;
    for (;;) {
      if (!direct && ::fdatasync(fd) != 0) return MakeError("disk load: fdatasync " + path, errno);
      shared.ops.fetch_add(1, std::memory_order_relaxed);
      shared.bytes.fetch_add(static_cast<uint64_t>(w), std::memory_order_relaxed);
      offset += o_.disk_block_bytes;
      if (offset + o_.disk_block_bytes > o_.disk_file_bytes) offset = 0;
      do {
        w = ::pwrite(fd, buf, o_.disk_block_bytes, static_cast<off_t>(offset));
      } while (w < 0 && errno == EINTR);
      if (w < 0) return MakeError("disk load: cannot write " + path, errno);
    }
  }

 private:
  const BuiltinLoadOptions o_;
};

// --- network: loopback traffic ------------------------------------------------------------
// Senders and receivers in pairs on 127.0.0.1 only (the 2013 study downloaded over the
// local network; loopback keeps the same socket and softirq work without touching a NIC
// or anyone else's network). TCP: a 64 KiB stream; UDP: 1400-byte datagrams.
class NetworkBody : public BuiltinBody {
 public:
  explicit NetworkBody(const BuiltinLoadOptions& o) : o_(o) {
    detail_ = std::to_string(Pairs()) + (Pairs() == 1 ? " pair" : " pairs") + " over " +
              (o.network_udp ? "UDP, 1400-byte datagrams" : "TCP, 64 KiB writes") + " on 127.0.0.1";
  }
  std::string Pattern() const override { return "loopback traffic between senders and receivers on 127.0.0.1"; }
  std::string OpsUnit() const override { return o_.network_udp ? "datagrams sent" : "64 KiB writes"; }
  int Workers(const CpuSet&) const override { return 2 * Pairs(); }

  Result<void> Prepare(SharedState&, int) override {
    if (!o_.network_udp) {
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      if (fd < 0) return MakeError("network load: socket", errno);
      sockets_.push_back(fd);
      auto port = BindLoopback(fd);
      if (!port) return Wrap("network load: ", port.error());
      ports_.push_back(*port);
      if (::listen(fd, Pairs()) != 0) return MakeError("network load: listen", errno);
      return Ok();
    }
    for (int i = 0; i < Pairs(); ++i) {
      int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
      if (fd < 0) return MakeError("network load: socket", errno);
      sockets_.push_back(fd);
      auto port = BindLoopback(fd);
      if (!port) return Wrap("network load: ", port.error());
      ports_.push_back(*port);
    }
    return Ok();
  }

  void AfterStart() override {
    for (int fd : sockets_) ::close(fd);
  }

  Result<void> Run(int index, SharedState& shared, const std::function<void()>& started) override {
    int pair = index / 2;
    bool receiver = index % 2 == 0;  // receivers start first: their socket is ready
    std::vector<char> buf(kTcpChunkBytes, 'n');
    if (receiver) {
      int fd = o_.network_udp ? sockets_[static_cast<size_t>(pair)] : sockets_[0];
      started();
      if (!o_.network_udp) {
        int conn = ::accept(fd, nullptr, nullptr);
        if (conn < 0) return MakeError("network receiver: accept", errno);
        ::close(fd);
        fd = conn;
      }
      for (;;) {
        ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return MakeError("network receiver: recv", errno);
        if (n == 0) return MakeError("network receiver: the sender closed the connection");
        shared.bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
      }
    }
    for (int s : sockets_) ::close(s);
    uint16_t port = ports_[o_.network_udp ? static_cast<size_t>(pair) : 0];
    int fd = ::socket(AF_INET, o_.network_udp ? SOCK_DGRAM : SOCK_STREAM, 0);
    if (fd < 0) return MakeError("network sender: socket", errno);
    sockaddr_in to = Loopback(port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
      return MakeError("network sender: cannot connect to 127.0.0.1:" + std::to_string(port), errno);
    }
    started();
    size_t len = o_.network_udp ? kUdpDatagramBytes : kTcpChunkBytes;
    for (;;) {
      size_t off = 0;
      while (off < len) {
        ssize_t n = ::send(fd, buf.data() + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        // A full receive queue drops datagrams silently; ECONNREFUSED is a receiver gone.
        if (n < 0) return MakeError("network sender: send", errno);
        off += static_cast<size_t>(n);
      }
      shared.ops.fetch_add(1, std::memory_order_relaxed);
    }
  }

 private:
  int Pairs() const { return o_.workers > 0 ? std::max(1, o_.workers / 2) : 1; }

  const BuiltinLoadOptions o_;
  std::vector<int> sockets_;
  std::vector<uint16_t> ports_;
};

// --- memory: page-fault and compaction pressure ------------------------------------------
// Each round maps a region and faults every page in, frees every other page (the pages
// still held pin physical memory in a checkerboard: free memory is fragmented), then faults
// in a MADV_HUGEPAGE region, which on THP "madvise" or "always" asks the allocator for 2 MiB
// of contiguous memory: direct compaction in the faulting task, kcompactd behind it
// (Documentation/admin-guide/mm/transhuge.rst). Nothing global is written: no
// compact_memory, no drop_caches, no sysctl.
class MemoryBody : public BuiltinBody {
 public:
  MemoryBody(const BuiltinLoadOptions& o, const SysRoot& root) : o_(o), root_(root) {}
  std::string Pattern() const override {
    return "map, fault in, fragment and unmap regions, then fault in huge-page regions (compaction)";
  }
  std::string OpsUnit() const override { return "pages"; }
  int Workers(const CpuSet& cpus) const override { return o_.workers > 0 ? o_.workers : cpus.Count(); }

  Result<void> Configure(const CpuSet& cpus) override {
    huge_ = static_cast<uint64_t>(root_.ReadInt(kpath::kThpPmdSize).value_or(static_cast<long long>(kDefaultHugePage)));
    if (huge_ == 0) huge_ = kDefaultHugePage;
    uint64_t per_worker = o_.memory_limit_bytes / static_cast<uint64_t>(Workers(cpus));
    // Half for the fragmented region, half for the huge-page one (plus one huge page of
    // alignment slack, taken from the same half).
    region_ = (per_worker / 2) / huge_ * huge_;
    if (region_ < 2 * huge_) {
      return InvalidInput("memory load: the " + Mib(o_.memory_limit_bytes) + " memory limit leaves less than " +
                              Mib(4 * huge_) + " per worker");
    }
    std::string enabled = "unknown", defrag = "unknown";
    if (auto t = root_.Read(kpath::kThpEnabled)) enabled = ParseBracketChoice(*t).value_or("unknown");
    if (auto t = root_.Read(kpath::kThpDefrag)) defrag = ParseBracketChoice(*t).value_or("unknown");
    detail_ = Mib(region_) + " regions per worker; THP enabled=" + enabled + " defrag=" + defrag;
    if (enabled == "never") detail_ += " (no huge pages: page-fault pressure only, no compaction)";
    return Ok();
  }

  Result<void> Prepare(SharedState&, int) override { return Ok(); }

  Result<void> Run(int, SharedState& shared, const std::function<void()>& started) override {
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t pages = region_ / page;
    started();
    for (;;) {
      auto frag = MapMemory(region_, /*shared=*/false);
      if (!frag) return Wrap("memory load: ", frag.error());
      char* p = static_cast<char*>(*frag);
      for (uint64_t i = 0; i < pages; ++i) p[i * page] = 1;
      Count(shared, pages, page);
      for (uint64_t i = 1; i < pages; i += 2) ::madvise(p + i * page, page, MADV_DONTNEED);

      uint64_t huge_bytes = region_ - huge_;
      auto raw = MapMemory(region_, /*shared=*/false);
      if (!raw) {
        ::munmap(p, region_);
        return Wrap("memory load: ", raw.error());
      }
      char* q = static_cast<char*>(*raw);
      char* aligned = q + (huge_ - reinterpret_cast<uintptr_t>(q) % huge_) % huge_;
      ::madvise(aligned, huge_bytes, MADV_HUGEPAGE);
      for (uint64_t off = 0; off < huge_bytes; off += page) aligned[off] = 1;
      Count(shared, huge_bytes / page, page);
      ::munmap(q, region_);
      ::munmap(p, region_);
    }
  }

 private:
  static void Count(SharedState& shared, uint64_t pages, uint64_t page) {
    shared.ops.fetch_add(pages, std::memory_order_relaxed);
    shared.bytes.fetch_add(pages * page, std::memory_order_relaxed);
  }

  const BuiltinLoadOptions o_;
  const SysRoot& root_;
  uint64_t huge_ = kDefaultHugePage;
  uint64_t region_ = 0;
};

Result<uint64_t> ParseCacheSize(std::string_view text) {
  std::string_view s = TrimView(text);
  uint64_t mult = 1;
  if (!s.empty() && (s.back() == 'K' || s.back() == 'M' || s.back() == 'G')) {
    mult = s.back() == 'K' ? 1024 : s.back() == 'M' ? kMiB : 1024 * kMiB;
    s.remove_suffix(1);
  }
  auto v = ParseUint(s);
  if (!v || *v == 0) return InvalidInput("unreadable cache size \"" + std::string(text) + "\"");
  return *v * mult;
}

Result<void> CheckOptions(const std::string& name, const BuiltinLoadOptions& o) {
  auto bad = [&](const std::string& what) { return InvalidInput("load '" + name + "': " + what); };
  if (o.workers < 0 || o.workers > 1024) return bad("workers must be 0 (default) to 1024");
  if (o.nice < -20 || o.nice > 19) return bad("nice must be -20 to 19");
  if (o.memory_limit_bytes < 4 * kMiB) return bad("the memory limit must be at least 4 MiB");
  if (name == "messaging") {
    if (o.messaging_groups < 1 || o.messaging_fds < 1 || o.messaging_groups * o.messaging_fds > 1000) {
      return bad("messaging needs 1 or more groups of 1 or more senders, 2000 tasks at most");
    }
  }
  if (name == "disk") {
    if (o.disk_block_bytes == 0 || o.disk_block_bytes % 4096 != 0) return bad("the disk block must be a multiple of 4096");
    if (o.disk_block_bytes > o.disk_file_bytes) return bad("the disk block is larger than the file");
    if (o.disk_block_bytes * static_cast<uint64_t>(std::max(o.workers, 1)) > o.memory_limit_bytes) {
      return bad("the disk blocks of all workers exceed the memory limit");
    }
    struct stat st {};
    if (::stat(o.disk_dir.c_str(), &st) != 0) return MakeError("load 'disk': directory " + o.disk_dir, errno);
    if (!S_ISDIR(st.st_mode)) return Error{"load 'disk': " + o.disk_dir + " is not a directory", ENOTDIR};
  }
  return Ok();
}

}  // namespace

const std::vector<std::string>& BuiltinLoadNames() {
  static const std::vector<std::string> names = {"cache", "messaging", "disk", "network", "memory"};
  return names;
}

Result<uint64_t> LastLevelCacheBytes(const SysRoot& root, int cpu) {
  std::string dir = kpath::CpuCacheDir(cpu);
  auto names = root.List(dir);
  if (!names) return names.error();
  long long best_level = -1;
  uint64_t best = 0;
  for (const std::string& index : *names) {
    if (index.rfind("index", 0) != 0) continue;
    auto type = root.ReadTrimmed(kpath::CpuCacheFile(cpu, index, "type"));
    auto level = root.ReadInt(kpath::CpuCacheFile(cpu, index, "level"));
    auto size = root.ReadTrimmed(kpath::CpuCacheFile(cpu, index, "size"));
    if (!type || !level || !size || *type == "Instruction") continue;
    auto bytes = ParseCacheSize(*size);
    if (!bytes) continue;
    if (*level > best_level || (*level == best_level && *bytes > best)) {
      best_level = *level;
      best = *bytes;
    }
  }
  if (best_level < 0) return MakeError(root.Dir() + " " + dir + ": no data or unified cache listed", ENOENT);
  return best;
}

Result<std::unique_ptr<Load>> MakeBuiltinLoad(const std::string& name, const BuiltinLoadOptions& options,
                                              const SysRoot& root) {
  const auto& names = BuiltinLoadNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    return InvalidInput("unknown built-in load '" + name + "' (known: " + known + ")");
  }
  if (auto ok = CheckOptions(name, options); !ok) return ok.error();
  std::unique_ptr<LoadBody> body;
  if (name == "cache") body = std::make_unique<CacheBody>(options, root);
  if (name == "messaging") body = std::make_unique<MessagingBody>(options);
  if (name == "disk") body = std::make_unique<DiskBody>(options);
  if (name == "network") body = std::make_unique<NetworkBody>(options);
  if (name == "memory") body = std::make_unique<MemoryBody>(options, root);
  return std::unique_ptr<Load>(
      std::make_unique<ProcessLoad>(name, std::move(body), options.nice, options.stop_grace, root));
}

}  // namespace rtagent
