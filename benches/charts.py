"""SVG charts for docs/performance.md, drawn without any plotting library.

Three kinds, each a function that returns the SVG text of one chart:

- `hbars`: horizontal bars in labelled groups, on a linear or a log scale, each bar
  with its value written at its end (CPU per message against the peers);
- `stacked_hbars`: horizontal bars made of named segments side by side in panels, each
  panel with its own scale (firmware footprint: flash and RAM by image variant);
- `loglog_lines`: series of points joined by lines on log-log axes (cost against
  message size);
- `xy_panels`: panels side by side, each with series of points joined by lines on
  its own linear or log axes (the fleet's times and memory against its size).

Text widths are estimated (no font metrics): about 0.6 em per character of a
sans-serif face, which leaves room for the labels at the sizes used here.
"""

import math
from html import escape

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
SIZE = 12  # font size of labels, px
INK = "#222"
GRID = "#ddd"
AXIS = "#888"

# Colour-blind-safe (Okabe-Ito) colours, in the order series use them.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999", "#F0E442"]


def text_width(s, size=SIZE):
    return 0.6 * size * len(s)


def fmt(v):
    """A number as a label: thousands separated, at most three significant decimals."""
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 0.01:
        return f"{v:.2f}"
    return f"{v:.3g}"


def fmt_bytes(v):
    if v >= 1 << 20 and v % (1 << 20) == 0:
        return f"{v >> 20} MiB"
    if v >= 1 << 10 and v % (1 << 10) == 0:
        return f"{v >> 10} KiB"
    return f"{v:,} B"


class Svg:
    def __init__(self, width, height):
        self.width, self.height = width, height
        self.parts = []

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, anchor="start", size=SIZE, weight="normal", fill=INK, baseline="middle"):
        self.add(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" '
            f'text-anchor="{anchor}" dominant-baseline="{baseline}" fill="{fill}">{escape(s)}</text>'
        )

    def line(self, x1, y1, x2, y2, stroke=AXIS, width=1, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{stroke}" stroke-width="{width}"{d}/>'
        )

    def rect(self, x, y, w, h, fill, title=None):
        t = f"<title>{escape(title)}</title>" if title else ""
        self.add(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{h:.1f}" fill="{fill}">{t}</rect>')

    def render(self):
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}" font-family="{FONT}">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(self.parts) + "\n</svg>\n"
        )


class Scale:
    """Maps values to x (or y) pixels, linear from 0 or logarithmic, with tick values."""

    def __init__(self, lo, hi, p0, p1, log):
        self.log, self.p0, self.p1 = log, p0, p1
        if log:
            self.lo = 10 ** math.floor(math.log10(lo))
            self.hi = 10 ** math.ceil(math.log10(hi))
            if self.hi <= self.lo:
                self.hi = self.lo * 10
        else:
            self.lo = 0
            step = nice_step(hi / 5 if hi > 0 else 1)
            self.hi = step * math.ceil(hi / step) if hi > 0 else 1
            self.step = step

    def __call__(self, v):
        if self.log:
            f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            f = (v - self.lo) / (self.hi - self.lo)
        return self.p0 + f * (self.p1 - self.p0)

    def ticks(self):
        if self.log:
            out, v = [], self.lo
            while v <= self.hi * 1.0001:
                out.append(v)
                v *= 10
            return out
        n = round(self.hi / self.step)
        return [i * self.step for i in range(n + 1)]


def nice_step(raw):
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def tick_label(v, unit_bytes=False):
    if unit_bytes:
        return fmt_bytes(int(v))
    if v >= 1000:
        return f"{v:,.0f}"
    return f"{v:g}"


