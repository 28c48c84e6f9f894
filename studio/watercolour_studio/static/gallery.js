// The run gallery: the run directory is read again on every refresh, so new steps appear while training runs.
import { card, frame } from "./cards.js";
import { curveCharts } from "./curves.js";
import { openDetail } from "./detail.js";
import { el, fmt, getJSON } from "./dom.js";

const PAGE = 24;
const main = document.getElementById("view");
let run = { metrics: [], steps: [], plan: {}, terms: [], bands: {} };
let steps = [];

function route() {
  const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  return { name: VIEWS[path] ? path : "curves", params: Object.fromEntries(new URLSearchParams(query)) };
}

function go(name, params = {}) {
  const kept = Object.entries(params).filter(([, value]) => value !== undefined && value !== null && value !== "");
  location.hash = `#/${name}${kept.length ? "?" + new URLSearchParams(kept) : ""}`;
}

const empty = (text) => el("p", { class: "empty" }, text);
const lastStep = () => steps[steps.length - 1]?.step;

function select(id, label, options, value, onChange) {
  const choices = options.map(([key, text]) => el("option", { value: key, selected: String(key) === String(value ?? "") }, text));
  return el("label", {}, label, el("select", { id, onchange: (event) => onChange(event.target.value) }, choices));
}

function filters(params, name, summary) {
  const codes = [...new Set(steps.flatMap((s) => Object.keys(s.violations)))].sort();
  const bands = [["", "any reward"], ...Object.entries(run.bands)];
  const violations = [["", "any"], ["none", "no violation"], ...codes.map((code) => [code, code])];
  // A step of several prompts: each GRPO group apart, named by its prompt, with its mean reward.
  const groups = [["", "all"], ...(summary?.groups ?? []).map((g) => [g.group, `g${g.group} · ${g.prompt} · mean ${fmt(g.mean)}`])];
  return [
    select("band", "reward", bands, params.band, (band) => go(name, { ...params, band, page: 1 })),
    select("violation", "violation", violations, params.violation, (violation) => go(name, { ...params, violation, page: 1 })),
    ...(groups.length > 2 ? [select("group", "group", groups, params.group, (group) => go(name, { ...params, group, page: 1 }))] : []),
  ];
}

function stepQuery(params, offset, limit) {
  const query = { band: params.band, violation: params.violation, group: params.group, offset, limit };
  return new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== ""));
}

function stepStats(summary) {
  if (!summary) return el("div", { class: "stats" });
  return el("div", { class: "stats" },
    el("span", {}, "mean ", el("b", {}, fmt(summary.mean))),
    el("span", {}, el("b", {}, summary.painted), ` of ${summary.rollouts} painted`),
    el("span", {}, el("b", {}, summary.dropped), " dropped"));
}

// From the address, not the page drawn: a second key press before the redraw still moves on.
function moveStep(by) {
  const { name, params } = route();
  const at = steps.findIndex((s) => s.step === Number(params.step ?? lastStep()));
  if (name === "steps" && at >= 0) go("steps", { ...params, step: steps[Math.min(steps.length - 1, Math.max(0, at + by))].step, page: 1 });
}

async function stepsView(params) {
  if (!steps.length) return [empty("No step in the film yet.")];
  const step = Number(params.step ?? lastStep());
  const page = Math.max(1, Number(params.page ?? 1));
  const data = await getJSON(`/api/steps/${step}?${stepQuery(params, (page - 1) * PAGE, PAGE)}`);
  const position = steps.findIndex((s) => s.step === step);
  const toolbar = el("div", { class: "toolbar" },
    el("button", { id: "step-prev", onclick: () => moveStep(-1), disabled: position <= 0 }, "← ", el("kbd", {}, "[")),
    select("step", "step", steps.map((s) => [s.step, `step ${s.step}`]), step, (value) => go("steps", { ...params, step: value, page: 1 })),
    el("button", { id: "step-next", onclick: () => moveStep(1), disabled: position >= steps.length - 1 }, el("kbd", {}, "]"), " →"),
    ...filters({ ...params, step }, "steps", steps[position]), el("span", { class: "spacer" }), stepStats(steps[position]));
  const cards = data.items.map((item) => card(item, (chosen) => openDetail(data.items, chosen)));
  const last = Math.min(data.offset + PAGE, data.matched);
  const pager = el("div", { class: "pager" },
    el("button", { id: "page-prev", disabled: page <= 1, onclick: () => go("steps", { ...params, step, page: page - 1 }) }, "Previous"),
    el("span", { id: "page-info" }, data.matched ? `${data.offset + 1}–${last} of ${data.matched}` : "nothing matches", data.matched < data.total ? ` (of ${data.total})` : ""),
    el("button", { id: "page-next", disabled: last >= data.matched, onclick: () => go("steps", { ...params, step, page: page + 1 }) }, "Next"));
  return [toolbar, cards.length ? el("div", { class: "grid", id: "paintings" }, cards) : empty("No painting of this step matches."), pager];
}

