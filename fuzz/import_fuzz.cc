// The imports of other tools' results (report/import.h): cyclictest's -h text report and its
// --json file (report/cyclictest_text.cc, cyclictest_json.cc), rtla timerlat hist
// (report/rtla_text.cc) and rteval's summary.xml (report/rteval_xml.cc, pugixml), each turned
// into a verdict that is then rendered as `rtagent report` does; tests/imports/ (the rteval-*.xml
// fixtures among them) seeds the corpus (tools/fuzz_corpus.py). An imported verdict must render
// to JSON that reads back.
#include "fuzz/fuzz_support.h"
#include "report/cyclictest_json.h"
#include "report/cyclictest_text.h"
#include "report/import.h"
#include "report/json.h"
#include "report/markdown.h"
#include "report/rteval_xml.h"
#include "report/rtla_text.h"
#include "report/svg.h"

using namespace rtagent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::Text(data, size);
  // Every import makes its histograms dense, one count per µs up to the last bucket
  // (kMaxImportedBins bounds the sum), and each render walks them again: an input naming a
  // bucket near 3.5 s took 2 s under the sanitizers, and CI's 20 s went on replaying the
  // corpus, never mutating it. The parsers still read every input; the verdict is made and
  // rendered when its histograms hold at most kRenderedBins, which any real file's do.
  constexpr uint64_t kRenderedBins = uint64_t{1} << 20;
  auto too_many = [](const auto& parsed) {
    uint64_t n = 0;
    if (parsed) for (const Histogram& h : parsed->threads) n += h.limit_us();
    return n > kRenderedBins;
  };
  // `|`, not `||`: every parser reads every input, whichever made too many bins.
  if (too_many(ParseCyclictestHistogram(text)) | too_many(ParseCyclictestJson(text)) |
      too_many(ParseRtlaTimerlatHist(text)) | too_many(ParseRtevalSummary(text))) {
    return 0;
  }
  for (const char* format : {"cyclictest", "rtla", "rteval"}) {
    auto v = ImportFile(format, "fuzz.txt", text);
    if (!v) continue;
    const std::string json = RenderJson(*v);
    auto back = ParseVerdictJson(json);
    if (!back) fuzz::Fail("an imported verdict rendered as JSON does not read back", json, back.error().message);
    (void)RenderMarkdown(*v);
    (void)RenderSvg(*v);
  }
  return 0;
}