def hbars(title, subtitle, groups, x_label, log=False, width=820):
    """groups: [(group label, [(bar label, value or None, text at the bar's end, colour)])].

    A bar with value None is drawn as its label and text only (not measured)."""
    bar_h, gap, group_gap = 20, 6, 14
    labels = [lab for _, rows in groups for lab, *_ in rows]
    left = 16 + max(text_width(s) for s in labels)
    ends = [t for _, rows in groups for _, _, t, _ in rows]
    right = 16 + max(text_width(s) for s in ends)
    top = 58
    height = top
    for _, rows in groups:
        height += 22 + len(rows) * (bar_h + gap) + group_gap
    height += 44
    svg = Svg(width, height)
    svg.text(16, 20, title, size=15, weight="bold")
    svg.text(16, 40, subtitle, size=SIZE, fill="#555")
    values = [v for _, rows in groups for _, v, _, _ in rows if v]
    x = Scale(min(values), max(values), left, width - right, log)
    bottom = height - 44
    for t in x.ticks():
        px = x(t)
        svg.line(px, top, px, bottom, stroke=GRID)
        svg.text(px, bottom + 14, tick_label(t), anchor="middle", size=11, fill="#555")
    svg.text((left + width - right) / 2, bottom + 32, x_label, anchor="middle")
    y = top
    for group, rows in groups:
        svg.text(16, y + 10, group, weight="bold")
        y += 22
        svg.line(left, y - 3, left, y + len(rows) * (bar_h + gap), stroke=AXIS)
        for label, v, end, colour in rows:
            cy = y + bar_h / 2
            svg.text(left - 8, cy, label, anchor="end")
            if v:
                w = x(v) - left
                svg.rect(left, y, w, bar_h, colour, title=f"{label}: {end}")
                svg.text(left + w + 6, cy, end)
            else:
                svg.text(left + 6, cy, end, fill="#555")
            y += bar_h + gap
        y += group_gap
    return svg.render()


def stacked_hbars(title, subtitle, rows, panels, width=900):
    """rows: bar labels, top to bottom. panels: [(panel title, x label,
    [(segment name, colour, [value per row])])]: each panel a stacked bar per row, with
    the row's total written at its end, and a legend of its segments below it."""
    bar_h, gap = 20, 8
    left = 16 + max(text_width(s) for s in rows)
    top = 78
    plot_h = len(rows) * (bar_h + gap)
    height = top + plot_h + 90
    svg = Svg(width, height)
    svg.text(16, 20, title, size=15, weight="bold")
    svg.text(16, 40, subtitle, size=SIZE, fill="#555")
    panel_w = (width - left - 16) / len(panels)
    bottom = top + plot_h
    for i, label in enumerate(rows):
        svg.text(left - 8, top + i * (bar_h + gap) + bar_h / 2, label, anchor="end")
    for p, (ptitle, x_label, segments) in enumerate(panels):
        x0 = left + p * panel_w + (12 if p else 0)
        totals = [sum(s[2][i] for s in segments) for i in range(len(rows))]
        end_w = max(text_width(fmt_int(t)) for t in totals) + 12
        x = Scale(0, max(totals), x0, x0 + panel_w - end_w - 16, log=False)
        svg.text(x0, top - 14, ptitle, weight="bold")
        for t in x.ticks():
            svg.line(x(t), top - 4, x(t), bottom, stroke=GRID)
            svg.text(x(t), bottom + 12, f"{t:,.0f}", anchor="middle", size=10, fill="#555")
        svg.text((x.p0 + x.p1) / 2, bottom + 30, x_label, anchor="middle")
        for i in range(len(rows)):
            y = top + i * (bar_h + gap)
            px = x0
            for name, colour, vals in segments:
                w = x(vals[i]) - x0
                svg.rect(px, y, w, bar_h, colour, title=f"{rows[i]}: {name} {vals[i]:,} B")
                px += w
            svg.text(px + 5, y + bar_h / 2, fmt_int(totals[i]), size=11)
        svg.line(x0, top - 4, x0, bottom, stroke=AXIS)
        lx = x0
        for name, colour, _ in segments:
            svg.rect(lx, bottom + 48, 12, 12, colour)
            svg.text(lx + 16, bottom + 54, name, size=11)
            lx += 16 + text_width(name, 11) + 18
    return svg.render()


def fmt_int(v):
    return f"{v:,}"


