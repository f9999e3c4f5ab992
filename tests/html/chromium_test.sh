#!/usr/bin/env bash
# verdict.html in a real browser (issue 16): `rtagent report --html` renders a saved verdict,
# headless Chromium (Debian's chromium package) opens it, and the test proves three things:
#   1. it renders: the text of the page's DOM holds the verdict word and every criterion of
#      the verdict JSON, and a 1200x1600 screenshot is written (its path is printed);
#   2. it loads nothing from the network: every host name resolves to nothing
#      (--host-resolver-rules) and Chromium's own network log (--log-net-log) is read for any
#      request the page started; Chromium's own background requests (component updates,
#      time, accounts: initiator "not an origin") are counted apart, and blocked too;
#   3. that check can fail: the same page with one <img src="http://..."> added is caught,
#      by the network log and by the page-source scan.
# Usage: chromium_test.sh RTAGENT_BINARY SOURCE_DIR OUT_DIR. Exit 77 (skipped) only when
# chromium is not installed.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  echo "SKIPPED: chromium is not installed (apt-get install chromium; tools/setup.sh --test installs it)"
  exit 77
fi
rtagent=$1 src=$2
out=$(realpath -m "$3")  # Chromium wants an absolute file:// URL
t0=$(date +%s%N)
rm -rf "$out"
mkdir -p "$out"
profiles=$(mktemp -d)
trap 'rm -rf "$profiles"' EXIT

verdict_json=$src/tests/expected/verdict.json
page=$out/verdict.html
"$rtagent" report "$verdict_json" --html "$page"

# Opens $1 in headless Chromium with a fresh profile; the DOM goes to $2, the network log to
# $3, Chromium's messages to $2.log; the remaining arguments are added to the command line.
browse() {
  local url=file://$1 dom=$2 netlog=$3
  shift 3
  local ud
  ud=$(mktemp -d "$profiles/ud.XXXXXX")
  if ! timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$ud" \
      --host-resolver-rules="MAP * ~NOTFOUND" --log-net-log="$netlog" "$@" --dump-dom "$url" \
      >"$dom" 2>"$dom.log"; then
    echo "FAIL: chromium could not open $url; its messages:" >&2
    tail -20 "$dom.log" >&2
    return 1
  fi
}

# What the page itself asked the network for, from Chromium's network log (JSON): every
# URL request whose initiator is a page (file:// pages have the opaque origin "null").
# Prints one line per request and exits 1 when there is any; Chromium's own requests are
# only counted.
page_requests() {
  python3 - "$1" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
page, own, failed = set(), {}, set()
for e in log["events"]:
    if names.get(e["type"]) != "URL_REQUEST_START_JOB":
        continue
    p = e.get("params", {})
    if "url" not in p:  # the job's end: its error, if any, under the start's source id
        if p.get("net_error", 0) != 0:
            failed.add(e["source"]["id"])
        continue
    if p.get("initiator") == "not an origin":
        own[e["source"]["id"]] = p["url"]
    else:
        page.add(p["url"])
blocked = sum(1 for i in own if i in failed)
print(f"network log: {len(page)} request(s) from the page; {len(own)} of Chromium's own (updates, time, accounts), "
      f"{blocked} of them failed (no host resolves)")
for u in sorted(page):
    print(f"  the page requested {u}")
sys.exit(1 if page else 0)
PY
}

# Anything in the page's source that would make a browser fetch or run something.
source_scan() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
bad = [m.group(0) for m in re.finditer(
    r'https?://|<script|<link|<img|<iframe|<object|<embed|<video|<audio|<base|\bsrc=|\bhref=|srcset=|url\(|@import|@font-face|http-equiv|<[^>]*\son\w+=',
    text, re.I)]
for b in bad:
    print(f"  the page source holds {b!r}")
sys.exit(1 if bad else 0)
PY
}

# 1. it renders, and 2. it fetches nothing.
t1=$(date +%s%N)
browse "$page" "$out/dom.html" "$out/netlog.json" --screenshot="$out/verdict.png" --window-size=1200,1600
t2=$(date +%s%N)
python3 - "$verdict_json" "$out/dom.html" <<'PY'
import html.parser, json, sys
verdict = json.load(open(sys.argv[1]))
class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0
    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("style", "title")
    def handle_endtag(self, tag):
        self.skip -= tag in ("style", "title")
    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)
p = Text()
p.feed(open(sys.argv[2], encoding="utf-8").read())
text = " ".join(" ".join(p.parts).split())
missing = []
word = verdict["result"]
if f"Verdict: {'✓' if word == 'PASS' else '✗'} {word}" not in text:
    missing.append(f"the verdict word {word}")
for k in verdict["criteria"]:
    if k["name"] not in text:
        missing.append(f"criterion {k['name']}")
if "virtual_machine" in {w["code"] for w in verdict["warnings"]} and "VIRTUAL MACHINE" not in text:
    missing.append("the virtual-machine label")
if missing:
    print("FAIL: the rendered page's text lacks: " + ", ".join(missing))
    sys.exit(1)
print(f"rendered text ({len(text)} characters) holds the verdict {word} and all {len(verdict['criteria'])} criteria")
PY
size=$(stat -c %s "$out/verdict.png" 2>/dev/null || echo 0)
if [ "$size" -lt 20000 ]; then
  echo "FAIL: screenshot $out/verdict.png is missing or too small ($size bytes)"
  exit 1
fi
echo "screenshot: $out/verdict.png ($size bytes, 1200x1600)"
page_requests "$out/netlog.json"
source_scan "$page"
echo "page source: nothing to fetch or run"

# 3. the same checks catch a page that fetches: one external image added.
bad=$out/fetching.html
sed 's|</main>|<img src="http://rtagent-negative.invalid/x.png" alt="x"></main>|' "$page" >"$bad"
browse "$bad" "$out/fetching.dom.html" "$out/fetching.netlog.json"
t3=$(date +%s%N)
if page_requests "$out/fetching.netlog.json"; then
  echo "FAIL: the network check passed a page with an external image: it proves nothing"
  exit 1
fi
if source_scan "$bad" >/dev/null; then
  echo "FAIL: the source scan passed a page with an external image"
  exit 1
fi
echo "negative control: the page with <img src=\"http://...\"> fails both checks, as it must"
ms() { echo $((($2 - $1) / 1000000)); }
echo "time: chromium $(ms "$t1" "$t2") ms for the page, $(ms "$t2" "$t3") ms for the negative control, $(ms "$t0" "$t3") ms in all"
