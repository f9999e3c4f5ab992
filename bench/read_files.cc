// The floor for `rtagent inspect`: open, read and close each file of a list once, nothing
// else. bench/run.sh gives it the exact list of files inspect read (from `rtagent capture`),
// so the difference between the two is inspect's own parsing and formatting.
//
// usage: rtagent_bench_readfiles ROOT < list-of-root-relative-paths
#include <fcntl.h>
#include <unistd.h>

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
  long files = 0, bytes = 0;
  static char buf[1 << 16];
  while (std::getline(std::cin, rel)) {
    std::string path = root + "/" + rel;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) bytes += n;
    ::close(fd);
    ++files;
  }
  std::printf("%ld files, %ld bytes\n", files, bytes);
  return 0;
}