def loglog_lines(title, subtitle, series, x_label, y_label, width=820, height=460):
    """series: [(name, colour, dashed, [(x, y)])], x in bytes; both axes logarithmic.
    Each point is marked (its values in a tooltip); the legend is at the right."""
    right = 56 + max(text_width(name, 11) for name, *_ in series)
    left, top, bottom = 86, 58, height - 56
    svg = Svg(width, height)
    svg.text(16, 20, title, size=15, weight="bold")
    svg.text(16, 40, subtitle, size=SIZE, fill="#555")
    xs = [px for _, _, _, pts in series for px, _ in pts]
    ys = [py for _, _, _, pts in series for _, py in pts]
    x = Scale(min(xs), max(xs), left, width - right, log=True)
    y = Scale(min(ys), max(ys), bottom, top, log=True)
    # Byte ticks at the powers of 4 from the scale's range: 256 B, 1 KiB, 4 KiB...
    t = 1
    while t < x.lo:
        t *= 4
    while t <= x.hi:
        svg.line(x(t), top, x(t), bottom, stroke=GRID)
        svg.text(x(t), bottom + 14, fmt_bytes(t), anchor="middle", size=11, fill="#555")
        t *= 4
    for t in y.ticks():
        svg.line(left, y(t), width - right, y(t), stroke=GRID)
        svg.text(left - 6, y(t), tick_label(t), anchor="end", size=11, fill="#555")
    svg.line(left, top, left, bottom)
    svg.line(left, bottom, width - right, bottom)
    svg.text((left + width - right) / 2, bottom + 34, x_label, anchor="middle")
    svg.add(
        f'<text transform="translate(18,{(top + bottom) / 2:.0f}) rotate(-90)" font-size="{SIZE}" '
        f'text-anchor="middle" fill="{INK}">{escape(y_label)}</text>'
    )
    for i, (name, colour, dashed, pts) in enumerate(series):
        pts = sorted(pts)
        d = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in pts)
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        svg.add(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for a, b in pts:
            svg.add(f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="3.5" fill="{colour}"><title>{escape(name)}: '
                    f'{fmt_bytes(a)}, {b:,.0f}</title></circle>')
        # legend at the right
        ly = top + 10 + i * 22
        lx = width - right + 16
        svg.add(f'<line x1="{lx}" y1="{ly}" x2="{lx + 24}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>')
        svg.text(lx + 30, ly, name, size=11)
    return svg.render()


def xy_panels(title, subtitle, panels, width=900, height=420):
    """panels: [(panel title, x label, y label, x log, y log, [(name, colour, dashed,
    [(x, y)])])], side by side; each point marked (its values in a tooltip), each
    panel's legend under it."""
    top, gap = 78, 70
    legend_rows = max(len(series) for *_, series in panels)
    bottom = height - 56 - 18 * legend_rows
    panel_w = (width - 16 - gap * len(panels)) / len(panels)
    svg = Svg(width, height)
    svg.text(16, 20, title, size=15, weight="bold")
    svg.text(16, 40, subtitle, size=SIZE, fill="#555")
    for p, (ptitle, x_label, y_label, xlog, ylog, series) in enumerate(panels):
        left = gap + p * (panel_w + gap)
        right = left + panel_w
        xs = [a for *_, pts in series for a, _ in pts]
        ys = [b for *_, pts in series for _, b in pts]
        x = Scale(min(xs), max(xs), left, right, xlog)
        y = Scale(min(ys), max(ys), bottom, top, ylog)
        svg.text(left, top - 16, ptitle, weight="bold")
        for t in x.ticks():
            svg.line(x(t), top, x(t), bottom, stroke=GRID)
            svg.text(x(t), bottom + 14, tick_label(t), anchor="middle", size=11, fill="#555")
        for t in y.ticks():
            svg.line(left, y(t), right, y(t), stroke=GRID)
            svg.text(left - 6, y(t), tick_label(t), anchor="end", size=11, fill="#555")
        svg.line(left, top, left, bottom)
        svg.line(left, bottom, right, bottom)
        svg.text((left + right) / 2, bottom + 32, x_label, anchor="middle")
        svg.add(
            f'<text transform="translate({left - 48:.0f},{(top + bottom) / 2:.0f}) rotate(-90)" '
            f'font-size="{SIZE}" text-anchor="middle" fill="{INK}">{escape(y_label)}</text>'
        )
        for i, (name, colour, dashed, pts) in enumerate(series):
            pts = sorted(pts)
            d = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in pts)
            dash = ' stroke-dasharray="6 4"' if dashed else ""
            svg.add(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
            if not dashed:
                for a, b in pts:
                    svg.add(f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="3.5" fill="{colour}"><title>'
                            f'{escape(name)}: {a:,}, {fmt(b)}</title></circle>')
            ly = bottom + 52 + 18 * i
            svg.add(f'<line x1="{left}" y1="{ly}" x2="{left + 24}" y2="{ly}" stroke="{colour}" '
                    f'stroke-width="2"{dash}/>')
            svg.text(left + 30, ly, name, size=11)
    return svg.render()
