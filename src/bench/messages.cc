#include "bench/messages.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <mqueue.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

namespace rtagent::bench {
namespace {

constexpr int kRequest = 0;  // client -> server
constexpr int kReply = 1;    // server -> client

// Both directions of one primitive between the two sides: Send and Receive move exactly `n`
// bytes (or the primitive's own token when it carries no data) in direction `dir`. They
// return 0 or the errno. Objects are made before the peer starts, so a process peer has its
// own copy of the object and the same descriptors.
class Channel {
 public:
  virtual ~Channel() = default;
  virtual int Send(int dir, const char* buf, size_t n) = 0;
  virtual int Receive(int dir, char* buf, size_t n) = 0;
};

int WriteAll(int fd, const char* buf, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, buf, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    buf += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

int ReadAll(int fd, char* buf, size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, buf, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (r == 0) return EPIPE;  // the other side closed it
    buf += r;
    n -= static_cast<size_t>(r);
  }
  return 0;
}

void CloseAll(std::initializer_list<int> fds) {
  for (int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
}

// A pipe each way.
class PipeChannel : public Channel {
 public:
  static Result<std::unique_ptr<Channel>> Open(uint32_t) {
    auto c = std::make_unique<PipeChannel>();
    for (auto& p : c->fd_) {
      if (::pipe2(p, O_CLOEXEC) != 0) return MakeError("pipe2", errno);
    }
    return std::unique_ptr<Channel>(std::move(c));
  }
  ~PipeChannel() override { CloseAll({fd_[0][0], fd_[0][1], fd_[1][0], fd_[1][1]}); }
  int Send(int dir, const char* buf, size_t n) override { return WriteAll(fd_[dir][1], buf, n); }
  int Receive(int dir, char* buf, size_t n) override { return ReadAll(fd_[dir][0], buf, n); }

 private:
  int fd_[2][2] = {{-1, -1}, {-1, -1}};
};

// One AF_UNIX stream socket pair: the client writes requests on [0], the server on [1].
class SocketChannel : public Channel {
 public:
  static Result<std::unique_ptr<Channel>> Open(uint32_t) {
    auto c = std::make_unique<SocketChannel>();
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->sv_) != 0) return MakeError("socketpair", errno);
    return std::unique_ptr<Channel>(std::move(c));
  }
  ~SocketChannel() override { CloseAll({sv_[0], sv_[1]}); }
  int Send(int dir, const char* buf, size_t n) override { return WriteAll(sv_[dir == kRequest ? 0 : 1], buf, n); }
  int Receive(int dir, char* buf, size_t n) override { return ReadAll(sv_[dir == kRequest ? 1 : 0], buf, n); }

 private:
  int sv_[2] = {-1, -1};
};

// A POSIX message queue each way, one message deep, messages exactly the payload's size. The
// names are unlinked as soon as both queues are open: nothing is left in /dev/mqueue.
class MqueueChannel : public Channel {
 public:
  static Result<std::unique_ptr<Channel>> Open(uint32_t payload) {
    auto c = std::make_unique<MqueueChannel>();
    c->size_ = payload;
    for (int dir : {kRequest, kReply}) {
      const std::string name = "/rtagent-bench-" + std::to_string(::getpid()) + "-" + std::to_string(dir);
      mq_attr attr{};
      attr.mq_maxmsg = 1;
      attr.mq_msgsize = payload;
      c->q_[dir] = ::mq_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &attr);
      const int err = errno;
      ::mq_unlink(name.c_str());
      if (c->q_[dir] < 0) {
        return MakeError("mq_open of " + std::to_string(payload) + "-byte messages", err);
      }
    }
    return std::unique_ptr<Channel>(std::move(c));
  }
  ~MqueueChannel() override {
    for (mqd_t q : q_) {
      if (q >= 0) ::mq_close(q);
    }
  }
  int Send(int dir, const char* buf, size_t n) override {
    while (::mq_send(q_[dir], buf, n, 0) != 0) {
      if (errno != EINTR) return errno;
    }
    return 0;
  }
  int Receive(int dir, char* buf, size_t n) override {
    for (;;) {
      const ssize_t got = ::mq_receive(q_[dir], buf, size_, nullptr);
      if (got >= 0) return static_cast<size_t>(got) == n ? 0 : EMSGSIZE;
      if (errno != EINTR) return errno;
    }
  }

 private:
  mqd_t q_[2] = {-1, -1};
  size_t size_ = 0;
};

// An eventfd each way: a write of 1 wakes the reader; no data rides along.
class EventfdChannel : public Channel {
 public:
  static Result<std::unique_ptr<Channel>> Open(uint32_t) {
    auto c = std::make_unique<EventfdChannel>();
    for (int& fd : c->fd_) {
      fd = ::eventfd(0, EFD_CLOEXEC);
      if (fd < 0) return MakeError("eventfd", errno);
    }
    return std::unique_ptr<Channel>(std::move(c));
  }
  ~EventfdChannel() override { CloseAll({fd_[0], fd_[1]}); }
  int Send(int dir, const char*, size_t) override {
    const uint64_t one = 1;
    return WriteAll(fd_[dir], reinterpret_cast<const char*>(&one), sizeof one);
  }
  int Receive(int dir, char*, size_t) override {
    uint64_t v = 0;
    return ReadAll(fd_[dir], reinterpret_cast<char*>(&v), sizeof v);
  }

 private:
  int fd_[2] = {-1, -1};
};

