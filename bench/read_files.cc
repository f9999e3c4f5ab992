// The floor for `rtagent inspect` and `verify`: open, read and close each file of a list once,
// nothing else. A directory in the list is listed once (inspect lists /proc, each process's
// task directory, the IRQ and cgroup directories). bench/run.sh gives it the files `rtagent
// capture` records; bench/inspect_verify.sh gives it every path a traced inspect or verify run
// opened, each once. The difference between the two is rtagent's own parsing and formatting.
//
// usage: rtagent_bench_readfiles ROOT < list-of-root-relative-paths
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " ROOT < paths\n";
    return 2;
  }
  std::string root = argv[1];
  std::string rel;
  long files = 0, dirs = 0, entries = 0, bytes = 0;
  static char buf[1 << 16];
  while (std::getline(std::cin, rel)) {
    std::string path = root + "/" + rel;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n;
    // A fixture's files are regular files: a read that returns less than it asked for has met
    // the end, and a second read would only return 0 (rtagent reads a fixture the same way).
    while ((n = ::read(fd, buf, sizeof buf)) > 0) {
      bytes += n;
      if (static_cast<size_t>(n) < sizeof buf) break;
    }
    if (n < 0 && errno == EISDIR) {
      // The directory's names, as readdir(3) gives them to inspect.
      if (DIR* d = ::fdopendir(fd)) {
        while (::readdir(d) != nullptr) ++entries;
        ::closedir(d);
        ++dirs;
        continue;
      }
    }
    ::close(fd);
    ++files;
  }
  std::printf("%ld files, %ld bytes, %ld directories, %ld entries\n", files, bytes, dirs, entries);
  return 0;
}
