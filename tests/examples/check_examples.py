#!/usr/bin/env python3
"""The shipped CI, board-farm and fleet examples (examples/) hold together: each file parses,
has the fields its engine requires, and names scripts, profiles and rtagent options that
exist. Usage: check_examples.py RTAGENT SOURCE_DIR. Exit 1 with one line per problem."""
import os
import re
import subprocess
import sys

import yaml

rtagent, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
problems = []


def need(cond, what):
    if not cond:
        problems.append(what)


def load(rel):
    path = os.path.join(src, rel)
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        problems.append(f"{rel}: {e}")
        return None


def executable(rel):
    path = os.path.join(src, rel)
    need(os.path.isfile(path) and os.access(path, os.X_OK), f"{rel}: missing or not executable")


def options_of(*sub):
    out = subprocess.run([rtagent, *sub, "--help"], capture_output=True, text=True).stdout
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", out))


# LAVA: Lava-Test Test Definition 1.0 (the metadata fields LAVA's test-definitions validation
# asks for; params as strings; run.steps a list of shell lines).
lava = load("examples/lava/rtagent.yaml")
if lava:
    md = lava.get("metadata", {})
    need(md.get("format") == "Lava-Test Test Definition 1.0", "lava: metadata.format must be 'Lava-Test Test Definition 1.0'")
    for key in ("name", "description", "maintainer", "os", "scope", "devices"):
        need(md.get(key), f"lava: metadata.{key} missing")
    for key in ("maintainer", "os", "scope", "devices"):
        need(isinstance(md.get(key), list), f"lava: metadata.{key} must be a list")
    params = lava.get("params", {})
    need(all(isinstance(v, str) for v in params.values()), "lava: every params value must be a string")
    steps = lava.get("run", {}).get("steps")
    need(isinstance(steps, list) and steps and all(isinstance(s, str) for s in steps), "lava: run.steps must be a list of strings")
    for s in steps or []:
        for var in re.findall(r"\$\{(\w+)\}", s):
            need(var in params, f"lava: run step uses ${{{var}}}, which params does not define")
    need(any("rtagent-lava.sh" in s for s in steps or []), "lava: run.steps do not call rtagent-lava.sh")
executable("examples/lava/rtagent-lava.sh")
lava_sh = open(os.path.join(src, "examples/lava/rtagent-lava.sh"), encoding="utf-8").read()
report_opts = options_of("report")
for opt in set(re.findall(r'"\$RT" report [^\n]*?(--[a-z-]+)', lava_sh)):
    need(opt in report_opts, f"lava: rtagent-lava.sh uses report {opt}, which rtagent report does not have")
accept_opts = options_of("accept")
for opt in re.findall(r"(--[a-z]+) \$OUT", lava_sh):
    need(opt in accept_opts, f"lava: rtagent-lava.sh writes {opt}, which rtagent accept does not have")

# The kernel gate: the GitLab job and the GitHub workflow call the gate script and the QEMU
# scenarios that exist, and hand the JUnit file to the CI.
executable("examples/ci/kernel-gate.sh")
gl = load("examples/ci/gitlab-ci.yml")
if gl:
    job = gl.get("kernel-gate", {})
    script = "\n".join(job.get("script", []))
    need("kernel-gate.sh" in script, "gitlab: the job does not run kernel-gate.sh")
    need(job.get("artifacts", {}).get("reports", {}).get("junit") == "gate/gate.junit.xml", "gitlab: artifacts.reports.junit is not gate/gate.junit.xml")
    for scenario in re.findall(r"\b(rt-accept|stock-accept)\b", script):
        need(os.path.isfile(os.path.join(src, "tests/qemu/scenarios", scenario + ".sh")), f"gitlab: scenario {scenario} does not exist")
gh = load("examples/ci/github/kernel-gate.yml")
if gh:
    steps = gh.get("jobs", {}).get("kernel-gate", {}).get("steps", [])
    runs = "\n".join(s.get("run", "") for s in steps)
    need("kernel-gate.sh" in runs, "github: no step runs kernel-gate.sh")
    need(True in gh or "on" in gh, "github: the workflow has no 'on' trigger")
diff_opts = options_of("diff")
gate = open(os.path.join(src, "examples/ci/kernel-gate.sh"), encoding="utf-8").read()
for opt in set(re.findall(r"(--[a-z-]+)", gate.split("args=(", 1)[1])):
    need(opt in diff_opts, f"kernel-gate.sh: rtagent diff has no {opt}")

# Ansible: the playbook and role pass ansible-playbook's syntax check, and the role calls
# rtagent with options the binary has.
ans = os.path.join(src, "examples/ansible")
env = dict(os.environ, ANSIBLE_ROLES_PATH=os.path.join(ans, "roles"), ANSIBLE_LOCAL_TEMP="/tmp",
           ANSIBLE_NOCOLOR="1")
try:
    r = subprocess.run(["ansible-playbook", "--syntax-check", "-i", os.path.join(ans, "inventory.ini.example"),
                        os.path.join(ans, "site.yml")], capture_output=True, text=True, env=env, cwd=ans)
    need(r.returncode == 0, "ansible: syntax check failed: " + (r.stderr or r.stdout).strip()[-400:])
except FileNotFoundError:
    problems.append("ansible: ansible-playbook is missing (apt-get install ansible-core; tools/setup.sh --test installs it)")
tasks = open(os.path.join(ans, "roles/rtagent/tasks/main.yml"), encoding="utf-8").read()
for sub in ("verify", "commission", "validate"):
    m = re.search(r"\{\{ rtagent_bin \}\} " + sub + r"\b(.*?)(?:\n\s*\n|\n  [a-z]+:)", tasks, re.S)
    need(m is not None, f"ansible: the role does not run rtagent {sub}")
    if m:
        have = options_of(sub)
        for opt in re.findall(r"(--[a-z-]+)", m.group(1)):
            need(opt in have, f"ansible: the role passes {opt} to rtagent {sub}, which does not take it")

r = subprocess.run([rtagent, "validate", os.path.join(ans, "profile.yaml")], capture_output=True, text=True)
need(r.returncode == 0, "ansible: examples/ansible/profile.yaml does not validate: " + (r.stderr or r.stdout).strip()[-300:])

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
