#include "tune/boot_plan.h"

#include <algorithm>
#include <cerrno>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

using profile::BootloaderType;

namespace {

constexpr const char* kChapter6 = "Real-Time Linux, chapter 6 (a core of its own)";

// Builds one loader's plan; the loaders below fill it.
struct Planner {
  const PlanContext& ctx;
  const std::vector<std::string>& args;
  bool write;
  BootPlan out;

  const profile::BootloaderConfig& bl() const { return ctx.profile.cores.bootloader; }
  std::string Joined() const { return JoinBootArgs(args); }
  std::string Running() const {
    return ctx.state.cmdline && ctx.state.cmdline->raw ? *ctx.state.cmdline->raw : std::string();
  }
  // cores.bootloader.path without its leading '/', or `fallback`.
  std::string PathOr(const std::string& fallback) const {
    std::string p = *bl().path;
    while (!p.empty() && p.front() == '/') p.erase(0, 1);
    return p.empty() ? fallback : p;
  }
  // A file's text; nullopt when it does not exist. Any other read error ends the plan (the
  // system cannot be planned: exit 3), the first one kept in `error`.
  std::optional<std::string> ReadFile(const std::string& path) {
    auto r = ctx.root.Read(path);
    if (r) return *r;
    if (r.error().err != ENOENT && r.error().err != ENOTDIR && !error) error = r.error();
    return std::nullopt;
  }
  std::optional<Error> error;
  void Warn(const std::string& message, Finding::Level level = Finding::Level::kWarning) {
    out.findings.push_back({level, message, bl().type.mark, kChapter6});
  }
  // The boot file is not there: a finding that says what would be written, and where.
  void Missing(const std::string& text) {
    out.summary.missing = text;
    Warn("boot loader " + out.summary.loader + ": " + text + "; nothing is written (the rest of the plan is unchanged)");
  }
  void Item(BootUpdate step, const std::string& path, const std::string& before, const std::string& after,
            const std::string& what) {
    if (!write || before == after) return;
    Change c;
    c.section = "cores";
    c.what = what;
    c.actuator = BootActuatorName(step);
    c.key = path;
    c.before = before;
    c.after = after;
    c.why = kChapter6;
    out.items.push_back(std::move(c));
  }
  // The update step as apply will run it, and a finding when its program is not installed.
  void Update(BootUpdate step, const std::string& before, const std::string& after) {
    auto cmd = BootUpdateCommand(step, ctx.root, before, after);
    if (!cmd) {
      Warn(BootActuatorName(step).substr(9) + " cannot be run: " + cmd.error().message +
           "; apply would put the file back and stop (exit 4)");
      return;
    }
    out.summary.update = *cmd;
    // A tree without programs at all (a fixture of /proc and /sys) says nothing either way.
    if (!cmd->empty() && ctx.root.IsDir("usr") && !FindProgram(ctx.root, cmd->front())) {
      Warn(cmd->front() + " is not installed: apply would write the file, fail to run it, put the file back and "
                          "stop (exit 4)");
    }
  }

