#include "tune/bootloader.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstring>

#include "base/kernel_text.h"
#include "tune/command_runner.h"

namespace rtagent {

using profile::BootloaderType;

const std::vector<std::string>& ManagedBootKeys() {
  static const std::vector<std::string> k = {"isolcpus", "nohz_full", "rcu_nocbs", "rcu_nocb_poll",
                                                     "irqaffinity", "skew_tick", "kthread_cpus", "nohz"};
  return k;
}

namespace {

std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Every key that StripBootArgs removes for `args`.
std::vector<std::string> DroppedKeys(const std::vector<std::string>& args) {
  std::vector<std::string> drop = ManagedBootKeys();
  for (const auto& a : args) drop.push_back(BootArgKey(a));
  return drop;
}

bool CarriesDropped(std::string_view line, const std::vector<std::string>& args) {
  const auto drop = DroppedKeys(args);
  for (const auto& tok : SplitBootArgs(line)) {
    if (std::find(drop.begin(), drop.end(), BootArgKey(tok)) != drop.end()) return true;
  }
  return false;
}

// A value as a double-quoted shell word: \, ", $ and ` escaped.
std::string ShellQuote(std::string_view v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '\\' || c == '"' || c == '$' || c == '`') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string BootArgKey(std::string_view arg) {
  size_t eq = arg.find('=');
  std::string key(arg.substr(0, eq));
  // The kernel treats '-' and '_' in parameter names alike (kernel/params.c parameq()).
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

std::vector<std::string> SplitBootArgs(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    // Split where the kernel splits (IsKernelSpace): the editors trim with the same set, so no
    // argument can begin or end with a byte a second edit would trim away (a form feed kept at
    // the end of an argument did: fuzz/bootfile_fuzz.cc).
    if (!quoted && IsKernelSpace(c)) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string JoinBootArgs(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    std::string t = Trim(p);
    if (!t.empty()) out += (out.empty() ? "" : " ") + t;
  }
  return out;
}

std::string StripBootArgs(std::string_view line, const std::vector<std::string>& args) {
  const auto drop = DroppedKeys(args);
  std::string out;
  for (const auto& tok : SplitBootArgs(line)) {
    if (std::find(drop.begin(), drop.end(), BootArgKey(tok)) != drop.end()) continue;
    out += (out.empty() ? "" : " ") + tok;
  }
  // A quote left open runs to the end of the line (the kernel's next_arg() reads it so): an
  // argument appended after it would be part of the quoted value, and each apply would append
  // it again (fuzz/bootfile_fuzz.cc). Closing it at the end keeps the value the kernel reads.
  if (std::count(out.begin(), out.end(), '"') % 2) out += '"';
  return out;
}

std::string MergeBootArgs(std::string_view line, const std::vector<std::string>& args) {
  std::vector<std::string> parts = {StripBootArgs(line, args)};
  parts.insert(parts.end(), args.begin(), args.end());
  return JoinBootArgs(parts);
}

// ----------------------------------------------------------------------------------- GRUB

namespace {

// One pass over a shell file for ParseShellAssignments: the position, the line, and the
// variables known so far.
class ShellScanner {
 public:
  ShellScanner(std::string_view text, std::map<std::string, std::string>* vars) : text_(text), vars_(vars) {}

  bool AtEnd() const { return i_ >= text_.size(); }

  /// At the start of a line: the assignment it begins with, or nullopt (the line is skipped).
  std::optional<ShellAssignment> Statement() {
    const size_t start = i_;
    SkipBlanks();
    const bool exported = text_.compare(i_, 7, "export ") == 0;
    if (exported) {
      i_ += 7;
      SkipBlanks();
    }
    const size_t name_begin = i_;
    if (!AtEnd() && IsNameStart(text_[i_])) {
      while (!AtEnd() && IsNameChar(text_[i_])) ++i_;
    }
    if (i_ == name_begin || AtEnd() || text_[i_] != '=') {
      NextLine();
      return std::nullopt;
    }
    ShellAssignment a;
    a.name = std::string(text_.substr(name_begin, i_ - name_begin));
    a.begin = start;
    a.line = line_;
    a.exported = exported;
    ++i_;  // '='
    a.value = Word(a);
    a.end = i_;
    (*vars_)[a.name] = a.value;
    NextLine();
    return a;
  }

 private:
  void SkipBlanks() {
    while (!AtEnd() && (text_[i_] == ' ' || text_[i_] == '\t')) ++i_;
  }
  // Past the end of this line.
  void NextLine() {
    while (!AtEnd() && text_[i_] != '\n') ++i_;
    if (!AtEnd()) ++i_, ++line_;
  }

  // The word: quoted and bare parts up to unquoted whitespace, ';', '&', '|' or the end of line.
  std::string Word(ShellAssignment& a) {
    std::string value;
    while (!AtEnd()) {
      const char c = text_[i_];
      if (c == '\'') {
        SingleQuoted(value);
      } else if (c == '"') {
        DoubleQuoted(a, value);
      } else if (c == '\\' && i_ + 1 < text_.size()) {
        Escaped(value);
      } else if (c == '$') {
        Expand(a, value);
      } else if (c == '`') {
        a.known = false;
        ++i_;
      } else if (c == ' ' || c == '\t' || c == ';' || c == '\n' || c == '&' || c == '|') {
        break;
      } else {
        value += c;
        ++i_;
      }
    }
    return value;
  }

  void SingleQuoted(std::string& value) {
    size_t close = text_.find('\'', i_ + 1);
    if (close == std::string_view::npos) close = text_.size();
    for (size_t k = i_ + 1; k < close; ++k) line_ += text_[k] == '\n';
    value += text_.substr(i_ + 1, close - i_ - 1);
    i_ = close + 1;
  }

  void DoubleQuoted(ShellAssignment& a, std::string& value) {
    ++i_;
    while (!AtEnd() && text_[i_] != '"') {
      if (text_[i_] == '\\' && i_ + 1 < text_.size() && std::strchr("$`\"\\\n", text_[i_ + 1])) {
        Escaped(value);
      } else if (text_[i_] == '$') {
        Expand(a, value);
      } else if (text_[i_] == '`') {
        a.known = false;
        ++i_;
      } else {
        line_ += text_[i_] == '\n';
        value += text_[i_++];
      }
    }
    ++i_;  // closing quote
  }

  // A backslash and the character it escapes (a newline after it joins the lines).
  void Escaped(std::string& value) {
    if (text_[i_ + 1] != '\n') {
      value += text_[i_ + 1];
    } else {
      ++line_;
    }
    i_ += 2;
  }

  // At '$': $NAME, ${NAME}; "$(" or "${...:-...}" forms are beyond a plain assignment.
  void Expand(ShellAssignment& a, std::string& value) {
    ++i_;
    std::string name;
    if (!AtEnd() && text_[i_] == '{') {
      const size_t close = text_.find('}', i_);
      if (close == std::string_view::npos) {
        a.known = false;
        return;
      }
      name = std::string(text_.substr(i_ + 1, close - i_ - 1));
      i_ = close + 1;
      if (name.empty() || !std::all_of(name.begin(), name.end(), IsNameChar)) a.known = false;
    } else if (!AtEnd() && IsNameStart(text_[i_])) {
      const size_t b = i_;
      while (!AtEnd() && IsNameChar(text_[i_])) ++i_;
      name = std::string(text_.substr(b, i_ - b));
    } else {
      a.known = false;  // $(...), $1, $? ...
      return;
    }
    if (auto it = vars_->find(name); it != vars_->end()) value += it->second;
  }

  std::string_view text_;
  std::map<std::string, std::string>* vars_;
  size_t i_ = 0;
  int line_ = 1;
};

}  // namespace

std::vector<ShellAssignment> ParseShellAssignments(std::string_view text, std::map<std::string, std::string>* vars) {
  std::vector<ShellAssignment> out;
  ShellScanner scan(text, vars);
  while (!scan.AtEnd()) {
    if (auto a = scan.Statement()) out.push_back(std::move(*a));
  }
  return out;
}

void SourceGrubFile(std::string_view text, const std::string& name, GrubCmdline* vars) {
  std::map<std::string, std::string> v = {{"GRUB_CMDLINE_LINUX", vars->linux},
                                          {"GRUB_CMDLINE_LINUX_DEFAULT", vars->linux_default},
                                          {"GRUB_ENABLE_BLSCFG", vars->bls ? "true" : ""}};
  for (const ShellAssignment& a : ParseShellAssignments(text, &v)) {
    if (a.name != "GRUB_CMDLINE_LINUX" && a.name != "GRUB_CMDLINE_LINUX_DEFAULT") continue;
    if (!a.known) {
      vars->unknown.push_back(name + ":" + std::to_string(a.line) + ": " + a.name +
                              " is set by a command or an expansion rtagent does not evaluate");
    }
  }
  vars->linux = v["GRUB_CMDLINE_LINUX"];
  vars->linux_default = v["GRUB_CMDLINE_LINUX_DEFAULT"];
  vars->bls = v["GRUB_ENABLE_BLSCFG"] == "true";
}

std::string RenderGrubDropIn(const GrubCmdline& before, const std::vector<std::string>& args,
                             const std::string& profile_path) {
  std::string out = "# Written by rtagent from " + profile_path +
                    ": the kernel arguments of its cores section.\n"
                    "# grub-mkconfig (update-grub) reads it after /etc/default/grub; `rtagent revert` removes it\n"
                    "# and runs update-grub again.\n";
  const bool strip_linux = CarriesDropped(before.linux, args);
  const bool strip_default = CarriesDropped(before.linux_default, args);
  if (strip_linux || strip_default) {
    // Sourced as shell after /etc/default/grub: the variables are redefined from the values
    // they had when rtagent apply ran, without the arguments rtagent manages.
    out += "# The files read before this one set arguments rtagent manages; as they were at apply time,\n"
           "# without those:\n";
    if (strip_linux) out += "GRUB_CMDLINE_LINUX=" + ShellQuote(StripBootArgs(before.linux, args)) + "\n";
    if (strip_default) {
      out += "GRUB_CMDLINE_LINUX_DEFAULT=" + ShellQuote(StripBootArgs(before.linux_default, args)) + "\n";
    }
  }
  return out + "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX " + ShellQuote(JoinBootArgs(args)).substr(1) + "\n";
}

Result<std::string> EditGrubDefault(std::string_view text, const std::vector<std::string>& args) {
  std::map<std::string, std::string> vars;
  const auto assignments = ParseShellAssignments(text, &vars);
  const ShellAssignment* last_linux = nullptr;
  const ShellAssignment* last_default = nullptr;
  for (const auto& a : assignments) {
    if (a.name == "GRUB_CMDLINE_LINUX") last_linux = &a;
    if (a.name == "GRUB_CMDLINE_LINUX_DEFAULT") last_default = &a;
  }
  for (const auto* a : {last_linux, last_default}) {
    if (a && !a->known) {
      return MakeError("line " + std::to_string(a->line) + ": " + a->name +
                       " is set by a command or an expansion rtagent does not evaluate; set it to plain words");
    }
  }
  // Replace from the end so earlier offsets stay valid.
  struct Edit {
    size_t begin, end;
    std::string text;
  };
  std::vector<Edit> edits;
  auto indent = [&](const ShellAssignment& a) {
    size_t b = a.begin;
    while (b < a.end && (text[b] == ' ' || text[b] == '\t')) ++b;
    return std::string(text.substr(a.begin, b - a.begin));
  };
  // The keyword as the statement had it, not the word "export" anywhere in its value.
  auto export_kw = [](const ShellAssignment& a) { return a.exported ? "export " : ""; };
  if (last_default && CarriesDropped(last_default->value, args)) {
    edits.push_back({last_default->begin, last_default->end,
                     indent(*last_default) + export_kw(*last_default) + "GRUB_CMDLINE_LINUX_DEFAULT=" +
                         ShellQuote(StripBootArgs(last_default->value, args))});
  }
  std::string out(text);
  if (last_linux) {
    edits.push_back({last_linux->begin, last_linux->end,
                     indent(*last_linux) + export_kw(*last_linux) + "GRUB_CMDLINE_LINUX=" +
                         ShellQuote(MergeBootArgs(last_linux->value, args))});
  } else {
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += "GRUB_CMDLINE_LINUX=" + ShellQuote(JoinBootArgs(args)) + "\n";
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  for (const Edit& e : edits) out.replace(e.begin, e.end - e.begin, e.text);
  // The edit must read back as written: a quote left open earlier in the file runs on through
  // the line rtagent adds, so grub-mkconfig would not see it and every apply would add it again
  // (fuzz/bootfile_fuzz.cc). Such a file is refused, naming the reason.
  GrubCmdline back;
  SourceGrubFile(out, bootpath::kGrubDefault, &back);
  const auto got = SplitBootArgs(back.linux);
  for (const std::string& a : args) {
    if (std::find(got.begin(), got.end(), a) == got.end()) {
      return MakeError(bootpath::kGrubDefault + ": rtagent cannot read its own edit back (" + a +
                       " is not in GRUB_CMDLINE_LINUX then): look for a quote left open; fix the file and run again");
    }
  }
  return out;
}

// ------------------------------------------------------------------------------- extlinux

namespace {

// The first word of a line of extlinux.conf, lower-cased, and where the rest starts.
struct ExtlinuxLine {
  std::string keyword;
  std::string_view rest;
  size_t keyword_end = 0;  ///< offset in the line just past the keyword: the indentation and the keyword as written
};

ExtlinuxLine ReadExtlinuxLine(std::string_view l) {
  std::string_view t = TrimView(l);
  size_t sp = t.find_first_of(" \t");
  ExtlinuxLine out;
  out.keyword = Lower(t.substr(0, sp));
  out.keyword_end = static_cast<size_t>(t.data() - l.data()) + std::min(sp, t.size());
  out.rest = sp == std::string_view::npos ? std::string_view() : TrimView(t.substr(sp));
  return out;
}

}  // namespace

Result<ExtlinuxEntry> FindExtlinuxEntry(std::string_view text, const std::string& label) {
  const std::vector<std::string_view> lines = SplitLines(text);
  std::string want = label;
  std::string why = label.empty() ? "" : "cores.bootloader.entry";
  std::string first, menu_default, current;
  for (auto l : lines) {
    ExtlinuxLine x = ReadExtlinuxLine(l);
    if (x.keyword == "default" && want.empty()) {
      want = std::string(x.rest);
      why = "DEFAULT " + want;
    } else if (x.keyword == "label") {
      current = std::string(x.rest);
      if (first.empty()) first = current;
    } else if (x.keyword == "menu" && Lower(x.rest) == "default" && menu_default.empty()) {
      menu_default = current;
    }
  }
  if (want.empty() && !menu_default.empty()) {
    want = menu_default;
    why = "MENU DEFAULT";
  }
  if (want.empty()) {
    if (first.empty()) return MakeError("extlinux.conf has no LABEL entry");
    want = first;
    why = "the first LABEL (no DEFAULT)";
  }
  ExtlinuxEntry e;
  e.label = want;
  e.why = why;
  bool found = false, inside = false;
  for (auto l : lines) {
    ExtlinuxLine x = ReadExtlinuxLine(l);
    if (x.keyword == "label") {
      inside = std::string(x.rest) == want;
      found |= inside;
    } else if (inside && x.keyword == "append" && !e.has_append) {
      e.append = std::string(x.rest);
      e.has_append = true;
    }
  }
  if (!found) return MakeError("extlinux.conf has no entry labelled \"" + want + "\" (" + why + ")");
  return e;
}

Result<std::string> EditExtlinux(std::string_view text, const std::vector<std::string>& args, const std::string& label) {
  auto entry = FindExtlinuxEntry(text, label);
  if (!entry) return entry.error();
  if (!entry->has_append) {
    return MakeError("the extlinux.conf entry \"" + entry->label + "\" has no APPEND line to add the arguments to");
  }
  std::string out;
  bool inside = false, edited = false;
  for (auto l : SplitLines(text)) {
    ExtlinuxLine x = ReadExtlinuxLine(l);
    if (x.keyword == "label") inside = std::string(x.rest) == entry->label;
    if (inside && !edited && x.keyword == "append") {
      // Keep the indentation and the keyword as written. Where the keyword starts is where
      // ReadExtlinuxLine found it (past any blank, a NUL too): an indentation of its own would
      // have cut a line that starts with a NUL after the NUL, and the next edit would no longer
      // see an APPEND there (fuzz/bootfile_fuzz.cc).
      out += std::string(l.substr(0, x.keyword_end)) + " " + MergeBootArgs(x.rest, args) + "\n";
      edited = true;
      continue;
    }
    out += std::string(l) + "\n";
  }
  return out;
}

// ---------------------------------------------------------------------- one-line files

std::string EditCmdlineTxt(std::string_view text, const std::vector<std::string>& args) {
  // cmdline.txt must stay one line: the firmware reads only the first.
  auto lines = SplitLines(text);
  return MergeBootArgs(lines.empty() ? std::string_view() : lines[0], args) + "\n";
}

bool IsMovedCmdlineNote(std::string_view text) {
  // Raspberry Pi OS Bookworm keeps /boot/cmdline.txt as "DO NOT EDIT THIS FILE ... moved to
  // /boot/firmware/cmdline.txt".
  return text.find("DO NOT EDIT") != std::string_view::npos || text.find("/boot/firmware") != std::string_view::npos;
}

std::string KernelInstallDefaultCmdline(std::string_view running) {
  std::vector<std::string> keep;
  for (const auto& tok : SplitBootArgs(running)) {
    if (tok.rfind("BOOT_IMAGE=", 0) == 0 || tok.rfind("initrd=", 0) == 0) continue;
    keep.push_back(tok);
  }
  return JoinBootArgs(keep);
}

// ------------------------------------------------------------------------------------ BLS

bool BlsEntry::Rescue() const {
  return Lower(file).find("rescue") != std::string::npos || Lower(title).find("rescue") != std::string::npos ||
         Lower(version).find("rescue") != std::string::npos;
}

std::string BlsEntry::Id() const {
  // Boot counting names a file "NAME+LEFT[-DONE].conf"; systemd-boot's id drops the counter.
  std::string id = Lower(file);
  size_t plus = id.rfind('+');
  if (plus != std::string::npos && id.ends_with(".conf")) {
    std::string counter = id.substr(plus + 1, id.size() - 5 - plus - 1);
    if (!counter.empty() && counter.find_first_not_of("0123456789-") == std::string::npos) {
      id = id.substr(0, plus) + ".conf";
    }
  }
  return id;
}

BlsEntry ParseBlsEntry(const std::string& file, std::string_view text) {
  BlsEntry e;
  e.file = file;
  for (auto l : SplitLines(text)) {
    std::string_view t = TrimView(l);
    if (t.empty() || t.front() == '#') continue;
    size_t sp = t.find_first_of(" \t");
    std::string key(t.substr(0, sp));
    std::string value = sp == std::string_view::npos ? "" : Trim(t.substr(sp));
    if (key == "title") e.title = value;
    else if (key == "version") e.version = value;
    else if (key == "linux") e.linux = value;
    else if (key == "sort-key") e.sort_key = value;
    else if (key == "machine-id") e.machine_id = value;
    else if (key == "options") e.options = JoinBootArgs({e.options, value});
  }
  return e;
}

void SortBlsEntries(std::vector<BlsEntry>* entries) {
  std::stable_sort(entries->begin(), entries->end(), [](const BlsEntry& a, const BlsEntry& b) {
    if (a.sort_key.empty() != b.sort_key.empty()) return !a.sort_key.empty();
    if (!a.sort_key.empty()) {
      if (int r = a.sort_key.compare(b.sort_key)) return r < 0;
      if (int r = a.machine_id.compare(b.machine_id)) return r < 0;
      if (int r = ::strverscmp(a.version.c_str(), b.version.c_str())) return r > 0;
    }
    return ::strverscmp(a.Id().c_str(), b.Id().c_str()) > 0;
  });
}

bool BlsPatternMatches(const std::string& pattern, const BlsEntry& e) {
  const std::string p = Lower(pattern);
  const std::string id = e.Id();
  const std::string bare = id.ends_with(".conf") ? id.substr(0, id.size() - 5) : id;
  return ::fnmatch(p.c_str(), id.c_str(), 0) == 0 || ::fnmatch(p.c_str(), bare.c_str(), 0) == 0;
}

BlsChoice ChooseBlsEntries(const std::vector<BlsEntry>& entries, const std::string& override_entry,
                           const std::string& efi_default, const std::string& loader_default,
                           const std::string& saved_entry, const std::string& running_release) {
  BlsChoice c;
  if (entries.empty()) {
    c.problem = "there is no boot entry (*.conf)";
    return c;
  }
  auto first_match = [&](const std::string& pattern, const std::string& why) -> bool {
    for (const BlsEntry& e : entries) {
      if (!BlsPatternMatches(pattern, e)) continue;
      if (e.Rescue()) {
        c.problem = why + " names the rescue entry " + e.file + ", which rtagent never edits";
        return true;
      }
      c.files = {e.file};
      c.why = why;
      return true;
    }
    return false;
  };
  if (!override_entry.empty()) {
    if (!first_match(override_entry, "cores.bootloader.entry " + override_entry)) {
      c.problem = "cores.bootloader.entry " + override_entry + " names no boot entry";
    }
    return c;
  }
  if (!efi_default.empty() && first_match(efi_default, "the LoaderEntryDefault EFI variable (" + efi_default + ")")) {
    return c;
  }
  if (!loader_default.empty() && loader_default != "@saved" &&
      first_match(loader_default, "loader.conf default " + loader_default)) {
    return c;
  }
  if (!saved_entry.empty()) {
    // GRUB's blscfg names entries by their file name without .conf; grubby once wrote titles.
    for (const BlsEntry& e : entries) {
      if (!BlsPatternMatches(saved_entry, e) && e.title != saved_entry) continue;
      if (e.Rescue()) {
        c.problem = "grubenv saved_entry names the rescue entry " + e.file + ", which rtagent never edits";
        return c;
      }
      c.files = {e.file};
      c.why = "grubenv saved_entry=" + saved_entry;
      return c;
    }
  }
  // No default: every entry of the running kernel, so whichever of them boots has the arguments.
  for (const BlsEntry& e : entries) {
    if (e.Rescue() || running_release.empty()) continue;
    bool runs = e.version == running_release || e.linux.ends_with("vmlinuz-" + running_release) ||
                e.linux.find("/" + running_release + "/") != std::string::npos;
    if (runs) c.files.push_back(e.file);
  }
  if (!c.files.empty()) {
    c.why = "no default entry is set: every entry of the running kernel " + running_release;
    return c;
  }
  c.problem = "no default entry is set and no entry boots the running kernel" +
              (running_release.empty() ? std::string() : " " + running_release) +
              "; name one with cores.bootloader.entry";
  return c;
}

std::string EditBlsEntry(std::string_view text, const std::vector<std::string>& args) {
  std::string out;
  bool edited = false;
  for (auto l : SplitLines(text)) {
    std::string_view t = TrimView(l);
    size_t sp = t.find_first_of(" \t");
    if (t.substr(0, sp) == "options") {
      std::string_view value = sp == std::string_view::npos ? std::string_view() : t.substr(sp);
      out += "options " + (edited ? StripBootArgs(value, args) : MergeBootArgs(value, args)) + "\n";
      edited = true;
    } else {
      out += std::string(l) + "\n";
    }
  }
  if (!edited) out += "options " + MergeBootArgs("", args) + "\n";
  return out;
}

std::string LoaderConfDefault(std::string_view text) {
  std::string found;
  for (auto l : SplitLines(text)) {
    auto f = SplitWs(l);
    if (f.size() >= 2 && f[0] == "default") found = std::string(f[1]);
  }
  return found;
}

std::string GrubenvSavedEntry(std::string_view text) {
  for (auto l : SplitLines(text)) {
    if (l.rfind("saved_entry=", 0) == 0) return Trim(l.substr(12));
  }
  return "";
}

std::string EfiVarString(std::string_view bytes) {
  if (bytes.size() < 6) return "";
  std::string out;
  for (size_t i = 4; i + 1 < bytes.size(); i += 2) {
    unsigned lo = static_cast<unsigned char>(bytes[i]), hi = static_cast<unsigned char>(bytes[i + 1]);
    if (lo == 0 && hi == 0) break;
    if (hi != 0 || lo > 0x7e) return "";  // entry ids are ASCII
    out += static_cast<char>(lo);
  }
  return out;
}

// -------------------------------------------------------------------------------- summary

std::string BootSummary::NextCmdline(bool after_apply) const {
  if (files.empty()) return "";
  return JoinBootArgs({loader_adds, after_apply ? files.front().cmdline_after : files.front().cmdline_now});
}

// ------------------------------------------------------------------------------ detection

BootloaderGuess DetectBootloader(const SysRoot& root) {
  if (root.Exists(bootpath::kRpiCmdline)) {
    return {BootloaderType::kRpi, "/" + bootpath::kRpiCmdline + " exists (Raspberry Pi OS Bookworm or later)"};
  }
  if (root.Exists(bootpath::kRpiCmdlineOld)) {
    auto text = root.Read(bootpath::kRpiCmdlineOld);
    if (text && !IsMovedCmdlineNote(*text)) {
      return {BootloaderType::kRpi, "/" + bootpath::kRpiCmdlineOld + " exists (Raspberry Pi OS before Bookworm)"};
    }
  }
  if (root.Exists(bootpath::kExtlinux)) {
    return {BootloaderType::kExtlinux, "/" + bootpath::kExtlinux + " exists (U-Boot's extlinux boot)"};
  }
  for (const std::string& dir : bootpath::kLoaderDirs) {
    if (!root.Exists(dir + "/loader.conf")) continue;
    if (root.Exists(bootpath::kKernelCmdline)) {
      return {BootloaderType::kKernelInstall, "/" + dir + "/loader.conf (systemd-boot) and /" + bootpath::kKernelCmdline +
                                                  " exist: kernel-install makes the entries"};
    }
    return {BootloaderType::kBls, "/" + dir + "/loader.conf exists (systemd-boot)"};
  }
  if (root.Exists(bootpath::kGrubDefault) || root.IsDir(bootpath::kGrubDropInDir)) {
    return {BootloaderType::kGrub, "/" + bootpath::kGrubDefault + " exists (GRUB)"};
  }
  for (const std::string& dir : bootpath::kLoaderDirs) {
    if (root.IsDir(dir + "/entries")) return {BootloaderType::kBls, "/" + dir + "/entries exists (Boot Loader Specification)"};
  }
  return {BootloaderType::kPrint, "no boot loader file found (looked for cmdline.txt, extlinux.conf, loader.conf, "
                                  "/etc/default/grub, loader/entries)"};
}

GrubSystem DetectGrubFlavour(const SysRoot& root, const GrubCmdline& defaults) {
  if (FindProgram(root, "update-grub")) return {GrubFlavour::kDebian, "update-grub is installed (Debian, Ubuntu)"};
  if (root.IsDir(bootpath::kGrubDropInDir)) {
    return {GrubFlavour::kDebian, "/" + bootpath::kGrubDropInDir + " exists (Debian, Ubuntu)"};
  }
  if (root.Exists(bootpath::kGrubCfg)) return {GrubFlavour::kDebian, "/" + bootpath::kGrubCfg + " exists (Debian, Ubuntu)"};
  const bool mkconfig = FindProgram(root, "grub2-mkconfig").has_value();
  if (mkconfig || root.IsDir(bootpath::kGrub2Dir)) {
    const std::string where = mkconfig ? "grub2-mkconfig is installed" : "/" + bootpath::kGrub2Dir + " exists";
    if (defaults.bls) {
      return {GrubFlavour::kGrubby, where + " and GRUB_ENABLE_BLSCFG=true (Fedora, RHEL): grubby edits the entries"};
    }
    return {GrubFlavour::kMkconfig, where + " (Fedora, RHEL, SUSE)"};
  }
  return {GrubFlavour::kDebian, "neither update-grub nor grub2-mkconfig was found; a drop-in for update-grub"};
}

}  // namespace rtagent
