#include "tune/executor.h"

#include <algorithm>
#include <cerrno>
#include <unordered_map>
#include <unordered_set>

#include "tune/refusals.h"

namespace rtagent {

std::string_view OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kApplied: return "applied";
    case Outcome::kAlreadySet: return "already set";
    case Outcome::kUnchangeable: return "unchangeable";
    case Outcome::kRebootRequired: return "reboot required";
    case Outcome::kFailed: return "failed";
    case Outcome::kRolledBack: return "rolled back";
    case Outcome::kNotRun: return "not run";
  }
  return "?";
}

int ApplyReport::Count(Outcome o) const {
  int n = 0;
  for (const auto& r : results) n += r.outcome == o;
  return n;
}

Executor::Executor(SysRoot& root, Journal& journal) : root_(root), journal_(journal) {
  actuators_["file"] = std::make_unique<FileActuator>(root_);
}

void Executor::AddActuator(const std::string& name, std::unique_ptr<Actuator> actuator) {
  actuators_[name] = std::move(actuator);
}

Actuator* Executor::Find(const std::string& name) {
  auto it = actuators_.find(name);
  return it == actuators_.end() ? nullptr : it->second.get();
}

size_t Executor::BatchEnd(const std::vector<ChangeResult>& items, size_t begin) {
  auto batchable = [&](const Change& c) {
    if (c.reboot) return true;  // never written
    Actuator* a = Find(c.actuator);
    return a != nullptr && a->Batchable();
  };
  if (!batchable(items[begin].change)) return begin + 1;
  std::unordered_set<std::string> keys;
  size_t end = begin;
  for (; end < items.size(); ++end) {
    const Change& c = items[end].change;
    if (c.section != items[begin].change.section || !batchable(c)) break;
    // The same key twice: the second must be read after the first is written.
    if (!c.reboot && !keys.insert(c.actuator + '\n' + c.key).second) break;
  }
  return end;
}

namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

const KnownRefusal* FindRefusal(const Change& c, int err) {
  for (const auto& r : c.refusals) {
    if (r.err == err) return &r;
  }
  return nullptr;
}

}  // namespace

// A value found before a write: an item's own, or one of its side effects.
struct Executor::Found {
  SideEffect side;
  std::string before;
};

// What a rollback puts back, in the order it changed: an item written in this run
// (`result`), or a side effect found just before such a write (`result` kNone).
struct Executor::Undo {
  size_t result = kNone;
  Found side;
};

// A change of the current batch that differs from the system and will be written.
struct Executor::ToWrite {
  size_t index = 0;          // into the report's results
  std::string before;        // the value this run found
  size_t record = kNone;     // its entry in the batch's journal records, when made now
  std::vector<Found> sides;  // side effects found before it is written
};

// One Apply call: its report, what a rollback would put back, and how many journal entries it
// added (they are the journal's tail).
struct Executor::ApplyRun {
  ApplyReport report;
  std::vector<Undo> undo;
  size_t journaled = 0;
};

// One batch: the journal records it makes (each actuator + key once) and the changes to write.
struct Executor::Batch {
  std::vector<JournalEntry> records;
  std::unordered_set<std::string> recorded;  // actuator + '\n' + key of `records`
  std::vector<ToWrite> writes;
  size_t journal_base = 0;  // the journal's size before the batch's records were added

  // Adds `e` unless the journal or this batch already keeps a "before" for its key; returns
  // its position in `records`, or kNone.
  size_t Record(const Journal& journal, JournalEntry e) {
    if (journal.Has(e.actuator, e.key) || !recorded.insert(e.actuator + '\n' + e.key).second) return kNone;
    records.push_back(std::move(e));
    return records.size() - 1;
  }
};

ApplyReport Executor::Apply(std::vector<Change> changes) {
  ApplyRun run;
  // Each change is held once, in its result (the large tree's 14,000 changes, issue 19); the
  // steps below read it there.
  run.report.results.reserve(changes.size());
  for (Change& c : changes) run.report.results.push_back({std::move(c), Outcome::kNotRun, "", {}, std::nullopt});
  changes = {};
  for (size_t begin = 0; begin < run.report.results.size();) {
    if (stop_ != nullptr && stop_->load()) {
      run.report.stopped = true;
      Fail(run, begin, "stopped by a signal before this change was written; the run is rolled back");
      break;
    }
    const size_t end = BatchEnd(run.report.results, begin);
    Batch batch;
    // 1. Read the whole batch: what each item is now, and what its write will disturb.
    if (!ReadBatch(run, begin, end, batch)) break;
    // 2. Journal the batch in one durable rewrite: a crash after this leaves a record of every
    //    value the batch may change, written or not (revert finds the unwritten ones already back).
    if (!JournalBatch(run, batch)) break;
    // 3. Write the batch in order.
    if (!WriteBatch(run, batch)) break;
    begin = end;
  }
  if (!run.report.rolled_back) RecordRefusals(run.report);
  return std::move(run.report);
}

