// The floor for `rtagent apply`: the same file system calls apply made, replayed and nothing
// else. bench/tune.sh traces one apply on a copy of the large tree (strace: open, write,
// pwrite, ftruncate, fsync, close, rename, mkdir, rmdir, unlink), turns the trace into the ops below with
// bench/write_floor_ops.py, and times this program on a fresh copy: the same values written
// to the same files, and the same journal commits (write the new journal to a temporary
// file, fsync it, rename it over the old one, fsync the directory). What apply costs beyond
// it is its own reading, planning and bookkeeping.
//
// usage: rtagent_bench_writefloor ROOT < ops
// Each op is one line of tab-separated fields; paths and data are hex, paths relative to ROOT:
//   open ID FLAGS MODE PATH | write ID DATA | pwrite ID OFFSET DATA | truncate ID LENGTH
//   fsync ID | close ID
//   rename FROM TO | mkdir PATH MODE | rmdir PATH | unlink PATH
// and, in the I/O floor (bench/write_floor_ops.py --reads), the reads apply needs made once each:
//   read PATH (open, read to the end, close) | list PATH (every entry of a directory) |
//   readfd ID (what an open descriptor holds, from offset 0: a fixture file's write reads it)
// Prints "ops N writes W bytes B commits C reads R read_bytes B lists L failed F replay_wall S
// replay_cpu S"; exit 1 when an op failed. replay_wall and replay_cpu (user + system, seconds) cover the replay alone: reading
// and unhexing the ops (20 MB of written data is 40 MB of hex on the large tree) is not the
// floor's, and bench/tune.sh takes these two figures, not the process's own times.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

std::string Unhex(const std::string& h) {
  std::string out;
  out.reserve(h.size() / 2);
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

// Reads `fd` from its start to its end; the bytes read, or -1.
long ReadAll(int fd) {
  char buf[65536];
  long total = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, total);
    if (n < 0) return -1;
    if (n == 0) return total;
    total += n;
  }
}

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream ss(line);
  std::string x;
  while (std::getline(ss, x, '\t')) f.push_back(x);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " ROOT < ops\n";
    return 2;
  }
  const std::string root = argv[1];
  // Parse everything first: the timed part below is the calls alone.
  std::vector<std::vector<std::string>> ops;
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty()) ops.push_back(Fields(line));
  }
  for (auto& op : ops) {
    const std::string& k = op[0];
    if (k == "open" && op.size() == 5) op[4] = root + "/" + Unhex(op[4]);
    else if (k == "write" && op.size() == 3) op[2] = Unhex(op[2]);
    else if (k == "pwrite" && op.size() == 4) op[3] = Unhex(op[3]);
    else if ((k == "rename") && op.size() == 3) op[1] = root + "/" + Unhex(op[1]), op[2] = root + "/" + Unhex(op[2]);
    else if ((k == "mkdir" || k == "rmdir" || k == "unlink" || k == "read" || k == "list") && op.size() >= 2)
      op[1] = root + "/" + Unhex(op[1]);
  }
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = CpuSeconds();
  std::unordered_map<std::string, int> fds;
  long writes = 0, bytes = 0, commits = 0, failed = 0, reads = 0, read_bytes = 0, lists = 0;
  for (const auto& op : ops) {
    const std::string& k = op[0];
    int rc = 0;
    if (k == "open") {
      int fd = ::open(op[4].c_str(), std::stoi(op[2]), static_cast<mode_t>(std::stoi(op[3], nullptr, 8)));
      rc = fd < 0 ? -1 : 0;
      if (fd >= 0) fds[op[1]] = fd;
    } else if (k == "write") {
      ssize_t n = ::write(fds.at(op[1]), op[2].data(), op[2].size());
      rc = n == static_cast<ssize_t>(op[2].size()) ? 0 : -1;
      ++writes;
      bytes += static_cast<long>(op[2].size());
    } else if (k == "pwrite") {
      ssize_t n = ::pwrite(fds.at(op[1]), op[3].data(), op[3].size(), static_cast<off_t>(std::stoll(op[2])));
      rc = n == static_cast<ssize_t>(op[3].size()) ? 0 : -1;
      ++writes;
      bytes += static_cast<long>(op[3].size());
    } else if (k == "truncate") {
      rc = ::ftruncate(fds.at(op[1]), static_cast<off_t>(std::stoll(op[2])));
    } else if (k == "fsync") {
      rc = ::fsync(fds.at(op[1]));
    } else if (k == "close") {
      rc = ::close(fds.at(op[1]));
      fds.erase(op[1]);
    } else if (k == "rename") {
      rc = ::rename(op[1].c_str(), op[2].c_str());
      ++commits;
    } else if (k == "mkdir") {
      rc = ::mkdir(op[1].c_str(), static_cast<mode_t>(std::stoi(op[2], nullptr, 8)));
    } else if (k == "rmdir") {
      rc = ::rmdir(op[1].c_str());
    } else if (k == "unlink") {
      rc = ::unlink(op[1].c_str());
    } else if (k == "read") {
      int fd = ::open(op[1].c_str(), O_RDONLY | O_CLOEXEC);
      long n = fd < 0 ? -1 : ReadAll(fd);
      if (fd >= 0) ::close(fd);
      rc = n < 0 ? -1 : 0;
      ++reads;
      read_bytes += n > 0 ? n : 0;
    } else if (k == "readfd") {
      long n = ReadAll(fds.at(op[1]));
      rc = n < 0 ? -1 : 0;
      ++reads;
      read_bytes += n > 0 ? n : 0;
    } else if (k == "list") {
      DIR* d = ::opendir(op[1].c_str());
      rc = d == nullptr ? -1 : 0;
      if (d != nullptr) {
        while (::readdir(d) != nullptr) {
        }
        ::closedir(d);
      }
      ++lists;
    } else {
      rc = -1;  // an op this replayer does not know: the floor would leave out work apply did
    }
    if (rc != 0) ++failed;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = CpuSeconds() - cpu0;
  std::printf("ops %zu writes %ld bytes %ld commits %ld reads %ld read_bytes %ld lists %ld failed %ld replay_wall %.6f "
              "replay_cpu %.6f\n",
              ops.size(), writes, bytes, commits, reads, read_bytes, lists, failed, wall, cpu);
  return failed == 0 ? 0 : 1;
}
