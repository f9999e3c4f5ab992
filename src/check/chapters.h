// The chapters of the "Real-Time Linux" lesson (shared/seeds, the Field Guide's sources) that
// the checks cite, and the small helpers every check uses to build its answers.
#pragma once

#include <iterator>
#include <string>
#include <vector>

#include "check/check.h"

namespace rtagent::check {

inline constexpr char kChapter1[] = "Chapter 1 (How a program waits)";
inline constexpr char kChapter2[] = "Chapter 2 (Who goes first)";
inline constexpr char kChapter3[] = "Chapter 3 (What keeps the kernel busy)";
inline constexpr char kChapter4[] = "Chapter 4 (Inside the real-time kernel)";
inline constexpr char kChapter5[] = "Chapter 5 (Measuring the worst case)";
inline constexpr char kChapter6[] = "Chapter 6 (A core of its own)";
inline constexpr char kChapter7[] = "Chapter 7 (Saving power costs time)";
inline constexpr char kChapter8[] = "Chapter 8 (Your own program's habits)";
inline constexpr char kChapter9[] = "Chapter 9 (Sharing data safely)";
inline constexpr char kChapter10[] = "Chapter 10 (When Linux is not enough)";
inline constexpr char kChapter11[] = "Chapter 11 (Field Guide)";

/// The chapter numbered `n` (a tuner's Chapter()); the Field Guide for a number none has.
inline const char* ChapterTitle(int n) {
  constexpr const char* kByNumber[] = {nullptr,    kChapter1, kChapter2, kChapter3,  kChapter4, kChapter5,
                                       kChapter6, kChapter7, kChapter8, nullptr,    kChapter10, kChapter11};
  const char* t = n >= 0 && static_cast<size_t>(n) < std::size(kByNumber) ? kByNumber[static_cast<size_t>(n)] : nullptr;
  return t != nullptr ? t : kChapter11;
}

/// A result with its identity and verdict filled in; callers add measured, limit, mark, hint.
inline CheckResult NewResult(const std::string& check, const std::string& id, Status status, std::string summary,
                             const std::string& chapter) {
  CheckResult r;
  r.check = check;
  r.id = id;
  r.status = status;
  r.summary = std::move(summary);
  r.chapter = chapter;
  return r;
}

/// "a, b and c".
inline std::string JoinAnd(const std::vector<std::string>& items) {
  // Sized once: verify joins 14,000 differences of a large server into one line of a megabyte.
  size_t size = 0;
  for (const std::string& s : items) size += s.size() + 5;
  std::string out;
  out.reserve(size);
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace rtagent::check
