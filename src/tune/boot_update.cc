#include "tune/boot_update.h"

#include <algorithm>
#include <cerrno>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "base/stale_temps.h"
#include "tune/bootloader.h"

namespace rtagent {

const std::vector<BootUpdate>& BootUpdates() {
  static const std::vector<BootUpdate> k = {BootUpdate::kNone, BootUpdate::kUpdateGrub, BootUpdate::kGrub2Mkconfig,
                                                BootUpdate::kGrubby, BootUpdate::kKernelInstall};
  return k;
}

std::string BootActuatorName(BootUpdate step) {
  switch (step) {
    case BootUpdate::kNone: return "bootfile";
    case BootUpdate::kUpdateGrub: return "bootfile+update-grub";
    case BootUpdate::kGrub2Mkconfig: return "bootfile+grub2-mkconfig";
    case BootUpdate::kGrubby: return "bootfile+grubby";
    case BootUpdate::kKernelInstall: return "bootfile+kernel-install";
  }
  return "bootfile";
}

namespace {

// Where a distribution keeps a kernel release's image and initramfs, root-relative:
// kernel-install's own layout first (Fedora, Arch), then Debian's /boot.
std::vector<std::string> KernelImages(const std::string& release) {
  return {"usr/lib/modules/" + release + "/vmlinuz", "lib/modules/" + release + "/vmlinuz", "boot/vmlinuz-" + release};
}
std::string DebianInitrd(const std::string& release) { return "boot/initrd.img-" + release; }

std::string LastLine(const std::string& output) {
  auto lines = SplitLines(output);
  while (!lines.empty() && TrimView(lines.back()).empty()) lines.pop_back();
  return lines.empty() ? "" : ": " + Trim(lines.back());
}

}  // namespace

Result<std::vector<std::string>> BootUpdateCommand(BootUpdate step, const SysRoot& root, const std::string& old_text,
                                                   const std::string& new_text) {
  switch (step) {
    case BootUpdate::kNone: return std::vector<std::string>{};
    case BootUpdate::kUpdateGrub: return std::vector<std::string>{"update-grub"};
    case BootUpdate::kGrub2Mkconfig: return std::vector<std::string>{"grub2-mkconfig", "-o", "/" + bootpath::kGrub2Dir + "/grub.cfg"};
    case BootUpdate::kGrubby: {
      // grubby changes the default entry's options by what changed in /etc/default/grub:
      // the arguments that went away are removed, the new ones added (grubby replaces the
      // value of a key it already has). The same rule run on revert takes them back.
      GrubCmdline before, after;
      SourceGrubFile(old_text, bootpath::kGrubDefault, &before);
      SourceGrubFile(new_text, bootpath::kGrubDefault, &after);
      const auto was = SplitBootArgs(before.Args()), now = SplitBootArgs(after.Args());
      std::vector<std::string> removed, added;
      for (const auto& a : was)
        if (std::find(now.begin(), now.end(), a) == now.end()) removed.push_back(a);
      for (const auto& a : now)
        if (std::find(was.begin(), was.end(), a) == was.end()) added.push_back(a);
      if (removed.empty() && added.empty()) return std::vector<std::string>{};
      std::vector<std::string> argv = {"grubby", "--update-kernel=DEFAULT"};
      if (!removed.empty()) argv.push_back("--remove-args=" + JoinBootArgs(removed));
      if (!added.empty()) argv.push_back("--args=" + JoinBootArgs(added));
      return argv;
    }
    case BootUpdate::kKernelInstall: {
      auto release = root.ReadTrimmed(kpath::kOsRelease);
      if (!release) return Wrap("cannot tell the running kernel's release: ", release.error());
      for (const std::string& image : KernelImages(*release)) {
        if (!root.Exists(image)) continue;
        std::vector<std::string> argv = {"kernel-install", "add", *release, "/" + image};
        if (root.Exists(DebianInitrd(*release))) argv.push_back("/" + DebianInitrd(*release));
        return argv;
      }
      return MakeError("the running kernel " + *release + " has no image for kernel-install (looked for /" +
                       KernelImages(*release)[0] + ", /" + KernelImages(*release)[1] + ", /" +
                       KernelImages(*release)[2] + ")");
    }
  }
  return std::vector<std::string>{};
}

Result<std::string> BootFileActuator::Read(const std::string& key) {
  auto r = root_.Read(key);
  if (!r && r.error().err == ENOENT) return std::string();
  return r;
}

Result<void> BootFileActuator::Put(const std::string& key, const std::string& value) {
  auto put = value.empty() ? root_.Remove(key) : root_.WriteDurable(key, value);
  if (!put) return put;
  // A killed earlier apply may have left the file's temporary twin (never renamed): the file
  // is whole now, so the twin goes (the kill sweep, kill_test.cc, found it left in /etc).
  return RemoveStaleTemps(root_, key);
}

Result<void> BootFileActuator::Write(const std::string& key, const std::string& value) {
  auto old = Read(key);
  if (!old) return old.error();
  if (auto w = Put(key, value); !w) return w;
  auto command = BootUpdateCommand(step_, root_, *old, value);
  if (!command) {
    auto back = Put(key, *old);
    return Wrap("", command.error(),
                "; " + key + (back ? " was put back" : " could not be put back: " + back.error().message));
  }
  if (command->empty()) return Ok();
  CommandRun run = runner_->Run(*command);
  runs_.push_back(run);
  if (!run.Failed()) return Ok();

  // The boot loader must not be left between two states: the file goes back, and the step
  // runs again so what it generates matches the restored file.
  std::string message = "`" + run.CommandLine() + "` " + run.Status() + LastLine(run.output);
  auto back = Put(key, *old);
  if (!back) return MakeError(message + "; putting " + key + " back failed too: " + back.error().message);
  message += "; " + key + " was put back";
  if (run.exit_status < 0) return MakeError(message);  // nothing ran: nothing to make again
  auto again_command = BootUpdateCommand(step_, root_, value, *old);
  if (again_command && !again_command->empty()) {
    CommandRun again = runner_->Run(*again_command);
    again.note = "run again after " + key + " was put back";
    message += " and `" + again.CommandLine() + "` ran again (" + again.Status() + ")";
    runs_.push_back(std::move(again));
  }
  return MakeError(message);
}

std::vector<CommandRun> BootFileActuator::TakeRuns() {
  std::vector<CommandRun> out;
  out.swap(runs_);
  return out;
}

void AddBootFileActuators(Executor& executor, SysRoot& root, const CommandRunnerFactory& factory) {
  std::shared_ptr<CommandRunner> runner = factory(root);
  for (BootUpdate step : BootUpdates()) {
    executor.AddActuator(BootActuatorName(step), std::make_unique<BootFileActuator>(root, step, runner));
  }
}

}  // namespace rtagent
