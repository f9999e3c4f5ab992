#include "latency/histogram.h"

#include <algorithm>
#include <string>

namespace rtagent {
namespace {

bool Later(const OverflowEvent& a, const OverflowEvent& b) {
  if (a.latency_ns != b.latency_ns) return a.latency_ns > b.latency_ns;
  return a.since_start_ns < b.since_start_ns;  // equal latencies: the earlier one first
}

bool Earlier(const OverflowEvent& a, const OverflowEvent& b) {
  if (a.since_start_ns != b.since_start_ns) return a.since_start_ns < b.since_start_ns;
  return a.sample_index < b.sample_index;
}

}  // namespace

Histogram::Histogram(uint32_t limit_us, size_t kept_events)
    : limit_us_(limit_us == 0 ? 1 : limit_us), kept_events_(kept_events), bins_(limit_us_, 0) {
  first_.reserve(kept_events_);
  worst_.reserve(kept_events_);
}

void Histogram::RecordOverflow(const OverflowEvent& e) {
  ++overflows_;
  if (e.latency_ns > overflow_max_ns_) overflow_max_ns_ = e.latency_ns;
  if (first_.size() < kept_events_) first_.push_back(e);
  if (kept_events_ == 0) return;
  if (worst_.size() < kept_events_) {
    worst_.push_back(e);
    return;
  }
  // Replace the least late kept event when this one is later: a linear scan of a few dozen
  // entries, on the overflow path only.
  size_t least = 0;
  for (size_t i = 1; i < worst_.size(); ++i) {
    if (Later(worst_[least], worst_[i])) least = i;
  }
  if (Later(e, worst_[least])) worst_[least] = e;
}

std::vector<OverflowEvent> Histogram::worst_overflows() const {
  std::vector<OverflowEvent> out = worst_;
  std::sort(out.begin(), out.end(), Later);
  return out;
}

void Histogram::Touch() {
  volatile uint64_t* p = bins_.data();
  for (size_t i = 0; i < bins_.size(); ++i) p[i] = p[i];
}

Result<void> Histogram::Merge(const Histogram& other) {
  if (other.limit_us_ != limit_us_) {
    return InvalidInput("cannot merge a histogram of " + std::to_string(other.limit_us_) + " µs bins into one of " +
                            std::to_string(limit_us_) + " µs bins");
  }
  for (size_t i = 0; i < bins_.size(); ++i) bins_[i] += other.bins_[i];
  if (other.samples_ > 0) {
    if (samples_ == 0 || other.min_ns_ < min_ns_) min_ns_ = other.min_ns_;
    max_ns_ = std::max(max_ns_, other.max_ns_);
  }
  samples_ += other.samples_;
  sum_ns_ += other.sum_ns_;
  overflows_ += other.overflows_;
  overflow_max_ns_ = std::max(overflow_max_ns_, other.overflow_max_ns_);
  skipped_periods_ += other.skipped_periods_;

  std::vector<OverflowEvent> first = first_;
  first.insert(first.end(), other.first_.begin(), other.first_.end());
  std::sort(first.begin(), first.end(), Earlier);
  if (first.size() > kept_events_) first.resize(kept_events_);
  std::vector<OverflowEvent> worst = worst_;
  worst.insert(worst.end(), other.worst_.begin(), other.worst_.end());
  std::sort(worst.begin(), worst.end(), Later);
  if (worst.size() > kept_events_) worst.resize(kept_events_);
  first_ = std::move(first);
  worst_ = std::move(worst);
  first_.reserve(kept_events_);
  worst_.reserve(kept_events_);
  return Ok();
}

HistogramParts Histogram::Parts() const {
  HistogramParts p;
  p.limit_us = limit_us_;
  p.bins = bins_;
  p.overflows = overflows_;
  p.overflow_max_ns = overflow_max_ns_;
  p.first_overflows = first_;
  p.worst_overflows = worst_overflows();
  p.samples = samples_;
  p.min_ns = min_ns();
  p.max_ns = max_ns_;
  p.sum_ns = sum_ns_;
  p.skipped_periods = skipped_periods_;
  return p;
}

Result<Histogram> Histogram::Restore(HistogramParts parts, size_t kept_events) {
  if (parts.limit_us == 0) return InvalidInput("histogram limit must be at least 1 µs");
  // Every reader refuses more (kMaxLimitUs), so a histogram made past it (an import of a file
  // naming a bucket at 10 s) would be written into a verdict that no reader takes back.
  if (parts.limit_us > kMaxLimitUs) {
    return InvalidInput("histogram limit of " + std::to_string(parts.limit_us) + " µs is past the largest, " +
                            std::to_string(kMaxLimitUs) + " µs");
  }
  if (parts.bins.size() != parts.limit_us) {
    return InvalidInput("histogram has " + std::to_string(parts.bins.size()) + " bins for a limit of " +
                            std::to_string(parts.limit_us) + " µs");
  }
  uint64_t in_bins = 0;
  for (uint64_t c : parts.bins) in_bins += c;
  if (in_bins + parts.overflows != parts.samples) {
    return InvalidInput("histogram counts do not add up: " + std::to_string(in_bins) + " in bins + " +
                            std::to_string(parts.overflows) + " overflows != " + std::to_string(parts.samples) +
                            " samples");
  }
  if (parts.samples > 0 && parts.min_ns > parts.max_ns) {
    return InvalidInput("histogram minimum " + std::to_string(parts.min_ns) + " ns is above its maximum " +
                            std::to_string(parts.max_ns) + " ns");
  }
  Histogram h(parts.limit_us, std::max(kept_events, std::max(parts.first_overflows.size(), parts.worst_overflows.size())));
  h.bins_ = std::move(parts.bins);
  h.samples_ = parts.samples;
  h.overflows_ = parts.overflows;
  h.overflow_max_ns_ = parts.overflow_max_ns;
  h.min_ns_ = parts.min_ns;
  h.max_ns_ = parts.max_ns;
  h.sum_ns_ = parts.sum_ns;
  h.skipped_periods_ = parts.skipped_periods;
  h.first_ = std::move(parts.first_overflows);
  h.worst_ = std::move(parts.worst_overflows);
  h.first_.reserve(h.kept_events_);
  h.worst_.reserve(h.kept_events_);
  return h;
}

}  // namespace rtagent
