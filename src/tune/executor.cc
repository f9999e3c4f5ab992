#include "tune/executor.h"

#include <cerrno>

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

ApplyReport Executor::Apply(const std::vector<Change>& changes) {
  ApplyReport report;
  for (const auto& c : changes) report.results.push_back({c, Outcome::kNotRun, ""});
  std::vector<size_t> applied;  // indexes into results, in the order written
  size_t journaled = 0;         // entries this run added to the journal

  auto fail = [&](size_t i, std::string detail) {
    report.results[i].outcome = Outcome::kFailed;
    report.results[i].detail = std::move(detail);
    // Roll back this run, newest first, then forget it in the journal.
    for (auto it = applied.rbegin(); it != applied.rend(); ++it) {
      ChangeResult& done = report.results[*it];
      Actuator* a = Find(done.change.actuator);
      auto w = a->Write(done.change.key, done.change.before);
      if (w) {
        done.outcome = Outcome::kRolledBack;
      } else {
        report.rollback_errors += done.change.what + " (" + done.change.key + "): " + w.error().message + "\n";
      }
    }
    report.rolled_back = true;
    if (report.rollback_errors.empty()) {
      auto d = journal_.DropLast(journaled);
      if (!d) report.rollback_errors += "journal: " + d.error().message + "\n";
    }
    // With rollback errors the journal keeps its entries, so `rtagent revert` can retry.
  };

  for (size_t i = 0; i < changes.size(); ++i) {
    const Change& c = changes[i];
    ChangeResult& res = report.results[i];
    if (c.reboot) {
      res.outcome = Outcome::kRebootRequired;
      continue;
    }
    Actuator* a = Find(c.actuator);
    if (!a) {
      fail(i, "no actuator \"" + c.actuator + "\" for " + c.key);
      break;
    }
    auto now = a->Read(c.key);
    if (!now) {
      // A thread that exited since the plan (ESRCH) is a known refusal, not a failure.
      const KnownRefusal* known = nullptr;
      for (const auto& r : c.refusals) {
        if (r.err == now.error().err) known = &r;
      }
      if (known) {
        res.outcome = Outcome::kUnchangeable;
        res.detail = known->reason;
        continue;
      }
      fail(i, now.error().message);
      break;
    }
    if (SameValue(c.compare, *now, c.after)) {
      res.outcome = Outcome::kAlreadySet;
      continue;
    }
    const std::string before = WritableValue(c.compare, *now);
    // Journal before writing: a crash after this line leaves a record to revert from.
    bool recorded_now = false;
    if (!journal_.Has(c.actuator, c.key)) {
      auto j = journal_.Record({c.section, c.what, c.actuator, c.key, before, c.after, c.compare});
      if (!j) {
        fail(i, "cannot journal before writing: " + j.error().message);
        break;
      }
      ++journaled;
      recorded_now = true;
    }
    auto w = a->Write(c.key, c.after);
    if (w) {
      res.outcome = Outcome::kApplied;
      // The journal keeps the first "before"; the rollback restores what this run found.
      res.change.before = before;
      applied.push_back(i);
      continue;
    }
    bool known = false;
    for (const auto& r : c.refusals) {
      if (r.err == w.error().err) {
        res.outcome = Outcome::kUnchangeable;
        res.detail = r.reason;
        known = true;
        break;
      }
    }
    if (known) {
      // Nothing was written: the journal entry made for it is not needed.
      if (recorded_now && journal_.DropLast(1)) --journaled;
      continue;
    }
    fail(i, w.error().message);
    break;
  }
  return report;
}

RevertReport Executor::Revert() {
  RevertReport report;
  const auto entries = journal_.entries();
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    Change c;
    c.section = it->section;
    c.what = it->what;
    c.actuator = it->actuator;
    c.key = it->key;
    c.before = it->after;
    c.after = it->before;
    c.compare = it->compare;
    ChangeResult res{c, Outcome::kFailed, ""};
    Actuator* a = Find(c.actuator);
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
    } else if (auto w = a->Write(c.key, c.after); w) {
      res.outcome = Outcome::kApplied;
    } else {
      res.detail = w.error().message;
      report.complete = false;
    }
    report.results.push_back(std::move(res));
  }
  if (report.complete) {
    auto r = journal_.Clear();
    if (!r) report.complete = false;
  }
  return report;
}

}  // namespace rtagent
