#include "tune/bootloader.h"

#include <algorithm>
#include <sstream>

#include "base/kernel_text.h"

namespace rtagent {

const std::vector<std::string> kManagedBootKeys = {"isolcpus", "nohz_full", "rcu_nocbs", "rcu_nocb_poll",
                                                   "irqaffinity", "skew_tick", "kthread_cpus", "nohz"};

std::string BootArgKey(std::string_view arg) {
  size_t eq = arg.find('=');
  std::string key(arg.substr(0, eq));
  // The kernel treats '-' and '_' in parameter names alike (kernel/params.c parameq()).
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

namespace {

// Splits a kernel command line into arguments, keeping "quoted values" whole.
std::vector<std::string> SplitArgs(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

}  // namespace

std::string MergeBootArgs(std::string_view line, const std::vector<std::string>& args) {
  std::vector<std::string> drop = kManagedBootKeys;
  for (const auto& a : args) drop.push_back(BootArgKey(a));
  std::string out;
  for (const auto& tok : SplitArgs(line)) {
    if (std::find(drop.begin(), drop.end(), BootArgKey(tok)) != drop.end()) continue;
    out += (out.empty() ? "" : " ") + tok;
  }
  for (const auto& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::string RenderGrubDropIn(const std::vector<std::string>& args, const std::string& profile_path) {
  std::string joined;
  for (const auto& a : args) joined += " " + a;
  return "# Written by rtagent from " + profile_path +
         ".\n# Takes effect after `update-grub` and a reboot; `rtagent revert` removes it.\n"
         "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX" + joined + "\"\n";
}

Result<std::string> EditExtlinux(std::string_view text, const std::vector<std::string>& args, const std::string& label) {
  std::vector<std::string_view> lines = SplitLines(text);
  // The entry to edit: the one asked for, else DEFAULT's, else the first.
  std::string want = label;
  if (want.empty()) {
    for (auto l : lines) {
      auto f = SplitWs(l);
      if (f.size() >= 2 && Lower(f[0]) == "default") want = std::string(f[1]);
    }
  }
  int entry_start = -1;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto f = SplitWs(lines[i]);
    if (f.size() >= 2 && Lower(f[0]) == "label" && (want.empty() || f[1] == want)) {
      entry_start = static_cast<int>(i);
      break;
    }
  }
  if (entry_start < 0) {
    return MakeError(want.empty() ? "extlinux.conf has no LABEL entry" : "extlinux.conf has no entry labelled \"" + want + "\"");
  }
  // The entry runs to the next LABEL line.
  size_t entry_end = lines.size();
  for (size_t i = static_cast<size_t>(entry_start) + 1; i < lines.size(); ++i) {
    auto f = SplitWs(lines[i]);
    if (!f.empty() && Lower(f[0]) == "label") {
      entry_end = i;
      break;
    }
  }
  std::string out;
  bool edited = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    auto f = SplitWs(l);
    bool in_entry = i > static_cast<size_t>(entry_start) && i < entry_end;
    if (in_entry && !edited && !f.empty() && Lower(f[0]) == "append") {
      size_t key_end = l.find(f[0]) + f[0].size();
      out += std::string(l.substr(0, key_end)) + " " + MergeBootArgs(l.substr(key_end), args) + "\n";
      edited = true;
      continue;
    }
    out += std::string(l) + "\n";
  }
  if (!edited) return MakeError("the extlinux.conf entry \"" + want + "\" has no APPEND line to add the arguments to");
  return out;
}

std::string EditCmdlineTxt(std::string_view text, const std::vector<std::string>& args) {
  // cmdline.txt must stay one line: the firmware reads only the first.
  std::string first(SplitLines(text).empty() ? std::string_view() : SplitLines(text)[0]);
  return MergeBootArgs(first, args) + "\n";
}

std::string EditBlsEntry(std::string_view text, const std::vector<std::string>& args) {
  std::string out;
  bool edited = false;
  for (auto l : SplitLines(text)) {
    auto f = SplitWs(l);
    if (!edited && !f.empty() && f[0] == "options") {
      out += "options " + MergeBootArgs(l.substr(l.find("options") + 7), args) + "\n";
      edited = true;
    } else {
      out += std::string(l) + "\n";
    }
  }
  if (!edited) out += "options " + MergeBootArgs("", args) + "\n";
  return out;
}

profile::BootloaderType DetectBootloader(const SysRoot& root) {
  using profile::BootloaderType;
  if (root.Exists(profile::DefaultBootloaderPath(BootloaderType::kRpi))) return BootloaderType::kRpi;
  if (root.Exists(profile::DefaultBootloaderPath(BootloaderType::kExtlinux))) return BootloaderType::kExtlinux;
  if (root.Exists("etc/default/grub") || root.IsDir("etc/default/grub.d")) return BootloaderType::kGrub;
  if (root.IsDir(profile::DefaultBootloaderPath(BootloaderType::kBls))) return BootloaderType::kBls;
  return BootloaderType::kPrint;
}

}  // namespace rtagent
