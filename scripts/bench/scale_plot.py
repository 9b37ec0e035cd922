#!/usr/bin/env python3
"""The cost curve of `scripts/bench/scale_sync.py` as a Markdown table and an SVG plot (issue 38).

    scripts/bench/scale_plot.py .build/scale-results.jsonl [--svg docs/benchmarks/scale.svg] [--commit abc1234]

Reads the JSON lines the benchmark appended; for each tool and size the median of the runs (of one commit when
--commit is given). Two panels, both axes logarithmic: wall time and peak resident memory against the number of
messages, Tern and mbsync from the same runs, with the headers-only sync of the largest size as its own series.
No plotting library: the SVG is written by hand, so the figure comes from the numbers alone.
"""
import argparse
import json
import math
import statistics


def load(path, commit):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    return [r for r in rows if commit is None or r.get("commit") == commit]


def series(rows):
    """{(kind, tool): {messages: (median seconds, median RSS MB, median store bytes per message)}}"""
    grouped = {}
    for row in rows:
        if row.get("kind") not in ("full", "headers"):
            continue
        grouped.setdefault((row["kind"], row["tool"]), {}).setdefault(row["messages"], []).append(row)
    out = {}
    for key, sizes in grouped.items():
        out[key] = {}
        for messages, runs in sorted(sizes.items()):
            out[key][messages] = (statistics.median(r["seconds"] for r in runs), statistics.median(r["rss_mb"] for r in runs),
                                  statistics.median(r["store_bytes"] for r in runs) / messages, len(runs))
    return out


def table(curves):
    lines = ["| messages | sync | tern s | mbsync s | mbsync ÷ tern (above 1: tern faster) | tern µs/msg | tern peak RSS | mbsync peak RSS | tern store / msg | runs |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    tern = curves.get(("full", "tern"), {})
    mbsync = curves.get(("full", "mbsync"), {})
    for messages in sorted(set(tern) | set(mbsync)):
        t, m = tern.get(messages), mbsync.get(messages)
        ratio = f"{m[0] / t[0]:.2f}×" if t and m else ""
        lines.append(f"| {messages:,} | full, bodies | {t[0]:.1f} | {m[0]:.1f} | {ratio} | {t[0] / messages * 1e6:,.0f} | {t[1]:.0f} MB | "
                     f"{m[1]:.0f} MB | {t[2] / 1024:.1f} KB | {t[3]} |" if t and m else f"| {messages:,} | full | {t or ''} | {m or ''} |")
    for messages, h in sorted(curves.get(("headers", "tern"), {}).items()):
        lines.append(f"| {messages:,} | headers only | {h[0]:.1f} | | | {h[0] / messages * 1e6:,.0f} | {h[1]:.0f} MB | | {h[2] / 1024:.1f} KB | {h[3]} |")
    return "\n".join(lines)


def svg(curves, title):
    width, height, margin = 860, 380, 60
    panel = (width - 3 * margin) // 2
    colors = {("full", "tern"): "#0b57d0", ("full", "mbsync"): "#b3261e", ("headers", "tern"): "#0b8043"}
    labels = {("full", "tern"): "tern, full sync with bodies", ("full", "mbsync"): "mbsync 1.4, same folders",
              ("headers", "tern"): "tern, headers only"}
    points = [m for c in curves.values() for m in c]
    if not points:
        raise SystemExit("no measurements")
    x_low, x_high = math.log10(min(points)) - 0.1, math.log10(max(points)) + 0.1

    def axis(values):
        low, high = math.log10(max(min(values), 1e-3)), math.log10(max(values))
        return math.floor(low), math.ceil(high) if math.ceil(high) > math.floor(low) else math.floor(low) + 1

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>']
    for index, (measure, name) in enumerate(((0, "wall time (s)"), (1, "peak resident memory (MB)"))):
        left = margin + index * (panel + margin)
        top, bottom = 40, height - 70
        values = [v[measure] for c in curves.values() for v in c.values()]
        y_low, y_high = axis(values)

        def x(m):
            return left + (math.log10(m) - x_low) / (x_high - x_low) * panel

        def y(v):
            return bottom - (math.log10(max(v, 1e-3)) - y_low) / (y_high - y_low) * (bottom - top)

        out.append(f'<rect x="{left}" y="{top}" width="{panel}" height="{bottom - top}" fill="none" stroke="#888"/>')
        out.append(f'<text x="{left + panel / 2}" y="{top - 6}" text-anchor="middle">{name}</text>')
        for decade in range(y_low, y_high + 1):
            for step in (1, 2, 5):
                value = step * 10 ** decade
                if value > 10 ** y_high:
                    break
                out.append(f'<line x1="{left}" x2="{left + panel}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="#e0e0e0"/>')
                out.append(f'<text x="{left - 6}" y="{y(value) + 4:.1f}" text-anchor="end">{value:g}</text>')
        for value in sorted(points := set(points)):
            out.append(f'<line x1="{x(value):.1f}" x2="{x(value):.1f}" y1="{top}" y2="{bottom}" stroke="#e0e0e0"/>')
            out.append(f'<text x="{x(value):.1f}" y="{bottom + 16}" text-anchor="middle">{value:,.0f}</text>')
        out.append(f'<text x="{left + panel / 2}" y="{bottom + 34}" text-anchor="middle">messages</text>')
        for key, curve in sorted(curves.items()):
            color = colors.get(key, "#555")
            coordinates = [(x(m), y(v[measure])) for m, v in sorted(curve.items())]
            if len(coordinates) > 1:
                out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="'
                           + " ".join(f"{a:.1f},{b:.1f}" for a, b in coordinates) + '"/>')
            for a, b in coordinates:
                out.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3.5" fill="{color}"/>')
    for index, key in enumerate(k for k in colors if k in curves):
        lx = margin + index * 260
        out.append(f'<rect x="{lx}" y="{height - 22}" width="14" height="4" fill="{colors[key]}"/>')
        out.append(f'<text x="{lx + 20}" y="{height - 16}">{labels[key]}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results")
    parser.add_argument("--svg")
    parser.add_argument("--commit")
    parser.add_argument("--title", default="Full sync against mailbox size, Tern and mbsync in the same runs (issue 38)")
    args = parser.parse_args()
    curves = series(load(args.results, args.commit))
    print(table(curves))
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(svg(curves, args.title))


if __name__ == "__main__":
    main()
