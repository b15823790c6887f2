"""A hand-written SVG: p50 round-trip latency vs requests in flight, log-log."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Final

__all__ = ["latency_svg"]

WIDTH, HEIGHT = 820, 480
LEFT, RIGHT, TOP, BOTTOM = 90, 600, 60, 410
COLORS: Final = {
    "floor": "#444444",
    "trio-floor": "#444444",
    "hookd": "#1f6fd1",
    "hookd-novalidate": "#1f6fd1",
    "sdk": "#e07b00",
    "command": "#c8102e",
}
SPARE_COLORS: Final = ("#2a9d3f", "#8e44ad", "#8c564b")
DASHED: Final = frozenset({"hookd-novalidate", "trio-floor"})
Series = Mapping[str, Sequence[tuple[int, float]]]


def _human_us(value_us: float) -> str:
    for scale, unit in ((1e6, "s"), (1e3, "ms")):
        if value_us >= scale:
            return f"{value_us / scale:g} {unit}"
    return f"{value_us:g} \u00b5s"


class _Axes:
    def __init__(self, windows: Sequence[int], values: Sequence[float]) -> None:
        self.x_max = math.log2(max(windows)) or 1.0
        self.y_lo = math.floor(math.log10(min(values)))
        self.y_hi = max(math.ceil(math.log10(max(values))), self.y_lo + 1)

    def x(self, window: int) -> float:
        return LEFT + (RIGHT - LEFT) * math.log2(window) / self.x_max

    def y(self, value_us: float) -> float:
        frac = (math.log10(value_us) - self.y_lo) / (self.y_hi - self.y_lo)
        return BOTTOM - (BOTTOM - TOP) * frac


def _grid(axes: _Axes, windows: Sequence[int]) -> list[str]:
    out = []
    for decade in range(axes.y_lo, axes.y_hi + 1):
        for step in (1, 2, 5):
            value = step * 10.0**decade
            if decade == axes.y_hi and step > 1:
                continue
            y = axes.y(value)
            shade = "#bbbbbb" if step == 1 else "#e6e6e6"
            out.append(
                f'<line x1="{LEFT}" x2="{RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="{shade}"/>'
            )
            if step == 1:
                label = _human_us(value)
                out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for window in windows:
        x = axes.x(window)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{BOTTOM}" stroke="#e6e6e6"/>')
        out.append(f'<text x="{x:.1f}" y="{BOTTOM + 20}" text-anchor="middle">{window}</text>')
    return out


def _lines(axes: _Axes, series: Series) -> list[str]:
    out = []
    for index, (name, points) in enumerate(series.items()):
        color = COLORS.get(name, SPARE_COLORS[index % len(SPARE_COLORS)])
        dash = ' stroke-dasharray="7 4"' if name in DASHED else ""
        coords = " ".join(f"{axes.x(w):.1f},{axes.y(v):.1f}" for w, v in points)
        out.append(
            f'<polyline points="{coords}" fill="none" stroke="{color}" stroke-width="2.5"{dash}/>'
        )
        out += [
            f'<circle cx="{axes.x(w):.1f}" cy="{axes.y(v):.1f}" r="4" fill="{color}">'
            f"<title>{escape(name)} W={w}: {_human_us(round(v, 1))}</title></circle>"
            for w, v in points
        ]
        y = TOP + 10 + 26 * index
        out.append(
            f'<line x1="{RIGHT + 30}" x2="{RIGHT + 62}" y1="{y}" y2="{y}" stroke="{color}"'
            f' stroke-width="3"{dash}/>'
        )
        out.append(f'<text x="{RIGHT + 70}" y="{y + 5}">{escape(name)}</text>')
    return out


def latency_svg(series: Series, subtitle: str) -> str:
    """The SVG document; ``series`` maps a contender to ``(window, p50_us)`` points."""
    points = [p for pts in series.values() for p in pts]
    if not points:
        return ""
    axes = _Axes([w for w, _ in points], [v for _, v in points])
    body = [
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="28" font-size="17" font-weight="bold">'
        "p50 round-trip latency vs requests in flight</text>",
        f'<text x="{LEFT}" y="47" fill="#555">{escape(subtitle)}</text>',
        *_grid(axes, sorted({w for w, _ in points})),
        f'<rect x="{LEFT}" y="{TOP}" width="{RIGHT - LEFT}" height="{BOTTOM - TOP}"'
        ' fill="none" stroke="#333"/>',
        f'<text x="{(LEFT + RIGHT) / 2}" y="{BOTTOM + 45}" text-anchor="middle">'
        "requests in flight (log scale)</text>",
        f'<text transform="translate(22 {(TOP + BOTTOM) / 2}) rotate(-90)" text-anchor="middle">'
        "p50 latency (log scale)</text>",
        *_lines(axes, series),
    ]
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}"'
        f' viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="13">'
    )
    return "\n".join([head, *body, "</svg>", ""])
