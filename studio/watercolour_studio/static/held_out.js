// The held-out curve beside the reward (docs/evaluation.md, "Reading the curve"): each checkpoint's win rate against
// the starting policy with its 95% interval, the 50% line (the starting policy's level) and the best checkpoint ringed.
import { lineChart } from "./charts.js";
import { el } from "./dom.js";

const COLOUR = "#3d6fc2";

// curve: /api/run's held_out (gallery/held_out.py); steps: the run's steps, so the x axis is the reward chart's.
export function heldOutChart(curve, steps) {
  const best = curve.points.find((point) => point.step === curve.best);
  const chart = lineChart({
    title: "Held-out win rate against the starting policy", id: "chart-held-out", yMax: 1, domain: steps,
    series: [{ name: "win rate (95% interval)", colour: COLOUR, points: curve.points.map((p) => [p.step, p.mean]) }],
    intervals: { colour: COLOUR, points: curve.points.map((p) => [p.step, p.low, p.high]) },
    rule: { value: 0.5, label: "50%: the starting policy" },
    mark: best && { step: best.step, value: best.mean, colour: COLOUR, label: curve.best_text },
  });
  chart.append(el("p", { class: "muted", id: "held-out-best" }, curve.best_text), el("p", { class: "muted" }, curve.against));
  return chart;
}