void Executor::RecordRefusals(ApplyReport& report) {
  bool changed = false;
  if (!refusals_) {
    if (auto loaded = RefusalRecord::Load(root_)) {
      refusals_ = std::move(*loaded);
    } else {
      // Rewritten from this run alone, so the next verify has a record it can read.
      report.warnings.push_back("the earlier record of the kernel's refusals is replaced: " + loaded.error().message);
      refusals_.emplace();
      changed = true;
    }
  }
  std::vector<Refusal>& record = *refusals_;
  // Every key this run settled (written, found in place or refused) leaves the record in one
  // pass; the refused ones then go back in with what this run found. A large server's apply
  // settles 14,000 items (issue 19), so not one pass over the record per item.
  auto refused = [](const ChangeResult& r) { return r.outcome == Outcome::kUnchangeable && r.found.has_value(); };
  auto settled = [&](const ChangeResult& r) {
    return r.outcome == Outcome::kApplied || r.outcome == Outcome::kAlreadySet || refused(r);
  };
  if (record.empty() && std::none_of(report.results.begin(), report.results.end(), refused)) {
    if (changed) StoreRefusals(report);  // the unreadable record goes
    return;
  }
  std::unordered_map<std::string, size_t> last;  // actuator + '\n' + key -> its last settled result
  for (size_t i = 0; i < report.results.size(); ++i) {
    const ChangeResult& r = report.results[i];
    if (settled(r)) last[r.change.actuator + '\n' + r.change.key] = i;
  }
  if (!record.empty() && !last.empty()) {
    const size_t before = record.size();
    std::erase_if(record, [&](const Refusal& x) { return last.count(x.actuator + '\n' + x.key) != 0; });
    changed = changed || record.size() != before;
  }
  for (size_t i = 0; i < report.results.size(); ++i) {
    const ChangeResult& r = report.results[i];
    if (!refused(r)) continue;
    const Change& c = r.change;
    if (last[c.actuator + '\n' + c.key] != i) continue;  // a key written twice: its last outcome counts
    record.push_back({c.section, c.what, c.actuator, c.key, c.after, *r.found, c.compare, r.detail});
    changed = true;
  }
  if (!changed) return;
  SortRefusals(record);
  StoreRefusals(report);
}

void Executor::StoreRefusals(ApplyReport& report) {
  if (auto s = RefusalRecord::Store(root_, *refusals_); !s) {
    report.warnings.push_back("the kernel's refusals could not be recorded for `rtagent verify` (" + s.error().message +
                              "): verify reports the unchangeable items as settings that differ from the profile");
  }
}

const std::vector<Refusal>& Executor::Refusals() const {
  static const std::vector<Refusal> kNone;
  return refusals_ ? *refusals_ : kNone;
}

bool Executor::ReadBatch(ApplyRun& run, size_t begin, size_t end, Batch& batch) {
  for (size_t i = begin; i < end; ++i) {
    ChangeResult& res = run.report.results[i];
    const Change& c = res.change;
    if (c.reboot) {
      res.outcome = Outcome::kRebootRequired;
      continue;
    }
    Actuator* a = Find(c.actuator);
    if (!a) return Fail(run, i, "no actuator \"" + c.actuator + "\" for " + c.key);
    auto now = a->Read(c.key);
    if (!now) {
      // A thread that exited since the plan (ESRCH) is a known refusal, not a failure.
      const KnownRefusal* known = FindRefusal(c, now.error().err);
      if (!known) return Fail(run, i, now.error().message);
      res.outcome = Outcome::kUnchangeable;
      res.detail = known->reason;
      continue;
    }
    if (SameValue(c.compare, *now, c.after)) {
      res.outcome = Outcome::kAlreadySet;
      continue;
    }
    ToWrite w;
    w.index = i;
    w.before = WritableValue(c.compare, *now);
    if (!ReadSideEffects(run, c, *a, batch, w)) return false;
    // The journal keeps the first "before" of a key (an older apply's, or a side effect's).
    w.record = batch.Record(journal_, {c.section, c.what, c.actuator, c.key, w.before, c.after, c.compare, "", {}});
    batch.writes.push_back(std::move(w));
  }
  return true;
}

