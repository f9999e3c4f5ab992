// What a hold tick reads before it decides to plan the whole profile again (issue 19). A full
// plan reads every IRQ's files and every thread's stat; on a server-sized system that is tens of
// thousands of files per tick. Most ticks find nothing changed, so a tick first reads a few
// cheap signals, and plans again only when one of them moved:
//
//  - /proc/interrupts, once: the list of interrupt lines (a new IRQ, a driver that went away,
//    a handler renamed), and, for each IRQ whose affinity the profile holds, whether its count
//    grew on a CPU outside the wanted set: an IRQ firing where the profile keeps it off has
//    been moved (by irqbalance, a vendor script, a driver reload).
//  - new threads: a new thread may match a rank rule, or be an irq/* thread re-created by a
//    driver reload. The last PID the kernel allocated (/proc/loadavg, one short line) moves
//    whenever a process or thread is created; only then is the thread list (the directories of
//    /proc and /proc/PID/task) read and compared, so a process that came and went is no signal.
//    Without /proc/loadavg (some fixture trees) the list is read on every tick.
//  - the content of the files the profile manages, compared by meaning with what the last
//    full plan left in them; at most kFilesPerTick of them per tick, in turn, so a tick's cost
//    does not grow with the number of IRQs (on a small board every file is read every tick).
//
// What none of them sees (a thread whose policy or affinity another program changed, a file
// read after its turn) the safety re-plan (hold --replan-interval, 5 minutes by default) catches.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/cpuset.h"
#include "base/kernel_paths.h"
#include "base/sysroot.h"
#include "tune/change.h"

namespace rtagent::service {

/// /proc/loadavg (kpath::kLoadavg): its last field, the PID (or TID) the kernel allocated
/// last, moves whenever a process or thread is created (proc(5)).
using kpath::kLoadavg;

/// A file the profile manages, with the value the last full plan left in it.
struct WatchedFile {
  std::string key;      ///< root-relative path
  Compare compare = Compare::kExact;
  std::string value;    ///< what it holds now: the wanted value, or the one the kernel kept
  /// An IRQ's smp_affinity_list held at `cpus`: its count growing on another CPU is a signal.
  /// -1 for every other file (and for an IRQ whose move the kernel refused).
  int irq = -1;
  CpuSet cpus;
};

/// The IRQ number of an irqs item whose key is that IRQ's smp_affinity_list; -1 otherwise.
int AffinityListIrq(const std::string& key);

class WatchSignals {
 public:
  /// Managed files read per tick at most; the rest on the next ticks, in turn.
  static constexpr size_t kFilesPerTick = 256;

  /// Takes the baseline after a full plan (and the re-asserts that followed it): reads
  /// /proc/interrupts and the thread list now, and keeps `files`.
  void Arm(const SysRoot& root, std::vector<WatchedFile> files);
  /// The next Check() says "not armed": the next tick plans fully.
  void Disarm() { armed_ = false; }
  bool Armed() const { return armed_; }
  /// Reads the cheap signals. "" when none moved; else what moved, for a person ("IRQ 125
  /// fired on CPU 2, outside 0", "the thread list changed", ...). Never plans, never writes.
  std::string Check(const SysRoot& root);

  /// For tests and the bench: how many managed files are watched, and how many each Check reads.
  size_t WatchedFiles() const { return files_.size(); }

 private:
  struct IrqWatch {
    CpuSet cpus;
    unsigned long long outside = 0;  ///< its count summed over the CPUs outside `cpus`
  };
  /// Reads /proc/interrupts: the line list (labels and what follows the counts) into *lines,
  /// and each watched IRQ's count outside its CPUs into *outside (by IRQ). False when unreadable.
  bool ReadInterrupts(const SysRoot& root, std::string* lines,
                      std::unordered_map<int, unsigned long long>* outside) const;
  static std::vector<int> ThreadList(const SysRoot& root);
  /// The last PID field of /proc/loadavg; -1 when it cannot be read.
  static long long LastPid(const SysRoot& root);

  bool armed_ = false;
  std::string irq_lines_;
  std::unordered_map<int, IrqWatch> irqs_;
  std::vector<int> threads_;
  long long last_pid_ = -1;
  std::vector<WatchedFile> files_;
  size_t next_file_ = 0;
};

}  // namespace rtagent::service