  void Grub();
  void GrubDropIn(const GrubCmdline& defaults, const GrubSystem& sys);
  void GrubDefaultFile(const std::optional<std::string>& text, const GrubCmdline& defaults, const GrubSystem& sys);
  void Extlinux();
  void Rpi();
  void Bls();
  void KernelInstall();
};

// BOOT_IMAGE=, root= and ro/rw: what GRUB's 10_linux writes for the kernel it boots, taken
// from the running command line (the same kernel and root on the next boot).
std::string GrubOwnArgs(const std::string& running) {
  std::vector<std::string> own;
  for (const auto& tok : SplitBootArgs(running)) {
    const std::string key = BootArgKey(tok);
    if (key == "BOOT_IMAGE" || key == "root" || tok == "ro" || tok == "rw") own.push_back(tok);
  }
  return JoinBootArgs(own);
}

// Assignments to the command-line variables in a file read after ours.
bool SetsCmdline(std::string_view text) {
  std::map<std::string, std::string> vars;
  for (const auto& a : ParseShellAssignments(text, &vars)) {
    if (a.name == "GRUB_CMDLINE_LINUX" || a.name == "GRUB_CMDLINE_LINUX_DEFAULT") return true;
  }
  return false;
}

// The BLS entries of `dir`, parsed, in menu order.
std::vector<BlsEntry> LoadBlsEntries(const SysRoot& root, const std::string& dir) {
  std::vector<BlsEntry> entries;
  auto names = root.List(dir);
  if (!names) return entries;
  for (const auto& n : *names) {
    if (n.size() <= 5 || !n.ends_with(".conf")) continue;
    auto text = root.Read(dir + "/" + n);
    if (text) entries.push_back(ParseBlsEntry(n, *text));
  }
  SortBlsEntries(&entries);
  return entries;
}

std::string FirstExisting(const SysRoot& root, const std::vector<std::string>& paths) {
  for (const auto& p : paths)
    if (root.Exists(p)) return p;
  return "";
}

// The BLS entry the board boots: the choice rules of ChooseBlsEntries with every source read.
BlsChoice ChooseEntries(const PlanContext& ctx, const std::string& entries_dir, const std::vector<BlsEntry>& entries) {
  const SysRoot& root = ctx.root;
  std::string loader_default;
  const std::string loader_dir = entries_dir.substr(0, entries_dir.rfind('/'));
  if (auto conf = root.Read(loader_dir + "/loader.conf")) loader_default = LoaderConfDefault(*conf);
  std::string efi_default;
  if (auto v = root.Read(kpath::SystemdBootEfiVar("LoaderEntryDefault"))) efi_default = EfiVarString(*v);
  if (efi_default.empty() && loader_default == "@saved") {
    if (auto v = root.Read(kpath::SystemdBootEfiVar("LoaderEntryLastBooted"))) efi_default = EfiVarString(*v);
  }
  std::string saved;
  const std::string env = FirstExisting(root, bootpath::kGrubenv);
  if (!env.empty()) {
    if (auto t = root.Read(env)) saved = GrubenvSavedEntry(*t);
  }
  const std::string release = root.ReadTrimmed(kpath::kOsRelease).value_or("");
  return ChooseBlsEntries(entries, *ctx.profile.cores.bootloader.entry, efi_default, loader_default, saved, release);
}

std::string EntriesDir(const SysRoot& root, const std::string& override_path) {
  if (!override_path.empty()) return override_path;
  for (const auto& d : bootpath::kLoaderDirs)
    if (root.IsDir(d + "/entries")) return d + "/entries";
  return profile::DefaultBootloaderPath(BootloaderType::kBls);
}

void Planner::Grub() {
  const auto text = ReadFile(bootpath::kGrubDefault);
  if (!text && !ctx.root.IsDir(bootpath::kGrubDropInDir)) {
    Missing("/" + bootpath::kGrubDefault + " does not exist, so this is not a GRUB system; GRUB would get " + Joined() +
            " in GRUB_CMDLINE_LINUX");
    return;
  }
  GrubCmdline defaults;
  if (text) SourceGrubFile(*text, "/" + bootpath::kGrubDefault, &defaults);
  const GrubSystem sys = DetectGrubFlavour(ctx.root, defaults);
  out.summary.loader_adds = GrubOwnArgs(Running());

  if (sys.flavour == GrubFlavour::kDebian) {
    GrubDropIn(defaults, sys);
  } else {
    GrubDefaultFile(text, defaults, sys);
  }
}

// Debian and Ubuntu: a drop-in in /etc/default/grub.d, then update-grub.
void Planner::GrubDropIn(const GrubCmdline& defaults, const GrubSystem& sys) {
  const std::string path = PathOr(bootpath::kGrubDropIn);
  out.summary.how = "a drop-in read by update-grub after /etc/default/grub (" + sys.why + ")";
  if (path.rfind(bootpath::kGrubDropInDir + "/", 0) != 0 || !path.ends_with(".cfg")) {
    Warn("update-grub reads only /" + bootpath::kGrubDropInDir + "/*.cfg: /" + path + " would not be read");
  }
  // grub-mkconfig sources /etc/default/grub, then every grub.d/*.cfg in glob order.
  std::vector<std::string> dropins;
  if (auto names = ctx.root.List(bootpath::kGrubDropInDir)) {
    for (const auto& n : *names)
      if (n.ends_with(".cfg")) dropins.push_back(bootpath::kGrubDropInDir + "/" + n);
  }
  if (std::find(dropins.begin(), dropins.end(), path) == dropins.end()) dropins.push_back(path);
  std::sort(dropins.begin(), dropins.end());
  const std::string current = ReadFile(path).value_or("");
  GrubCmdline before_ours = defaults, now = defaults, after = defaults;
  bool ours_seen = false;
  std::string after_text;
  for (const auto& f : dropins) {
    if (f == path) {
      ours_seen = true;
      after_text = RenderGrubDropIn(before_ours, args, ctx.profile.path);
      SourceGrubFile(current, "/" + f, &now);
      SourceGrubFile(after_text, "/" + f, &after);
      continue;
    }
    const std::string t = ReadFile(f).value_or("");
    if (!ours_seen) SourceGrubFile(t, "/" + f, &before_ours);
    SourceGrubFile(t, "/" + f, &now);
    SourceGrubFile(t, "/" + f, &after);
    if (ours_seen && SetsCmdline(t)) {
      Warn("/" + f + " is read after /" + path + " and sets GRUB_CMDLINE_LINUX or GRUB_CMDLINE_LINUX_DEFAULT: "
           "it may undo what rtagent writes");
    }
  }
  for (const auto& u : before_ours.unknown) Warn(u + ": the drop-in is made from the value rtagent could read");
  out.summary.files.push_back({path, !current.empty(), "the drop-in", now.Args(), after.Args()});
  Update(BootUpdate::kUpdateGrub, current, after_text);
  Item(BootUpdate::kUpdateGrub, path, current, after_text, "GRUB drop-in /" + path + ", then update-grub");
}

// Fedora, RHEL, SUSE: no grub.d; GRUB_CMDLINE_LINUX in /etc/default/grub itself, then
// grub2-mkconfig, or grubby in GRUB's BLS mode.
void Planner::GrubDefaultFile(const std::optional<std::string>& text, const GrubCmdline& defaults,
                              const GrubSystem& sys) {
  const std::string path = PathOr(bootpath::kGrubDefault);
  const auto file = path == bootpath::kGrubDefault ? text : ReadFile(path);
  if (!file) {
    Missing("/" + path + " does not exist; GRUB_CMDLINE_LINUX there would get " + Joined());
    return;
  }
  auto edited = EditGrubDefault(*file, args);
  if (!edited) {
    Warn("/" + path + ": " + edited.error().message + "; nothing is written to it");
    return;
  }
  GrubCmdline after;
  SourceGrubFile(*edited, "/" + path, &after);
  const BootUpdate step = sys.flavour == GrubFlavour::kGrubby ? BootUpdate::kGrubby : BootUpdate::kGrub2Mkconfig;
  if (step == BootUpdate::kGrub2Mkconfig) {
    out.summary.how = "GRUB_CMDLINE_LINUX in /etc/default/grub, then grub2-mkconfig (" + sys.why + ")";
    out.summary.files.push_back({path, true, "GRUB_CMDLINE_LINUX", defaults.Args(), after.Args()});
  } else {
    // GRUB's BLS mode: grub.cfg reads the entries at boot; the default entry's options are
    // what boots, and /etc/default/grub is what kernels installed later get.
    out.summary.how = "GRUB_CMDLINE_LINUX in /etc/default/grub for kernels installed later, grubby for the default "
                      "entry (" + sys.why + ")";
    out.summary.loader_adds.clear();
    const std::string dir = EntriesDir(ctx.root, "");
    const auto entries = LoadBlsEntries(ctx.root, dir);
    const BlsChoice choice = ChooseEntries(ctx, dir, entries);
    std::string now_args = defaults.Args();
    std::string role = "GRUB_CMDLINE_LINUX; the default entry's options through grubby";
    for (const auto& e : entries) {
      if (choice.files.empty() || e.file != choice.files.front()) continue;
      now_args = e.options;
      role = "GRUB_CMDLINE_LINUX; grubby edits the default entry /" + dir + "/" + e.file + " (" + choice.why + ")";
    }
    out.summary.files.push_back({path, true, role, now_args, MergeBootArgs(now_args, args)});
  }
  Update(step, *file, *edited);
  Item(step, path, *file, *edited,
       "GRUB_CMDLINE_LINUX in /" + path + ", then " + (step == BootUpdate::kGrubby ? "grubby" : "grub2-mkconfig"));
}

void Planner::Extlinux() {
  const std::string path = PathOr(bootpath::kExtlinux);
  out.summary.how = "the APPEND line of the entry U-Boot boots";
  const auto text = ReadFile(path);
  if (!text) {
    Missing("/" + path + " does not exist; the APPEND line of its DEFAULT entry would get " + Joined());
    return;
  }
  auto entry = FindExtlinuxEntry(*text, *bl().entry);
  if (!entry) {
    Warn("/" + path + ": " + entry.error().message + "; nothing is written to it", Finding::Level::kError);
    return;
  }
  auto edited = EditExtlinux(*text, args, *bl().entry);
  if (!edited) {
    Warn("/" + path + ": " + edited.error().message + "; nothing is written to it", Finding::Level::kError);
    return;
  }
  out.summary.files.push_back({path, true, "entry " + entry->label + " (" + entry->why + ")", entry->append,
                               MergeBootArgs(entry->append, args)});
  Item(BootUpdate::kNone, path, *text, *edited, "extlinux.conf APPEND of entry " + entry->label + " (/" + path + ")");
}

void Planner::Rpi() {
  std::string path = PathOr("");
  if (path.empty()) {
    path = bootpath::kRpiCmdline;
    if (!ctx.root.Exists(path) && ctx.root.Exists(bootpath::kRpiCmdlineOld)) {
      auto old = ctx.root.Read(bootpath::kRpiCmdlineOld);
      if (old && !IsMovedCmdlineNote(*old)) path = bootpath::kRpiCmdlineOld;
    }
  }
  out.summary.how = "the one line the firmware reads";
  const auto text = ReadFile(path);
  if (!text) {
    Missing("/" + path + " does not exist (Raspberry Pi OS Bookworm and later keep it in /boot/firmware, older "
            "releases in /boot); its line would get " + Joined());
    return;
  }
  const auto lines = SplitLines(*text);
  const std::string line = lines.empty() ? "" : Trim(lines[0]);
  if (lines.size() > 1) Warn("/" + path + " has " + std::to_string(lines.size()) + " lines: the firmware reads only the "
                             "first, and rtagent writes it back as one line");
  const std::string edited = EditCmdlineTxt(*text, args);
  out.summary.files.push_back({path, true, "the line", line, Trim(edited)});
  Item(BootUpdate::kNone, path, *text, edited, "Raspberry Pi /" + path);
}

void Planner::Bls() {
  std::string dir = PathOr("");
  dir = EntriesDir(ctx.root, dir);
  out.summary.how = "the options line of the entry the board boots";
  if (!ctx.root.IsDir(dir)) {
    Missing("/" + dir + " does not exist; the options line of the default boot entry would get " + Joined());
    return;
  }
  const auto entries = LoadBlsEntries(ctx.root, dir);
  const BlsChoice choice = ChooseEntries(ctx, dir, entries);
  if (choice.files.empty()) {
    Warn("/" + dir + ": " + choice.problem + "; nothing is written", Finding::Level::kError);
    return;
  }
  for (const std::string& name : choice.files) {
    const std::string path = dir + "/" + name;
    const std::string text = ReadFile(path).value_or("");
    const BlsEntry e = ParseBlsEntry(name, text);
    const std::string edited = EditBlsEntry(text, args);
    out.summary.files.push_back({path, true, "entry " + name + " (" + choice.why + ")", e.options,
                                 ParseBlsEntry(name, edited).options});
    Item(BootUpdate::kNone, path, text, edited, "boot entry options /" + path);
  }
}

void Planner::KernelInstall() {
  const std::string path = PathOr(bootpath::kKernelCmdline);
  out.summary.how = "/etc/kernel/cmdline, then kernel-install add for the running kernel (it writes the entry)";
  const auto text = ReadFile(path);
  // Without the file kernel-install uses the running command line, less the loader's own
  // arguments: rtagent starts from the same.
  const std::string base = text ? JoinBootArgs(SplitBootArgs(*text)) : KernelInstallDefaultCmdline(Running());
  const std::string edited = MergeBootArgs(base, args) + "\n";
  out.summary.files.push_back({path, text.has_value(), text ? "the file" : "the file (new; now from /proc/cmdline)", base,
                               Trim(edited)});
  const std::string before = text.value_or("");
  Update(BootUpdate::kKernelInstall, before, edited);
  Item(BootUpdate::kKernelInstall, path, before, edited, "/" + path + ", then kernel-install");
}

}  // namespace

