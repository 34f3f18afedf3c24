#!/usr/bin/env python3
"""Checks a study's report.html as issue 31 asks: printed on A4 with its details collapsed it takes at
most --max-pages pages, and opened at 1,000 px and 1,920 px wide no table is wider than its box and
the page does not scroll sideways. Uses headless chromium (scripts/install-deps.sh installs it).

    python3 scripts/report_pages.py report/report.html [--max-pages 20]

Prints the page count and, per width, the tables wider than their box (section, first header
cells, table and box widths); exits 1 when a goal is missed, 2 when chromium is missing."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Appended to a copy of the page: measures every table against its box and writes the findings
# into the DOM, which --dump-dom prints.
MEASURE = """
<script>
window.addEventListener('load', function () {
  var out = [];
  var page = document.documentElement.scrollWidth - window.innerWidth;
  if (page > 1) out.push('PAGE scrolls sideways by ' + page + ' px');
  document.querySelectorAll('table').forEach(function (t) {
    var box = t.parentElement, opened = t.closest('details');
    if (opened) opened.open = true;
    var width = t.getBoundingClientRect().width, room = box.clientWidth;
    if (width > room + 1) {
      var section = t.closest('section'), head = Array.prototype.slice.call(t.querySelectorAll('th'), 0, 3);
      out.push('TABLE in ' + (section ? section.id : 'footer') + ' [' + head.map(function (h) {
        return h.textContent; }).join(' | ') + '] ' + Math.round(width) + ' px in a ' + room + ' px box');
    }
  });
  var pre = document.createElement('pre'); pre.id = 'measured';
  pre.textContent = 'MEASURED\\n' + out.join('\\n') + '\\nEND';
  document.body.appendChild(pre);
});
</script>
"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def headless(browser, profile, *args):
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


def printed_pages(browser, profile, report, pdf):
    headless(browser, profile, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", "file://" + report)
    with open(pdf, "rb") as file:
        data = file.read()
    return len(re.findall(rb"/Type\s*/Page[^s]", data))


def overflowing_tables(browser, profile, report, width, work):
    copy = os.path.join(work, f"measure_{width}.html")
    with open(report, encoding="utf-8") as file:
        html = file.read()
    with open(copy, "w", encoding="utf-8") as file:
        file.write(html.replace("</body>", MEASURE + "</body>"))
    dom = headless(browser, profile, f"--window-size={width},900", "--virtual-time-budget=5000", "--dump-dom",
                   "file://" + copy).stdout
    found = re.search(r"MEASURED\n(.*?)END", dom, re.S)
    if not found:
        raise RuntimeError(f"chromium did not measure the page at {width} px")
    return [line for line in found.group(1).splitlines() if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--max-pages", type=int, default=20)
    parser.add_argument("--widths", default="1000,1920")
    args = parser.parse_args()
    browser = chromium()
    if not browser:
        print("chromium is not installed (scripts/install-deps.sh installs it)", file=sys.stderr)
        return 2
    report = os.path.abspath(args.report)
    ok = True
    with tempfile.TemporaryDirectory() as work:
        profile = os.path.join(work, "profile")
        pages = printed_pages(browser, profile, report, os.path.join(work, "report.pdf"))
        print(f"printed on A4/Letter with details collapsed: {pages} pages (goal: at most {args.max_pages})")
        ok = pages <= args.max_pages
        for width in map(int, args.widths.split(",")):
            wide = overflowing_tables(browser, profile, report, width, work)
            print(f"at {width} px: {len(wide)} table(s) wider than their box or page overflow")
            for line in wide:
                print("  " + line)
            ok = ok and not wide
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