bool Executor::ReadSideEffects(ApplyRun& run, const Change& c, Actuator& a, Batch& batch, ToWrite& w) {
  auto sides = a.SideEffects(c.key, c.after);
  if (!sides) return Fail(run, w.index, "cannot tell what else writing it changes: " + sides.error().message);
  for (SideEffect& s : *sides) {
    Actuator* sa = Find(s.actuator);
    if (!sa) return Fail(run, w.index, "no actuator \"" + s.actuator + "\" to keep " + s.what);
    auto value = sa->Read(s.key);
    if (!value) {
      if (value.error().err == ESRCH || value.error().err == ENOENT) continue;  // gone: nothing to keep
      return Fail(run, w.index, "cannot read " + s.what + " before writing: " + value.error().message);
    }
    std::string before = WritableValue(s.compare, *value);
    batch.Record(journal_, {c.section, s.what, s.actuator, s.key, before, before, s.compare, c.key, {}});
    w.sides.push_back({std::move(s), std::move(before)});
  }
  return true;
}

bool Executor::JournalBatch(ApplyRun& run, Batch& batch) {
  batch.journal_base = journal_.entries().size();
  const size_t records = batch.records.size();
  if (auto j = journal_.RecordAll(std::move(batch.records)); !j) {
    return Fail(run, batch.writes.front().index, "cannot journal before writing: " + j.error().message);
  }
  run.journaled += records;
  return true;
}

bool Executor::WriteBatch(ApplyRun& run, Batch& batch) {
  std::vector<size_t> unneeded;  // journal positions of items the kernel refused
  // The undo list grows by what this batch can add, once: grown by doubling, it held its old and
  // its new array at once, 14 MB at the partition batch of the large tree (issue 19).
  size_t can_add = batch.writes.size();
  for (const ToWrite& w : batch.writes) can_add += w.sides.size();
  run.undo.reserve(run.undo.size() + can_add);
  for (ToWrite& w : batch.writes) {
    ChangeResult& res = run.report.results[w.index];
    const Change& c = res.change;
    for (Found& f : w.sides) run.undo.push_back({kNone, std::move(f)});
    Actuator* a = Find(c.actuator);
    auto written = a->Write(c.key, c.after);
    res.runs = a->TakeRuns();
    if (written) {
      res.outcome = Outcome::kApplied;
      // The journal keeps the first "before"; the rollback restores what this run found.
      res.change.before = w.before;
      run.undo.push_back({w.index, {}});
      // What the write ran (a boot loader's update step) goes into its journal entry.
      if (!res.runs.empty()) {
        if (auto r = journal_.AddRuns(c.actuator, c.key, res.runs); !r) {
          // The file is written and its entry (the "before") was journaled before the write:
          // revert works. Only the record of what the command ran is lost; say so loudly.
          res.detail = "its commands could not be recorded in the journal: " + r.error().message;
          std::string ran;
          for (const CommandRun& run : res.runs) ran += (ran.empty() ? "" : ", ") + run.CommandLine();
          run.report.warnings.push_back("journal: /" + c.key + " is applied and journaled (`rtagent revert` puts it back), "
                                        "but what its update command ran (" + ran + ") could not be added to its entry: " +
                                        r.error().message + "; the command's status and output are shown here only");
        }
      }
      continue;
    }
    const KnownRefusal* known = FindRefusal(c, written.error().err);
    if (!known) return Fail(run, w.index, written.error().message);
    res.outcome = Outcome::kUnchangeable;
    res.detail = known->reason;
    res.found = w.before;
    // Nothing was written: the journal entry made for it is not needed.
    if (w.record != kNone) unneeded.push_back(batch.journal_base + w.record);
  }
  if (!unneeded.empty() && journal_.Drop(unneeded)) run.journaled -= unneeded.size();
  return true;
}

bool Executor::Fail(ApplyRun& run, size_t index, std::string detail) {
  run.report.results[index].outcome = Outcome::kFailed;
  run.report.results[index].detail = std::move(detail);
  Rollback(run);
  return false;
}

