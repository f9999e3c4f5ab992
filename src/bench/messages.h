// Message passing (the paper's Table 4 and ipcbench's MsgSend round trips): a request of N
// bytes to another thread or process on the same CPU and the same rank, and its reply of N
// bytes back (an echo), over the Linux counterparts of MsgSend/MsgReceive/MsgReply: a pipe
// each way, a Unix stream socket, a POSIX message queue each way, and, carrying no data, an
// eventfd each way and a futex word each way. Each round trip costs two context switches, as
// the paper's blocking message does.
#pragma once

#include <vector>

#include "bench/primitive.h"

namespace rtagent::bench {

/// message.<pipe|unix|mqueue>.<thread|process>.<bytes> for 4 B .. 64 KiB, and
/// message.<eventfd|futex>.<thread|process>.
std::vector<Primitive> MessageTests();

}  // namespace rtagent::bench
