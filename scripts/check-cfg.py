#!/usr/bin/env python3
"""The core's configuration at its edges, checked: no `#[cfg(...)]`, `#[cfg_attr(...)]`
or `cfg!(...)` on a statement or an expression inside a function body in core/src.

A cargo feature or a code form (`emcp_fast`) gates an item: a module where it is
declared, a function, a field, an enum variant, an `impl`. A capability the request
path calls into (`input`, `tasks`) is a module with an "off" form beside it
(`server/input/off.rs`, `server/tasks/off.rs`, `device/input/off.rs`: empty types,
hooks that do nothing), chosen where the module is declared; a branch that only asks
"is this compiled in?" reads a constant of `core/src/features.rs`. The code that runs
a request then reads the same in every build. A `cfg` inside a body is a finding, one
line each, exit status 1; tests (files named `tests.rs`, and a `#[cfg(test)] mod
tests { … }` to the end of its file) are left out.

The exceptions are listed below, each with its reason; keep them few.

Usage: scripts/check-cfg.py [FILE...]   (default: every .rs file under core/src)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "core" / "src"

# (file relative to core/src, function name): why a cfg may sit in its body.
EXCEPTIONS = {
    ("server/handle.rs", "dispatch"): "the method table: a capability's methods are "
    "routed only when it is compiled in (its module's edge)",
    ("server/list.rs", "item_as"): "the list writer's arms: one per list kind, "
    "each present only with its capability (the list method table)",
    ("server/failure.rs", "write_failure"): "an arm per error data variant, and a "
    "variant exists only with the capability that raises it",
    ("wire/error.rs", "code"): "an arm per error variant (variants gated as items)",
    ("wire/error.rs", "message_rest"): "an arm per error variant (variants gated as items)",
    ("wire/json/find.rs", "find_special"): "the code form chosen for the word scan "
    "(`cfg!(emcp_fast)` as a const generic: the forms' selection point)",
}


def strip(text):
    """The text with comments, string and char literals blanked (lengths and lines
    kept), so that braces and `cfg` inside them are not seen."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + len(m.group(0)))
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12]):
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            out.append(" " * len(m.group(0)))
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def without_tests(text):
    """Cut the text at a `#[cfg(test)]` followed by an inline `mod tests {` (to the
    end of the file, as the crate writes its unit tests)."""
    m = re.search(r"^\s*#\[cfg\(test\)\]\s*\n\s*(#\[[^\]]*\]\s*)*mod tests\s*\{", text, re.M)
    return text[: m.start()] if m else text


FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")
CFG = re.compile(r"#\s*!?\[\s*cfg(_attr)?\s*\(|\bcfg!\s*\(")


def findings(path):
    rel = path.relative_to(SRC).as_posix()
    if path.name == "tests.rs":
        return []
    text = strip(without_tests(path.read_text()))
    out = []
    # A stack of open braces: the name of the function whose body a brace opened (or
    # the enclosing one's, for a block inside a body), None outside any body.
    stack = []
    pending_fn = None  # a `fn name` seen whose body's brace has not opened yet
    i, n = 0, len(text)
    line = 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        m = FN.match(text, i)
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            pending_fn = m.group(1)
            i = m.end()
            continue
        if c == ";" and pending_fn and not any(stack):
            pending_fn = None  # a declaration without a body (a trait's)
        if c == "{":
            inside = next((f for f in reversed(stack) if f), None)
            if inside:
                stack.append(inside)
            elif pending_fn:
                stack.append(pending_fn)
                pending_fn = None
            else:
                stack.append(None)
            i += 1
            continue
        if c == "}":
            if stack:
                stack.pop()
            i += 1
            continue
        m = CFG.match(text, i)
        if m:
            inside = next((f for f in reversed(stack) if f), None)
            if inside and (rel, inside) not in EXCEPTIONS:
                snippet = text[i: text.find("\n", i)].strip()
                out.append(f"core/src/{rel}:{line}: in fn {inside}: {snippet}")
            i = m.end()
            continue
        i += 1
    return out


def main(argv):
    files = [pathlib.Path(a).resolve() for a in argv] or sorted(SRC.rglob("*.rs"))
    problems = [f for p in files for f in findings(p)]
    for p in problems:
        print(p)
    if problems:
        print(f"check-cfg: {len(problems)} cfg inside function bodies "
              "(gate the item or the module instead; see the script's header)", file=sys.stderr)
        return 1
    print(f"check-cfg: no cfg inside a function body in {len(files)} files "
          f"({len(EXCEPTIONS)} exceptions listed)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
