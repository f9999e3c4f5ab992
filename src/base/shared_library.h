// A shared library loaded with dlopen(3) when a command needs it, not mapped at every start.
// For the libraries one command uses and the rest never touch (libsystemd, with the six
// libraries it pulls in, for `hold` under systemd): every other command starts without them
// (docs/performance.md, "Start-up"). The library is still Debian's, called through its own
// header's declarations; the package's Depends names it, since dh_shlibdeps cannot see it.
#pragma once

#include <string>

#include "base/result.h"

namespace rtagent {

class SharedLibrary {
 public:
  /// Loads `soname` ("libsystemd.so.0"); the error names it, says why (dlerror) and which
  /// Debian package holds it (`package`).
  static Result<SharedLibrary> Open(const std::string& soname, const std::string& package);

  SharedLibrary(SharedLibrary&& other) noexcept;
  SharedLibrary& operator=(SharedLibrary&&) = delete;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  /// The function `name`, typed as the library's header declares it:
  /// `lib.Function<decltype(sd_notify)>("sd_notify")`.
  template <typename Fn>
  Result<Fn*> Function(const char* name) const {
    auto sym = Symbol(name);
    if (!sym) return sym.error();
    return reinterpret_cast<Fn*>(*sym);
  }

  const std::string& soname() const { return soname_; }

 private:
  SharedLibrary(void* handle, std::string soname) : handle_(handle), soname_(std::move(soname)) {}
  Result<void*> Symbol(const char* name) const;

  void* handle_ = nullptr;
  std::string soname_;
};

}  // namespace rtagent