Result<BootPlan> PlanBoot(const PlanContext& ctx, const std::vector<std::string>& args, bool write) {
  Planner p{ctx, args, write, {}, std::nullopt};
  const auto& bl = ctx.profile.cores.bootloader;
  BootloaderType type = *bl.type;
  p.out.summary.why = "cores.bootloader: " + profile::ToString(type);
  if (type == BootloaderType::kAuto) {
    BootloaderGuess guess = DetectBootloader(ctx.root);
    type = guess.type;
    p.out.summary.why = "auto: " + guess.why;
  }
  p.out.summary.loader = profile::ToString(type);
  switch (type) {
    case BootloaderType::kGrub: p.Grub(); break;
    case BootloaderType::kExtlinux: p.Extlinux(); break;
    case BootloaderType::kRpi: p.Rpi(); break;
    case BootloaderType::kBls: p.Bls(); break;
    case BootloaderType::kKernelInstall: p.KernelInstall(); break;
    case BootloaderType::kAuto:
    case BootloaderType::kPrint: p.out.summary.how = "printed: rtagent writes no boot file"; break;
  }
  if (p.error) return *p.error;
  return std::move(p.out);
}

std::string MissingBootFile(const profile::Profile& profile, const SysRoot& root) {
  const auto type = *profile.cores.bootloader.type;
  const auto args = profile::BootArguments(profile);
  if (type == BootloaderType::kAuto || type == BootloaderType::kPrint || args.empty()) return "";
  const SystemState state = CollectSystemState(root, {Section::kCmdline});
  auto plan = PlanBoot(PlanContext{profile, root, state}, args, /*write=*/false);
  return plan ? plan->summary.missing : plan.error().message;
}

}  // namespace rtagent
