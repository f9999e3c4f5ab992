#include "inspect/irqbalance.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>
#include <vector>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

namespace {

constexpr char kUnit[] = "irqbalance.service";

// The name in /proc/PID/stat: between the first '(' and the last ')'.
std::string CommOf(const std::string& stat) {
  size_t a = stat.find('('), b = stat.rfind(')');
  return a == std::string::npos || b == std::string::npos || b < a ? "" : stat.substr(a + 1, b - a - 1);
}

std::string Trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::string Unquote(std::string v) {
  v = Trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return v;
}

// "VAR=..." (optionally "export VAR=..."): where the value starts, or npos.
size_t AssignmentValue(const std::string& line, const std::string& var) {
  std::string t = line;
  size_t i = t.find_first_not_of(" \t");
  if (i == std::string::npos || t[i] == '#') return std::string::npos;
  if (t.compare(i, 7, "export ") == 0) i = t.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos || t.compare(i, var.size(), var) != 0) return std::string::npos;
  size_t eq = i + var.size();
  return eq < t.size() && t[eq] == '=' ? eq + 1 : std::string::npos;
}

std::optional<CpuSet> ParseBanned(const std::string& var, const std::string& value) {
  if (value.empty()) return CpuSet{};
  auto set = var == kBannedCpusVar ? CpuSet::ParseMask(value) : CpuSet::ParseList(value);
  if (!set) return std::nullopt;
  return *set;
}

}  // namespace

std::optional<std::string> EnvFileValue(const std::string& text, const std::string& var) {
  std::optional<std::string> out;
  for (std::string_view piece : SplitLines(text)) {
    const std::string line(piece);
    size_t v = AssignmentValue(line, var);
    if (v != std::string::npos) out = Unquote(line.substr(v));
  }
  return out;
}

std::string SetEnvFileValue(const std::string& text, const std::string& var, const std::optional<std::string>& value) {
  std::string out;
  bool done = false;
  size_t b = 0;
  while (b < text.size()) {
    size_t e = text.find('\n', b);
    const bool nl = e != std::string::npos;
    if (!nl) e = text.size();
    std::string line = text.substr(b, e - b);
    b = e + 1;
    size_t v = AssignmentValue(line, var);
    if (v == std::string::npos || done) {
      out += line + (nl ? "\n" : "");
      continue;
    }
    done = true;
    if (!value) continue;  // removed, with its newline
    std::string old = Trim(line.substr(v));
    std::string q = !old.empty() && (old.front() == '"' || old.front() == '\'') ? std::string(1, old.front()) : "";
    out += line.substr(0, v) + q + *value + q + (nl ? "\n" : "");
  }
  if (!done && value) {
    if (!out.empty() && out.back() != '\n') out += "\n";
    out += var + "=" + *value + "\n";
  }
  return out;
}

IrqbalanceInfo DetectIrqbalance(const SysRoot& root, const std::vector<TaskView>* tasks) {
  IrqbalanceInfo info;
  if (tasks != nullptr) {
    // The walk already read each process's name (its main thread's, as proc/PID/stat has it).
    auto it = std::find_if(tasks->begin(), tasks->end(), [](const TaskView& t) { return t.process_comm == "irqbalance"; });
    if (it != tasks->end()) {
      info.running = true;
      info.pid = it->pid;
      info.how = "process " + std::to_string(it->pid);
    }
  } else if (auto names = root.List(kpath::kProc)) {
    for (const std::string& n : *names) {
      if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos) continue;
      const int pid = std::stoi(n);
      auto stat = root.Read(kpath::ProcStat(pid));
      if (stat && CommOf(*stat) == "irqbalance") {
        info.running = true;
        info.pid = pid;
        info.how = "process " + n;
        break;
      }
    }
  }
  if (!info.running && root.Exists(kpath::SystemdUnitInvocation(kUnit))) {
    info.running = true;
    info.how = "systemd unit " + std::string(kUnit) + " active";
  }
  for (const std::string& path : {kpath::kIrqbalanceDefault, kpath::kIrqbalanceSysconfig}) {
    if (auto text = root.Read(path)) {
      info.config = path;
      info.config_text = *text;
      break;
    }
  }
  // The file names the variable its irqbalance reads (Debian's 1.9 file documents the list).
  const bool old_only = info.config_text.find(kBannedCpulistVar) == std::string::npos &&
                        info.config_text.find(kBannedCpusVar) != std::string::npos;
  info.ban_var = old_only ? kBannedCpusVar : kBannedCpulistVar;
  // What the running process uses: its environment, read at its start.
  std::string unread;  // why the process's environment could not be read
  if (info.pid > 0) {
    auto env = root.Read(kpath::ProcEnviron(info.pid));
    if (!env) {
      // A reader without CAP_SYS_PTRACE (rtagent-verify.service) cannot read another root
      // process's environ: the file stands in, and says it does.
      unread = "; the environment of process " + std::to_string(info.pid) + " could not be read (" +
               std::strerror(env.error().err) + "), and irqbalance reads this file only when it starts";
    } else {
      std::string text = *env;
      for (char& c : text) c = c == '\0' ? '\n' : c;
      for (const char* var : {kBannedCpulistVar, kBannedCpusVar}) {
        if (auto v = EnvFileValue(text, var)) {
          info.banned = ParseBanned(var, *v);
          info.banned_from = "the environment of process " + std::to_string(info.pid);
          break;
        }
      }
      if (!info.banned) {
        info.banned = CpuSet{};
        info.banned_from = "the environment of process " + std::to_string(info.pid) + " (no banned CPUs)";
      }
      return info;
    }
  }
  for (const char* var : {kBannedCpulistVar, kBannedCpusVar}) {
    if (auto v = EnvFileValue(info.config_text, var)) {
      info.banned = ParseBanned(var, *v);
      info.banned_from = info.config + unread;
      break;
    }
  }
  if (!info.banned && !unread.empty()) {
    info.banned_from = (info.config.empty() ? "no environment file" : info.config + " bans none") + unread;
  }
  return info;
}

}  // namespace rtagent