async function compareColumn(params, side, step) {
  const data = await getJSON(`/api/steps/${step}?${stepQuery(params, 0, PAGE)}`);
  const pick = select(`compare-${side}`, side === "a" ? "left" : "right", steps.map((s) => [s.step, `step ${s.step}`]), step,
    (value) => go("compare", { ...params, [side]: value }));
  const cards = data.items.map((item) => card(item, (chosen) => openDetail(data.items, chosen)));
  const more = data.matched > data.items.length ? el("p", { class: "muted" }, `and ${data.matched - data.items.length} more in the Steps view`) : null;
  return el("div", { id: `column-${side}` }, el("div", { class: "toolbar" }, pick), stepStats(steps.find((s) => s.step === step)), el("div", { class: "grid" }, cards), more);
}

async function compare(params) {
  if (!steps.length) return [empty("No step in the film yet.")];
  const a = Number(params.a ?? steps[0].step);
  const b = Number(params.b ?? lastStep());
  const columns = await Promise.all([compareColumn(params, "a", a), compareColumn(params, "b", b)]);
  return [el("div", { class: "toolbar" }, ...filters(params, "compare")), el("div", { class: "columns" }, columns)];
}

function evolution() {
  if (!steps.length) return [empty("No step in the film yet.")];
  const frames = steps.map((s) => frame(s.step, s.median, (step) => go("steps", { step })));
  return [el("p", { class: "muted" }, "The median painting of every step (the middle reward among those it rendered), oldest first."), el("div", { class: "strip", id: "strip" }, frames)];
}

async function checks() {
  const found = await getJSON("/api/checks");
  return [el("ul", { class: "checks", id: "checks" }, found.map((check) =>
    el("li", { "data-status": check.status },
      el("span", { class: `status status-${check.status}` }, check.status.toUpperCase()), el("b", {}, check.name), `: ${check.line}`,
      check.evidence.length ? el("ul", {}, check.evidence.map((line) => el("li", {}, line))) : null)))];
}

const curves = () => (run.metrics.length ? [curveCharts(run.metrics, run.terms, run.low_reward, run.held_out)] : [empty("No step has finished yet: metrics.jsonl is empty.")]);
const VIEWS = { curves, steps: stepsView, compare, evolution, checks };

function header() {
  const plan = run.plan;
  document.getElementById("run-name").textContent = run.name;
  document.getElementById("run-eval").hidden = !run.evaluation;
  const rollouts = steps.reduce((sum, s) => sum + s.rollouts, 0);
  const facts = [plan.model, plan.subject, `${steps.length} steps`, `${rollouts} rollouts`].filter(Boolean);
  document.getElementById("run-facts").textContent = facts.join(" · ");
}

let latest = 0;

async function show() {
  const ticket = ++latest;
  const { name, params } = route();
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("active", link.dataset.view === name);
  const nodes = await VIEWS[name](params);
  if (ticket !== latest) return; // a later address was drawn meanwhile: this one is stale
  main.replaceChildren(...nodes);
  main.dataset.view = name;
}

async function refresh() {
  [run, steps] = await Promise.all([getJSON("/api/run"), getJSON("/api/steps")]);
  header();
  await show();
}

document.getElementById("refresh").addEventListener("click", refresh);
document.addEventListener("keydown", (event) => {
  if (document.getElementById("detail").open || event.target.tagName === "SELECT" || event.ctrlKey || event.metaKey) return;
  if (event.key === "r") refresh();
  if (event.key === "[") moveStep(-1);
  if (event.key === "]") moveStep(1);
});
window.addEventListener("hashchange", show);
refresh();
