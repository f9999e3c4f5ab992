// The journal reader (tune/journal.h): run/rtagent/journal.json, the boot journal in
// var/lib/rtagent and etc/machine-id, as a crash, a full disk or another rtagent may leave
// them. Input: the runtime journal, then the boot journal and the machine id after the
// separator. A journal that loads must store and load again to the same entries.
#include "fuzz/fuzz_support.h"
#include "tune/journal.h"

using namespace rtagent;

namespace {
bool SameEntries(const std::vector<JournalEntry>& a, const std::vector<JournalEntry>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const JournalEntry &x = a[i], &y = b[i];
    if (x.section != y.section || x.what != y.what || x.actuator != y.actuator || x.key != y.key ||
        x.before != y.before || x.after != y.after || x.compare != y.compare || x.side_effect_of != y.side_effect_of ||
        x.runs.size() != y.runs.size())
      return false;
  }
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto files = fuzz::SplitFiles(fuzz::Text(data, size));
  fuzz::MemRoot root;
  root.files[Journal::Path()] = files[0];
  if (files.size() > 1) root.files[Journal::BootPath()] = files[1];
  if (files.size() > 2) root.files["etc/machine-id"] = files[2];
  Journal journal(root);
  if (!journal.Load()) return 0;
  const std::vector<JournalEntry> loaded = journal.entries();
  // A new entry makes it store both files again; loaded back, nothing may be lost or changed.
  JournalEntry extra{"fuzz", "a value", "file", "proc/sys/fuzz/" + std::to_string(loaded.size()), "1", "2"};
  if (!journal.Has(extra.actuator, extra.key)) {
    if (!journal.Record(extra)) return 0;
  }
  Journal again(root);
  auto r = again.Load();
  if (!r) fuzz::Fail("a journal rtagent stored does not load again", "", r.error().message);
  if (!SameEntries(journal.entries(), again.entries())) {
    fuzz::Fail("the journal stored and loaded again differs", root.files[Journal::Path()],
               root.files.count(Journal::BootPath()) ? root.files[Journal::BootPath()] : "");
  }
  return 0;
}
