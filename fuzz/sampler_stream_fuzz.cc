// The sampler's line protocol (latency/sampler_protocol.h): the stream the measuring process
// writes on its pipe, read by the agent line by line, and the command line it is started
// with. What the reader accepts as a whole result must encode to a stream it reads again.
#include "base/kernel_text.h"
#include "fuzz/fuzz_support.h"
#include "latency/sampler_protocol.h"

using namespace rtagent;

namespace {
Result<SamplerResult> ReadStream(std::string_view text) {
  SamplerStreamReader reader;
  for (auto line : SplitLines(text)) {
    if (!reader.Feed(line)) break;
    if (reader.finished()) break;
  }
  if (!reader.finished() || reader.failure()) return MakeError("unfinished");
  return reader.TakeResult();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::Text(data, size);
  auto result = ReadStream(text);
  if (result) {
    const std::string encoded = EncodeHello() + EncodeReady() + EncodeResult(*result);
    auto again = ReadStream(encoded);
    if (!again) fuzz::Fail("a result the reader took does not read back once encoded", text, encoded);
  }
  std::vector<std::string> args;
  for (auto w : SplitWs(text)) args.emplace_back(w);
  (void)ParseSamplerArgs(args);
  return 0;
}
