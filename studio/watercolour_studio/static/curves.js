// The run's curves, one chart per question: is the reward rising, which term moves it, does the gate pass, how many fail.
import { TERM_COLOURS } from "./cards.js";
import { lineChart } from "./charts.js";
import { el } from "./dom.js";
import { heldOutChart } from "./held_out.js";

const COLOURS = { ...TERM_COLOURS, mean: "#c2553d", low: "#d49a2a" };

// rows: metrics.jsonl, one object per finished step; terms: the reward's terms; low: the reward a bad painting is below;
// heldOut: the held-out curve, drawn beside the reward, or the line that says how to make one.
export function curveCharts(rows, allTerms, low, heldOut) {
  const points = (value) => rows.map((row) => [row.step, value(row) ?? null]);
  const spread = rows.map((r) => (r.reward_mean === null ? [r.step, null, null] : [r.step, r.reward_mean - (r.reward_std ?? 0), r.reward_mean + (r.reward_std ?? 0)]));
  const terms = allTerms.filter((term) => rows.some((row) => row.components?.[term] !== undefined));
  const most = Math.max(1, ...rows.map((row) => row.rollouts ?? 0));
  const missing = heldOut.missing ? el("p", { class: "muted", id: "held-out-missing" }, heldOut.missing) : null;
  return el("div", {}, missing, el("div", { class: "charts" },
    lineChart({ title: "Mean reward (± std)", id: "chart-reward", yMax: 1, band: { colour: COLOURS.mean, points: spread },
      series: [{ name: "mean reward", colour: COLOURS.mean, points: points((r) => r.reward_mean) }] }),
    missing ? null : heldOutChart(heldOut, rows.map((row) => row.step)),
    lineChart({ title: "Reward components", id: "chart-components", yMax: 1,
      series: terms.map((term) => ({ name: term, colour: COLOURS[term], points: points((r) => r.components?.[term]) })) }),
    lineChart({ title: "Gate pass rate", id: "chart-gate", yMax: 1,
      series: [{ name: "passed the gate", colour: COLOURS.gate, points: points((r) => r.gate_pass_rate) }] }),
    lineChart({ title: `Paintings below ${low}`, id: "chart-low", yMax: most,
      series: [{ name: `rollouts below ${low}`, colour: COLOURS.low, points: points((r) => r.below_0_3) }] }),
  ));
}
