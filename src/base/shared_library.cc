#include "base/shared_library.h"

#include <dlfcn.h>

#include <utility>

namespace rtagent {

namespace {

std::string LastDlError() {
  const char* e = ::dlerror();
  return e ? e : "unknown dlopen error";
}

}  // namespace

Result<SharedLibrary> SharedLibrary::Open(const std::string& soname, const std::string& package) {
  // RTLD_NOW: a missing symbol shows here, once, not as a crash at the first call.
  void* h = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return MakeError("cannot load " + soname + ": " + LastDlError() + " (hint: install Debian's " + package +
                     " package)");
  return SharedLibrary(h, soname);
}

SharedLibrary::SharedLibrary(SharedLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), soname_(std::move(other.soname_)) {}

SharedLibrary::~SharedLibrary() {
  if (handle_) ::dlclose(handle_);
}

Result<void*> SharedLibrary::Symbol(const char* name) const {
  ::dlerror();  // clears an earlier error: a symbol's value may be null
  void* sym = ::dlsym(handle_, name);
  if (!sym) return MakeError(soname_ + " has no symbol " + name + ": " + LastDlError());
  return sym;
}

}  // namespace rtagent
