// Small, pure helpers for the text formats the kernel prints in /proc and /sys files, and for
// the lists rtagent's messages name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtagent {

/// The bytes the kernel's own parsers take for white space (isspace(): space, \t, \n, \v,
/// \f, \r; kernel/params.c next_arg() splits the command line at them), and NUL: the set
/// TrimView trims and SplitWs splits at.
bool IsKernelSpace(char c);

/// `s` without leading and trailing whitespace (spaces, tabs, newlines, NULs: device-tree
/// strings end with a NUL).
std::string_view TrimView(std::string_view s);
/// Owned copy of TrimView(s).
std::string Trim(std::string_view s);

/// Whitespace-separated fields of `s` (views into `s`), empty fields dropped.
std::vector<std::string_view> SplitWs(std::string_view s);
/// The first `max` whitespace-separated fields of `s` into `out` (views into `s`, nothing
/// allocated); returns how many there were, at most `max`. For hot parsers that read a few
/// leading fields of many lines (proc/PID/stat).
size_t SplitWsInto(std::string_view s, std::string_view* out, size_t max);
/// Fields of `s` separated by `sep`; empty fields kept ("a,,b" has three).
std::vector<std::string_view> SplitChar(std::string_view s, char sep);
/// Lines of `s` without their '\n'; a final empty line is not returned.
std::vector<std::string_view> SplitLines(std::string_view s);
/// True when `word` is one of the whitespace-separated words of `s` ("cpuset" in a
/// cgroup.controllers line "cpuset cpu io").
bool HasWord(std::string_view s, std::string_view word);

/// True when `s` is one or more decimal digits and nothing else: the name of a PID's, a
/// thread's or an IRQ's directory, an IRQ's row in /proc/interrupts.
bool AllDigits(std::string_view s);
/// A decimal integer filling all of `s` (surrounding whitespace allowed), or nullopt.
std::optional<long long> ParseInt(std::string_view s);
/// An unsigned decimal integer filling all of `s`, or nullopt.
std::optional<unsigned long long> ParseUint(std::string_view s);

/// The selected choice of a sysfs "choice" file: "always [madvise] never" -> "madvise"
/// (transparent_hugepage, Documentation/admin-guide/mm/transhuge.rst). The debugfs
/// preempt file marks it with parentheses instead ("none voluntary (full) lazy"), which
/// is accepted too. nullopt when nothing is marked.
std::optional<std::string> ParseBracketChoice(std::string_view text);
/// Every choice offered by such a file, without the marks, in order.
std::vector<std::string> BracketChoices(std::string_view text);

/// The value of a "Key:\tvalue" line of a /proc/PID/status-like file, trimmed; nullopt
/// when the key is absent.
std::optional<std::string> FindKeyValue(std::string_view text, std::string_view key);

/// The first `most` items joined with ", ", and " and N more" for the rest: a list in a
/// message that stays one line however many items there are.
std::string JoinSome(const std::vector<std::string>& items, size_t most);

}  // namespace rtagent
