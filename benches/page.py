"""A section one benchmark script writes into a page by itself (load.sh --page,
soak.sh --page): between the section's markers, or before the page's "How to
reproduce" when it has none yet, headed by the command, date and commit that made
it. benches/report.py writes the same sections when it writes the whole page."""

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_section(page, begin, end, title, command, lines):
    """Write `lines` as the section `title` of `page` (a Path), between `begin` and
    `end`."""
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    body = [begin, f"## {title}", "",
            f"Measured by `{command}` on {now}, commit `{commit}` ({os.cpu_count()} cores); "
            "`benches/run.sh` measures it again with everything else.", ""]
    body += lines
    body.append(end)
    text = page.read_text()
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + "\n".join(body) + rest.split(end, 1)[1]
    elif "## How to reproduce" in text:
        head, rest = text.split("## How to reproduce", 1)
        text = head + "\n".join(body) + "\n\n## How to reproduce" + rest
    else:
        text = text.rstrip() + "\n\n" + "\n".join(body) + "\n"
    page.write_text(text)
