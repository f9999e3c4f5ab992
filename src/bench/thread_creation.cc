#include "bench/thread_creation.h"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace rtagent::bench {
namespace {

void* Nothing(void*) { return nullptr; }

// One thread, created with `attr` (inheriting the measuring thread's class and CPU) and joined.
int64_t CreateJoin(const pthread_attr_t* attr) {
  const int64_t t0 = NowNs();
  pthread_t t;
  if (const int r = ::pthread_create(&t, attr, &Nothing, nullptr)) return -r;
  if (const int r = ::pthread_join(t, nullptr)) return -r;
  return NowNs() - t0;
}

// The preallocated stack: 256 KiB, written once, so no page of it faults during the test.
constexpr size_t kOwnStack = 256 * 1024;

}  // namespace

std::vector<Primitive> ThreadTests() {
  std::vector<Primitive> out;
  out.push_back(Solo(Group::kThread, "thread.create_join.default", "thread create + join (default stack)",
                     "pthread_create(); pthread_join()", [] { return CreateJoin(nullptr); }));

  Primitive own;
  own.group = Group::kThread;
  own.id = "thread.create_join.own_stack";
  own.title = "thread create + join (preallocated stack)";
  own.calls = "pthread_attr_setstack(); pthread_create(); pthread_join()";
  own.run = [](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    std::vector<char> stack(kOwnStack, 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (const int r = pthread_attr_setstack(&attr, stack.data(), stack.size())) {
      pthread_attr_destroy(&attr);
      return MakeError("pthread_attr_setstack", r);
    }
    const int err = MeasureLoop(c.budget, s, c.stop, [&attr] { return CreateJoin(&attr); });
    pthread_attr_destroy(&attr);
    return LoopOutcome(err, "pthread_create/pthread_join");
  };
  out.push_back(std::move(own));

  out.push_back(Solo(Group::kThread, "thread.fork_wait", "process fork + wait", "fork(); _exit(0) in the child; waitpid()",
                     []() -> int64_t {
                       const int64_t t0 = NowNs();
                       const pid_t pid = ::fork();
                       if (pid < 0) return -errno;
                       if (pid == 0) ::_exit(0);
                       int status = 0;
                       while (::waitpid(pid, &status, 0) < 0) {
                         if (errno != EINTR) return -errno;
                       }
                       return NowNs() - t0;
                     }));
  return out;
}

}  // namespace rtagent::bench
