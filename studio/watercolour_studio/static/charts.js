// Line charts as inline SVG: steps along x, one polyline per series, gaps where a value is missing.
import { el } from "./dom.js";

const NS = "http://www.w3.org/2000/svg";
const W = 560, H = 230, LEFT = 44, RIGHT = 14, TOP = 12, BOTTOM = 28;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function scales(steps, yMax) {
  const [lo, hi] = [Math.min(...steps), Math.max(...steps)];
  const span = hi - lo || 1;
  return {
    x: (step) => LEFT + ((step - lo) / span) * (W - LEFT - RIGHT),
    y: (value) => TOP + (1 - value / yMax) * (H - TOP - BOTTOM),
    xTicks: [...new Set(Array.from({ length: 6 }, (_, i) => Math.round(lo + (i * span) / 5)))].filter((s) => s <= hi),
  };
}

function axes(scale, yMax) {
  const group = svg("g");
  for (const value of [0, yMax / 2, yMax]) {
    const y = scale.y(value);
    group.append(svg("line", { x1: LEFT, x2: W - RIGHT, y1: y, y2: y, class: "axis" }));
    group.append(svg("text", { x: LEFT - 6, y: y + 4, "text-anchor": "end", class: "tick" }, String(+value.toFixed(2))));
  }
  for (const step of scale.xTicks) {
    group.append(svg("text", { x: scale.x(step), y: H - 8, "text-anchor": "middle", class: "tick" }, String(step)));
  }
  return group;
}

// Consecutive known points form one run of the line; a missing value starts the next.
function segments(points) {
  const runs = [[]];
  for (const point of points) {
    if (point[1] === null || point[1] === undefined) runs.push([]);
    else runs[runs.length - 1].push(point);
  }
  return runs.filter((run) => run.length);
}

function drawSeries(scale, series) {
  const group = svg("g", { "data-series": series.name });
  for (const run of segments(series.points)) {
    const path = run.map(([x, y]) => `${scale.x(x).toFixed(1)},${scale.y(y).toFixed(1)}`).join(" ");
    group.append(svg("polyline", { points: path, fill: "none", stroke: series.colour, "stroke-width": 2.5, "stroke-linejoin": "round" }));
    for (const [x, y] of run) {
      const dot = svg("circle", { cx: scale.x(x), cy: scale.y(y), r: 3.2, fill: series.colour });
      dot.append(svg("title", {}, `${series.name} at step ${x}: ${+y.toFixed(3)}`));
      group.append(dot);
    }
  }
  return group;
}

function drawBand(scale, band) {
  const known = band.points.filter(([, low]) => low !== null && low !== undefined);
  const upper = known.map(([x, , high]) => `${scale.x(x)},${scale.y(high)}`);
  const lower = known.map(([x, low]) => `${scale.x(x)},${scale.y(Math.max(0, low))}`).reverse();
  return svg("polygon", { points: [...upper, ...lower].join(" "), fill: band.colour, opacity: 0.18 });
}

// An interval per point, as a bar from low to high: for points far apart, where a band would join them.
function drawIntervals(scale, intervals) {
  const group = svg("g", { class: "intervals" });
  for (const [x, low, high] of intervals.points.filter(([, low]) => low !== null && low !== undefined)) {
    const bar = svg("line", { x1: scale.x(x), x2: scale.x(x), y1: scale.y(low), y2: scale.y(high), stroke: intervals.colour,
      "stroke-width": 7, "stroke-linecap": "round", opacity: 0.25 });
    bar.append(svg("title", {}, `step ${x}: ${Math.round(low * 100)}% to ${Math.round(high * 100)}%`));
    group.append(bar);
  }
  return group;
}

function drawRule(scale, rule) {
  const y = scale.y(rule.value);
  return svg("g", { class: "rule" },
    svg("line", { x1: LEFT, x2: W - RIGHT, y1: y, y2: y, stroke: "currentColor", "stroke-dasharray": "5 4", opacity: 0.6 }),
    svg("text", { x: W - RIGHT, y: y - 5, "text-anchor": "end", class: "tick" }, rule.label));
}

function drawMark(scale, mark) {
  const ring = svg("circle", { class: "mark", cx: scale.x(mark.step), cy: scale.y(mark.value), r: 8, fill: "none", stroke: mark.colour, "stroke-width": 2 });
  ring.append(svg("title", {}, mark.label));
  return ring;
}

// series: [{name, colour, points: [[step, value|null]]}]; band, intervals: {colour, points: [[step, low, high]]};
// domain: steps the x axis spans besides the series' own; rule: {value, label}, a dashed level; mark: {step, value,
// colour, label}, a ring around one point.
export function lineChart({ title, id, series, yMax, band, intervals, domain = [], rule, mark }) {
  const steps = [...domain, ...series.flatMap((s) => s.points.map(([x]) => x))];
  const values = series.flatMap((s) => s.points.map(([, y]) => y)).filter((y) => y !== null && y !== undefined);
  const top = yMax ?? Math.max(1, ...values);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
  if (steps.length) {
    const scale = scales(steps, top);
    chart.append(axes(scale, top));
    if (band) chart.append(drawBand(scale, band));
    if (intervals) chart.append(drawIntervals(scale, intervals));
    if (rule) chart.append(drawRule(scale, rule));
    chart.append(...series.map((s) => drawSeries(scale, s)));
    if (mark) chart.append(drawMark(scale, mark));
  }
  const legend = el("div", { class: "legend" }, series.map((s) => el("span", {}, el("i", { style: `background:${s.colour}` }), s.name)));
  return el("figure", { class: "chart", id }, el("figcaption", {}, title), chart, legend);
}