void Executor::Rollback(ApplyRun& run) {
  ApplyReport& report = run.report;
  // Newest first, then forget this run in the journal.
  for (auto it = run.undo.rbegin(); it != run.undo.rend(); ++it) {
    if (it->result != kNone) {
      ChangeResult& done = report.results[it->result];
      Actuator* a = Find(done.change.actuator);
      auto w = a->Write(done.change.key, done.change.before);
      for (CommandRun& cmd : a->TakeRuns()) done.runs.push_back(std::move(cmd));
      if (w) {
        done.outcome = Outcome::kRolledBack;
      } else {
        report.rollback_errors += done.change.what + " (" + done.change.key + "): " + w.error().message + "\n";
      }
      continue;
    }
    // A side effect: put back only what the kernel changed, and skip what has gone.
    const SideEffect& s = it->side.side;
    Actuator* a = Find(s.actuator);
    auto now = a->Read(s.key);
    if (!now) {
      if (now.error().err == ESRCH || now.error().err == ENOENT) continue;
      report.rollback_errors += s.what + " (" + s.key + "): " + now.error().message + "\n";
      continue;
    }
    if (SameValue(s.compare, *now, it->side.before)) continue;
    if (auto w = a->Write(s.key, it->side.before); !w) {
      report.rollback_errors += s.what + " (" + s.key + "): " + w.error().message + "\n";
    }
  }
  report.rolled_back = true;
  // With rollback errors the journal keeps its entries, so `rtagent revert` can retry.
  if (report.rollback_errors.empty()) {
    auto d = journal_.DropLast(run.journaled);
    if (!d) report.rollback_errors += "journal: " + d.error().message + "\n";
  }
}

namespace {

// Puts one journaled value back through its actuator `a` (null when none has that name).
void RevertOne(const JournalEntry& entry, Actuator* a, RevertReport& report) {
  Change c;
  c.section = entry.section;
  c.what = entry.what;
  c.actuator = entry.actuator;
  c.key = entry.key;
  c.before = entry.after;
  c.after = entry.before;
  c.compare = entry.compare;
  c.side_effect_of = entry.side_effect_of;
  ChangeResult res{c, Outcome::kFailed, "", {}, std::nullopt};
  if (!a) {
    res.detail = "no actuator \"" + c.actuator + "\"";
    report.complete = false;
  } else if (auto now = a->Read(c.key); !now) {
    // A thread that exited or an IRQ that went away has nothing left to put back.
    if (now.error().err == ENOENT || now.error().err == ESRCH) {
      res.outcome = Outcome::kAlreadySet;
      res.detail = "gone";
    } else {
      res.detail = now.error().message;
      report.complete = false;
    }
  } else if (SameValue(c.compare, *now, c.after)) {
    res.outcome = Outcome::kAlreadySet;
  } else {
    auto w = a->Write(c.key, c.after);
    res.runs = a->TakeRuns();
    if (w) {
      res.outcome = Outcome::kApplied;
    } else {
      res.detail = w.error().message;
      report.complete = false;
    }
  }
  report.results.push_back(std::move(res));
}

}  // namespace

RevertReport Executor::Revert() {
  RevertReport report;
  const auto& entries = journal_.entries();  // not copied: nothing changes it before Clear()
  report.results.reserve(entries.size());
  // Newest first, except the entries of an actuator that reverts first (Actuator::RevertFirst):
  // apply bans the isolated CPUs in irqbalance before it moves IRQs off them, so a plain
  // reverse order would put the IRQs back while the banning irqbalance still runs, and its next
  // pass (every 10 s) could move them again before its restart with the old configuration
  // (seen in the rt-tuned guest).
  for (int pass = 0; pass < 2; ++pass) {
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      Actuator* a = Find(it->actuator);
      if ((a != nullptr && a->RevertFirst()) == (pass == 0)) RevertOne(*it, a, report);
    }
  }
  if (report.complete) {
    auto r = journal_.Clear();
    if (!r) report.complete = false;
  }
  // The refusals were the applied profile's; with its values back, they explain nothing. A
  // record that cannot be removed leaves the revert unfinished, as a journal would.
  if (report.complete) {
    if (auto r = RefusalRecord::Store(root_, {}); !r) report.complete = false;
    else refusals_.emplace();
  }
  return report;
}

}  // namespace rtagent