// A futex word each way (futex(2)): the sender sets it to 1 and wakes; the receiver takes the
// 1 back or sleeps while it reads 0. Private futexes between threads (what glibc uses inside
// one process), shared ones between processes.
class FutexChannel : public Channel {
 public:
  explicit FutexChannel(bool shared) : op_flags_(shared ? 0 : FUTEX_PRIVATE_FLAG) {}
  static Result<std::unique_ptr<Channel>> Open(bool shared) { return std::unique_ptr<Channel>(new FutexChannel(shared)); }
  int Send(int dir, const char*, size_t) override {
    std::atomic<uint32_t>& w = word_->w[dir];
    w.store(1);
    if (::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&w), FUTEX_WAKE | op_flags_, 1, nullptr, nullptr, 0) < 0) {
      return errno;
    }
    return 0;
  }
  int Receive(int dir, char*, size_t) override {
    std::atomic<uint32_t>& w = word_->w[dir];
    while (w.exchange(0) == 0) {
      if (::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&w), FUTEX_WAIT | op_flags_, 0, nullptr, nullptr, 0) < 0 &&
          errno != EAGAIN && errno != EINTR) {
        return errno;
      }
    }
    return 0;
  }

 private:
  struct Words {
    std::atomic<uint32_t> w[2];
  };
  int op_flags_;
  SharedBlock<Words> word_;
};

struct StopFlag {
  std::atomic<uint32_t> stop{0};
};

using Opener = std::function<Result<std::unique_ptr<Channel>>(uint32_t payload, PeerKind peer)>;

// One round trip test. A queue the kernel will not make here (a message size above
// fs.mqueue.msgsize_max without CAP_SYS_RESOURCE, which bench/mqueue_limit.h raises for the
// run as root; the per-user queue limit) is a skip.
Primitive RoundTrip(const std::string& name, const std::string& title, const std::string& calls, PeerKind peer,
                    uint32_t payload, Opener open) {
  Primitive p;
  p.group = Group::kMessage;
  p.id = "message." + name + "." + PeerKindName(peer) + (payload > 0 ? "." + std::to_string(payload) : "");
  p.title = title + " (" + PeerKindName(peer) + ")";
  p.calls = calls;
  p.peer = peer;
  p.payload = payload;
  p.quick_equal = name == "pipe" && peer == PeerKind::kThread && payload == 4;
  p.run = [peer, payload, open, name](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    auto opened = open(payload, peer);
    if (!opened) {
      const int e = opened.error().err;
      if (name == "mqueue" && (e == EINVAL || e == EMFILE || e == ENOSPC || e == EACCES)) {
        return Skipped(opened.error().message +
                       ": a message size above fs.mqueue.msgsize_max (8192 by default) needs CAP_SYS_RESOURCE "
                       "(as root, rtagent bench raises the limit for the run), and fs.mqueue.queues_max and "
                       "RLIMIT_MSGQUEUE limit the queues");
      }
      return opened.error();
    }
    Channel* ch = opened->get();
    const size_t n = payload;
    std::vector<char> client(n + 1, 'c'), server(n + 1, 's');  // + 1: never a zero-size buffer
    SharedBlock<StopFlag> flag;
    StopFlag* f = &*flag;
    char* sbuf = server.data();
    auto serve = [ch, f, sbuf, n] {
      for (;;) {
        if (const int e = ch->Receive(kRequest, sbuf, n)) return e;
        if (f->stop.load()) return 0;
        if (const int e = ch->Send(kReply, sbuf, n)) return e;
      }
    };
    char* cbuf = client.data();
    auto round = [ch, cbuf, n](Peer&) {
      return [ch, cbuf, n]() -> int64_t {
        const int64_t t0 = NowNs();
        if (const int e = ch->Send(kRequest, cbuf, n)) return -e;
        if (const int e = ch->Receive(kReply, cbuf, n)) return -e;
        return NowNs() - t0;
      };
    };
    auto stop = [ch, f, cbuf, n](Peer&) {
      f->stop.store(1);
      (void)ch->Send(kRequest, cbuf, n);
    };
    return WithPeer(c, s, peer, c.sched, serve, round, stop, name + " round trip");
  };
  return p;
}

}  // namespace

std::vector<Primitive> MessageTests() {
  std::vector<Primitive> out;
  auto pipes = [](uint32_t payload, PeerKind) { return PipeChannel::Open(payload); };
  auto sockets = [](uint32_t payload, PeerKind) { return SocketChannel::Open(payload); };
  auto queues = [](uint32_t payload, PeerKind) { return MqueueChannel::Open(payload); };
  const PeerKind peers[] = {PeerKind::kThread, PeerKind::kProcess};
  for (PeerKind peer : peers) {
    for (uint32_t size : MessagePayloads()) {
      out.push_back(RoundTrip("pipe", "pipe", "write(); read() on a pipe each way", peer, size, pipes));
    }
  }
  for (PeerKind peer : peers) {
    for (uint32_t size : MessagePayloads()) {
      out.push_back(RoundTrip("unix", "Unix socket", "write(); read() on an AF_UNIX stream socket", peer, size, sockets));
    }
  }
  for (PeerKind peer : peers) {
    for (uint32_t size : MessagePayloads()) {
      out.push_back(RoundTrip("mqueue", "POSIX message queue", "mq_send(); mq_receive(), a queue each way", peer, size,
                              queues));
    }
  }
  for (PeerKind peer : peers) {
    out.push_back(RoundTrip("eventfd", "eventfd", "write(); read() of an 8-byte counter, an eventfd each way", peer, 0,
                            [](uint32_t payload, PeerKind) { return EventfdChannel::Open(payload); }));
  }
  for (PeerKind peer : peers) {
    out.push_back(RoundTrip("futex", "futex", "FUTEX_WAKE; FUTEX_WAIT, a futex word each way", peer, 0,
                            [](uint32_t, PeerKind k) { return FutexChannel::Open(k == PeerKind::kProcess); }));
  }
  return out;
}

}  // namespace rtagent::bench
