// The verdict JSON reader (report/json.h ParseVerdictJson), which `rtagent report` and
// `rtagent diff` run on files from anywhere, and the renderers that then draw what it read.
// A verdict read must render to JSON that reads back, and to the same JSON again.
#include "fuzz/fuzz_support.h"
#include "report/cyclictest_text.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/markdown.h"
#include "report/svg.h"

using namespace rtagent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::Text(data, size);
  auto v = ParseVerdictJson(text);
  if (!v) return 0;
  const std::string json = RenderJson(*v);
  auto again = ParseVerdictJson(json);
  if (!again) fuzz::Fail("a verdict rtagent rendered does not read back", json, again.error().message);
  const std::string json2 = RenderJson(*again);
  if (json2 != json) fuzz::Fail("a verdict read back renders differently", json, json2);
  (void)RenderMarkdown(*v);
  (void)RenderSvg(*v);
  (void)RenderJUnit(*v);
  (void)RenderCyclictestHistogram(*v);
  return 0;
}
