#include "base/sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <iterator>
#include <typeinfo>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "base/sysroot_pieces.h"

namespace rtagent {
namespace {

std::string StripWs(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

Result<std::string> SysRoot::ReadTrimmed(const std::string& path) const {
  auto r = Read(path);
  if (!r) return r.error();
  return StripWs(std::move(*r));
}

Result<long long> SysRoot::ReadInt(const std::string& path) const {
  auto r = ReadTrimmed(path);
  if (!r) return r.error();
  long long v = 0;
  const std::string& s = *r;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return InvalidInput(Dir() + " " + path + ": expected an integer, read \"" + s + "\"");
  }
  return v;
}

Result<void> SysRoot::WriteDurable(const std::string& path, const std::string&) {
  return MakeError("this root cannot store " + path, ENOTSUP);
}

Result<void> SysRoot::Remove(const std::string& path) {
  return MakeError("this root cannot remove " + path, ENOTSUP);
}

FsRoot::FsRoot(std::string dir) : dir_(std::move(dir)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  if (dir_.empty()) dir_.assign(1, '/');
}

std::string SysRoot::HostPath(const std::string& path) const {
  std::string_view rel = path;
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  std::string host = Dir();
  host.reserve(host.size() + 1 + rel.size());
  if (host.empty() || host.back() != '/') host += '/';
  host += rel;
  return host;
}

namespace {

// read(2), tried again when a signal interrupted it: -1 with errno set on a real error.
ssize_t ReadSome(int fd, char* at, size_t room) {
  for (;;) {
    const ssize_t n = ::read(fd, at, room);
    if (n >= 0 || errno != EINTR) return n;
  }
}

// The error of a read that failed (errno set), the file closed.
Error ReadFailed(int fd, const std::string& host) {
  const int e = errno;
  ::close(fd);
  return MakeError("cannot read " + host, e);
}

}  // namespace

namespace {

// What a read(2) that returns less than it was asked for means.
enum class ShortRead {
  // Maybe nothing: a kernel file made by seq_file hands out at most its page-sized buffer of
  // records per read (/proc/interrupts of a 256-CPU server: one 2.8 KB line each), so only a
  // read of 0 bytes is the end. The live root reads this way.
  kReadOn,
  // The end: a fixture tree holds regular files, whose reads come back short only at their end,
  // so the read that would return 0 is saved (issue 19: one system call of four per file,
  // about 8 % of apply's CPU time on the large tree; docs/performance.md).
  kIsTheEnd,
  // The end when it is also shorter than a page: a live file that KernelShowsWholeInOneRead
  // names. Its show() ran once and all of it fit the buffer; a sysfs binary attribute, which
  // hands out at most a page per read, goes on reading after a full page.
  kEndsBelowPage,
};

size_t PageSize() {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// Reads descriptor `fd` (of `host`) from where it stands to the end; the descriptor stays open.
Result<std::string> ReadToEnd(int fd, const std::string& host, ShortRead short_read) {
  // A small file (nearly all of them: one line of sysfs or a stat line) is read into the
  // stack buffer and copied once. A large one (/proc/interrupts of a big server: megabytes)
  // is read straight into the string, which grows by doubling, or to the file's size when
  // fstat knows it (a regular file; procfs says 0): no copy through the buffer, and the few
  // reallocations of an append-per-64-KiB are gone.
  std::string out;
  char buf[65536];
  size_t len = 0;
  for (;;) {
    const bool direct = len >= sizeof buf;
    char* at = direct ? out.data() + len : buf;
    const size_t room = direct ? out.size() - len : sizeof buf;
    ssize_t n = ReadSome(fd, at, room);
    if (n < 0) return MakeError("cannot read " + host, errno);
    if (n == 0) break;
    if (!direct) out.append(buf, static_cast<size_t>(n));
    len += static_cast<size_t>(n);
    if (short_read == ShortRead::kIsTheEnd && static_cast<size_t>(n) < room) break;
    if (short_read == ShortRead::kEndsBelowPage && static_cast<size_t>(n) < PageSize()) break;
    if (len >= sizeof buf && out.size() == len) {
      // Full (or just past the buffer): make room to read into the string itself, one byte
      // past the size fstat gives so that the read which sees the end needs no more room.
      size_t want = len * 2;
      struct stat st;
      if (::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= len) {
        want = std::max(len + sizeof buf, static_cast<size_t>(st.st_size) + 1);
      }
      out.resize(want);
    }
  }
  out.resize(len);
  return out;
}

}  // namespace

namespace {

// Takes the next path component off `rest`; empty when none is left.
std::string_view NextComponent(std::string_view& rest) {
  const size_t slash = rest.find('/');
  std::string_view part = rest.substr(0, slash);
  rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  return part;
}

// PID/F or PID/task/TID/F under proc/, F one of kpath::kOneShowTaskFiles.
bool IsOneShowProcessFile(std::string_view rest) {
  const std::string_view pid = NextComponent(rest);
  if (!AllDigits(pid) && pid != "self" && pid != "thread-self") return false;
  std::string_view file = NextComponent(rest);
  if (file == "task" && pid != "thread-self") {
    if (!AllDigits(NextComponent(rest))) return false;
    file = NextComponent(rest);
  }
  if (!rest.empty()) return false;
  const auto& files = kpath::kOneShowTaskFiles;
  return std::find(std::begin(files), std::end(files), file) != std::end(files);
}

}  // namespace

bool KernelShowsWholeInOneRead(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (path.find("/..") != std::string_view::npos || path.find("/./") != std::string_view::npos) return false;
  if (path == kpath::kCmdline) return true;  // single_open
  for (std::string_view tree : kpath::kOneShowTrees) {
    if (path.size() > tree.size() && path.starts_with(tree)) return true;
  }
  const std::string_view proc = kpath::kProc;
  if (path.starts_with(proc) && path.substr(proc.size()).starts_with('/')) {
    return IsOneShowProcessFile(path.substr(proc.size() + 1));
  }
  return false;
}

Result<std::string> FsRoot::Read(const std::string& path) const {
  std::string host = HostPath(path);
  int fd = ::open(host.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return MakeError("cannot open " + host, errno);
  const ShortRead rule = !IsLive()                          ? ShortRead::kIsTheEnd
                        : KernelShowsWholeInOneRead(path) ? ShortRead::kEndsBelowPage
                                                          : ShortRead::kReadOn;
  auto out = ReadToEnd(fd, host, rule);
  ::close(fd);
  return out;
}

Result<std::vector<std::string>> FsRoot::List(const std::string& path) const {
  std::string host = HostPath(path);
  DIR* d = ::opendir(host.c_str());
  if (!d) return MakeError("cannot list " + host, errno);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> FsRoot::ReadLink(const std::string& path) const {
  std::string host = HostPath(path);
  char buf[4096];
  ssize_t n = ::readlink(host.c_str(), buf, sizeof buf - 1);
  if (n < 0) return MakeError("cannot read link " + host, errno);
  return std::string(buf, static_cast<size_t>(n));
}

bool FsRoot::Exists(const std::string& path) const {
  struct stat st;
  return ::stat(HostPath(path).c_str(), &st) == 0;
}

bool FsRoot::IsDir(const std::string& path) const {
  struct stat st;
  return ::stat(HostPath(path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

namespace {

// What a kernel attribute reads back after `value` was written to it, for fixture trees: the
// value and a newline, or, for a choice file such as transparent_hugepage/enabled
// ("always [madvise] never"), the same choices with the brackets moved to the one written.
// This keeps apply-then-revert byte-identical on a fixture, as it is on a kernel.
std::string FixtureReadBack(const std::string& old_text, const std::string& value) {
  std::string v = StripWs(value);
  size_t open = old_text.find('[');
  if (open != std::string::npos && old_text.find(']', open) != std::string::npos) {
    std::string out;
    bool found = false;
    size_t i = 0;
    std::string text = StripWs(old_text);
    while (i < text.size()) {
      size_t j = text.find(' ', i);
      if (j == std::string::npos) j = text.size();
      std::string word = text.substr(i, j - i);
      if (word.size() > 2 && word.front() == '[' && word.back() == ']') word = word.substr(1, word.size() - 2);
      if (!word.empty()) {
        if (word == v) {
          found = true;
          word = "[" + word + "]";
        }
        out += (out.empty() ? "" : " ") + word;
      }
      i = j + 1;
    }
    if (found) return out + "\n";
  }
  return value.empty() || value.back() == '\n' ? value : value + "\n";
}

// Writes `text` over the file from offset 0 and cuts it to that length, going on after a short
// write (the disk filling up writes part of it, and the next call says why); 0 or the errno.
int PutWhole(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<size_t>(n);
  }
  return ::ftruncate(fd, static_cast<off_t>(text.size())) == 0 ? 0 : errno;
}

// A write to a file of a fixture tree: one open serves the read of what the file shows and the
// write of what it shows next (FixtureReadBack of what `edit` makes of it), written over it at
// offset 0 and cut to length. An error names the value written (`value`, or what the edit made).
Result<void> WriteFixtureFile(const std::string& host, const std::string* value, const EditText& edit) {
  int fd = ::open(host.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return MakeError("cannot open " + host + " for writing", errno);
  auto old = ReadToEnd(fd, host, ShortRead::kIsTheEnd);
  if (!old) {
    ::close(fd);
    return MakeError("cannot open " + host + " for writing", old.error().err);
  }
  auto next = edit(*old);
  if (!next) {
    ::close(fd);
    return next.error();
  }
  const std::string text = FixtureReadBack(*old, *next);
  int e = PutWhole(fd, text);
  if (e != 0) PutWhole(fd, *old);  // a full disk mid-write: the file goes back to what it held
  ::close(fd);
  if (e != 0) return MakeError("cannot write \"" + (value ? *value : StripWs(text)) + "\" to " + host, e);
  return Ok();
}

}  // namespace

Result<void> FsRoot::Write(const std::string& path, const std::string& value) {
  std::string host = HostPath(path);
  // A fixture tree behaves like the kernel's files: see FixtureReadBack.
  if (!IsLive()) return WriteFixtureFile(host, &value, [&](const std::string&) -> Result<std::string> { return value; });
  // Kernel attribute files take one write(2).
  int flags = O_WRONLY | O_CLOEXEC;
  int fd = ::open(host.c_str(), flags);
  if (fd < 0) return MakeError("cannot open " + host + " for writing", errno);
  ssize_t n;
  do {
    n = ::write(fd, value.data(), value.size());
  } while (n < 0 && errno == EINTR);
  int e = errno;
  ::close(fd);
  if (n < 0) return MakeError("cannot write \"" + value + "\" to " + host, e);
  if (static_cast<size_t>(n) != value.size()) return MakeError("short write of \"" + value + "\" to " + host, EIO);
  return Ok();
}

namespace {

Result<void> MakeDirs(const std::string& dir) {
  if (dir.empty() || dir == "/") return Ok();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Ok();
    return Error{"cannot create directory " + dir + ": a file is in the way", ENOTDIR};
  }
  size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    auto r = MakeDirs(dir.substr(0, slash));
    if (!r) return r;
  }
  if (::mkdir(dir.c_str(), 0755) != 0) {
    if (errno == EEXIST) return Ok();
    return MakeError("cannot create directory " + dir, errno);
  }
  // 0755 whatever the umask: only root may add or replace rtagent's state (issue 17).
  if (::chmod(dir.c_str(), 0755) != 0) return MakeError("cannot set the mode of " + dir, errno);
  return Ok();
}

}  // namespace

Result<void> WriteFileAtomic(const std::string& path, const std::string& contents) {
  return WriteFileAtomicFrom(path, [&](const PutPiece& put) { put(contents); });
}

Result<void> WriteFileAtomicFrom(const std::string& path, const Pieces& pieces) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  // A new file, never one found at that name: a link planted there (the name is predictable)
  // would have root truncate and chmod its target. A leftover of a crashed run goes first.
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return MakeError("cannot create " + tmp, errno);
  // 0644 whatever the umask: readable by all, writable by its owner only (issue 17).
  if (::fchmod(fd, 0644) != 0) {
    int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return MakeError("cannot set the mode of " + tmp, e);
  }
  // Each piece is written as it is made; after a failed write the rest are skipped, and the
  // temporary file is removed, never renamed.
  int err = 0;
  pieces([&](std::string_view piece) {
    size_t done = 0;
    while (err == 0 && done < piece.size()) {
      ssize_t n = ::write(fd, piece.data() + done, piece.size() - done);
      if (n < 0 && errno != EINTR) err = errno;
      if (n > 0) done += static_cast<size_t>(n);
    }
  });
  if (err != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return MakeError("cannot write " + tmp, err);
  }
  if (::fsync(fd) != 0) {
    int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return MakeError("cannot fsync " + tmp, e);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return MakeError("cannot rename " + tmp + " to " + path, e);
  }
  // The rename is durable only once the directory entry is on disk.
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Ok();
}

Result<void> FsRoot::WriteDurable(const std::string& path, const std::string& contents) {
  std::string host = HostPath(path);
  if (auto r = MakeDirs(host.substr(0, host.find_last_of('/'))); !r) return r;
  return WriteFileAtomic(host, contents);
}

Result<std::unique_ptr<RootLock>> SysRoot::TryLock(const std::string&, const std::string&) {
  return std::make_unique<RootLock>();
}

namespace {

// flock(2) on a file that is removed when the lock is dropped. Removing a lock file races with
// a process that opened it just before: that one then locks a file no longer at the path. So a
// lock counts only when the path still names the inode locked, and is tried again otherwise.
class FileLock : public RootLock {
 public:
  FileLock(int fd, std::string path, std::vector<std::string> made)
      : fd_(fd), path_(std::move(path)), made_(std::move(made)) {}
  ~FileLock() override {
    ::unlink(path_.c_str());  // before close: a waiter that locks it next finds it gone, and retries
    ::close(fd_);
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) ::rmdir(it->c_str());  // only when empty
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
  std::string path_;
  std::vector<std::string> made_;  ///< directories made for the lock, outermost first
};

}  // namespace

Result<std::unique_ptr<RootLock>> FsRoot::TryLock(const std::string& path, const std::string& note) {
  const std::string host = HostPath(path);
  const std::string dir = host.substr(0, host.find_last_of('/'));
  std::vector<std::string> made;  // the directories missing now, outermost first
  for (std::string d = dir; !d.empty() && d != "/" && ::access(d.c_str(), F_OK) != 0; d = d.substr(0, d.find_last_of('/'))) {
    made.insert(made.begin(), d);
  }
  if (auto r = MakeDirs(dir); !r) return r.error();
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(host.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return MakeError("cannot open " + host, errno);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      std::string holder(256, '\0');
      const ssize_t n = ::pread(fd, holder.data(), holder.size(), 0);
      ::close(fd);
      if (err != EWOULDBLOCK) return MakeError("cannot lock " + host, err);
      holder.resize(n > 0 ? static_cast<size_t>(n) : 0);
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
      return Error{holder.empty() ? "another process holds " + host : holder, EWOULDBLOCK};
    }
    struct stat locked, named;
    if (::fstat(fd, &locked) != 0 || ::stat(host.c_str(), &named) != 0 || locked.st_ino != named.st_ino ||
        locked.st_dev != named.st_dev) {
      ::close(fd);  // removed by its last holder between our open and our lock: open it again
      continue;
    }
    auto lock = std::make_unique<FileLock>(fd, host, std::move(made));
    const std::string text = note + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
      return MakeError("cannot write " + host, errno);
    }
    return std::unique_ptr<RootLock>(std::move(lock));
  }
  return Error{"cannot lock " + host + ": it was removed and made again 100 times while trying", EAGAIN};
}

Result<void> WriteDurableFrom(SysRoot& root, const std::string& path, const Pieces& pieces) {
  // Only an FsRoot itself streams: a subclass overrides WriteDurable to have its say (count,
  // fail, refuse), and must keep having it.
  if (typeid(root) == typeid(FsRoot)) {
    const std::string host = root.HostPath(path);
    if (auto r = MakeDirs(host.substr(0, host.find_last_of('/'))); !r) return r;
    return WriteFileAtomicFrom(host, pieces);
  }
  std::string contents;
  pieces([&](std::string_view piece) { contents.append(piece); });
  return root.WriteDurable(path, contents);
}

Result<void> EditFixtureFile(SysRoot& root, const std::string& path, const EditText& edit) {
  // As with WriteDurableFrom, only an FsRoot itself takes the one-open path, and only over a
  // fixture tree (a kernel file shows what the kernel makes of a write); a subclass's Read and
  // Write have their say.
  if (typeid(root) == typeid(FsRoot) && !root.IsLive()) {
    return WriteFixtureFile(root.HostPath(path), nullptr, edit);
  }
  auto now = root.Read(path);
  if (!now) return now.error();
  auto next = edit(*now);
  if (!next) return next.error();
  return root.Write(path, *next);
}

Result<void> ReadLinesFrom(const SysRoot& root, const std::string& path, const TakeLine& take) {
  // As with WriteDurableFrom, only an FsRoot itself reads in pieces; a subclass's Read has its say.
  if (typeid(root) != typeid(FsRoot)) {
    auto text = root.Read(path);
    if (!text) return text.error();
    for (auto line : SplitLines(*text)) take(line);
    return Ok();
  }
  const std::string host = root.HostPath(path);
  int fd = ::open(host.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return MakeError("cannot open " + host, errno);
  char buf[65536];
  std::string carry;  // the start of a line that goes on in the next piece
  for (;;) {
    ssize_t n = ReadSome(fd, buf, sizeof buf);
    if (n < 0) return ReadFailed(fd, host);
    if (n == 0) break;
    const std::string_view piece(buf, static_cast<size_t>(n));
    size_t from = 0;
    for (size_t nl = piece.find('\n'); nl != std::string_view::npos; nl = piece.find('\n', from)) {
      if (carry.empty()) {
        take(piece.substr(from, nl - from));
      } else {
        carry.append(piece.substr(from, nl - from));
        take(carry);
        carry.clear();
      }
      from = nl + 1;
    }
    carry.append(piece.substr(from));
  }
  ::close(fd);
  if (!carry.empty()) take(carry);
  return Ok();
}

Result<void> FsRoot::Remove(const std::string& path) {
  std::string host = HostPath(path);
  if (::unlink(host.c_str()) != 0 && errno != ENOENT) return MakeError("cannot remove " + host, errno);
  return Ok();
}

Result<std::unique_ptr<SysRoot>> OpenRoot(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return MakeError("--root " + dir + " does not exist", errno);
  if (!S_ISDIR(st.st_mode)) return Error{"--root " + dir + " is not a directory", ENOTDIR};
  return std::unique_ptr<SysRoot>(std::make_unique<FsRoot>(dir));
}

}  // namespace rtagent
