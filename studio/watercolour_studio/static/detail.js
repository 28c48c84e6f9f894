// One painting in full: its code (highlighted, copyable), violations, breakdown, and the references it faced.
import { picture } from "./cards.js";
import { el, fmt, getJSON } from "./dom.js";

const dialog = document.getElementById("detail");
let items = [];
let position = 0;

function renderFacts(render) {
  if (!render) return "the environment gave no answer";
  const paint = render.paint_fraction === null ? "" : ` · paint ${(render.paint_fraction * 100).toFixed(1)}%`;
  return `${render.status}${paint} · ${(render.timings.total_ms / 1000).toFixed(1)} s${render.cached ? " (cached)" : ""}`;
}

function breakdownTable(data) {
  const reward = data.record.evaluation?.reward ?? {};
  const weights = reward.weights ?? {};
  const rows = Object.keys(data.breakdown).map((term) =>
    el("tr", {}, el("td", {}, term), el("td", { class: "num" }, fmt(reward[term])), el("td", { class: "num" }, fmt(weights[term], 2))),
  );
  const hps = reward.details?.hps;
  const extra = hps ? el("p", { class: "muted" }, `HPSv3 μ ${fmt(hps.mu, 2)} σ ${fmt(hps.sigma, 2)}`) : null;
  const why = reward.unavailable_reason ? el("p", { class: "muted" }, reward.unavailable_reason) : null;
  return [el("table", {}, el("tr", {}, el("th", {}, "term"), el("th", {}, "score"), el("th", {}, "weight")), rows), extra, why];
}

function violationList(data) {
  const render = data.record.evaluation?.render ?? {};
  const found = (render.violations ?? []).map((v) =>
    el("li", {}, el("code", {}, v.code), ` ${v.message}`, v.line ? el("span", { class: "muted" }, ` (line ${v.line})`) : null),
  );
  const errors = (render.errors ?? []).map((text) => el("li", {}, el("code", {}, "js error"), ` ${text}`));
  return found.length || errors.length ? el("ul", { class: "violations" }, found, errors) : el("p", { class: "muted" }, "none");
}

function verdict(outcome) {
  if (!outcome) return el("td", { class: "muted" }, "call failed");
  return el("td", {}, el("span", { class: outcome.won ? "won" : "lost" }, outcome.won ? "won" : "lost"), ` ${outcome.reason}`);
}

function referenceTable(data) {
  if (!data.references.length) return el("p", { class: "muted" }, "no judge comparisons for this painting");
  const head = el("tr", {}, ["", "reference", "score", "painting first", "painting second"].map((h) => el("th", {}, h)));
  const rows = data.references.map((ref) =>
    el(
      "tr",
      { "data-reference": ref.id },
      el("td", {}, ref.image ? el("img", { src: ref.image, loading: "lazy", alt: ref.id }) : null),
      el("td", {}, el("b", {}, ref.id), el("br"), el("span", { class: "muted" }, ref.tier)),
      el("td", { class: "num" }, fmt(ref.score, 1)),
      verdict(ref.as_a),
      verdict(ref.as_b),
    ),
  );
  return el("table", { class: "refs" }, head, rows);
}

function codeBox(data) {
  const pre = el("pre", { class: "code" });
  pre.innerHTML = data.code_html; // Pygments output: every character of the model's code is escaped.
  const lines = pre.querySelectorAll(".line");
  for (const violation of data.record.evaluation?.render?.violations ?? []) lines[violation.line - 1]?.classList.add("flagged");
  const copy = el("button", { id: "copy-code", onclick: async () => {
    await navigator.clipboard.writeText(data.code);
    copy.textContent = "Copied";
  } }, "Copy");
  return el("div", { class: "code-box" }, copy, pre);
}

// A rollout with revisions: each painting of its episode in the order painted, with the critique the policy read.
function revisionChain(data) {
  if (!data.turns?.length) return null;
  const last = data.turns.length - 1;
  const turns = data.turns.map((turn) => {
    const label = turn.turn === 0 ? "First painting" : `Revision ${turn.turn}`;
    const notes = [
      turn.status,
      turn.violations.length ? turn.violations.join(", ") : null,
      turn.handed_in ? "handed in again: the rollout stopped before this revision" : null,
    ].filter(Boolean).join(" · ");
    const pre = el("pre", { class: "code" });
    pre.innerHTML = turn.code_html; // Pygments output: every character of the model's code is escaped.
    const said = turn.turn === last ? "Critique (read by no policy: the episode ended)" : "Critique the policy read";
    return el(
      "li", { class: "turn", "data-turn": turn.turn },
      el("h4", {}, label, turn.turn === last ? " · the one rewarded" : ""),
      turn.image ? el("img", { class: "painting", src: turn.image, alt: `${label} of rollout ${data.index}` }) : el("div", { class: "no-painting" }),
      el("p", { class: "muted" }, notes),
      turn.failure ? el("p", { class: "failure" }, turn.failure) : null,
      el("p", { class: "muted" }, said, turn.critique_source ? ` (${turn.critique_source})` : ""),
      el("blockquote", { class: "critique" }, turn.critique ?? "no critique"),
      el("details", {}, el("summary", {}, "JavaScript"), pre),
    );
  });
  return el("div", { class: "revisions" }, el("h3", {}, `Revisions (${data.turns.length} paintings)`), el("ol", { class: "chain" }, turns));
}

function render(data) {
  const record = data.record;
  const title = `Step ${data.step} · rollout ${data.index} · group ${data.group} · reward ${fmt(data.reward)}`;
  document.getElementById("detail-title").textContent = title;
  const left = el(
    "div", {},
    data.image ? el("img", { class: "painting", src: data.image, alt: `painting of rollout ${data.index}` }) : picture(data, ""),
    el("p", { class: "muted" }, record.prompt ?? "", ` · seed ${record.seed ?? "–"}`),
    el("p", { class: "muted" }, renderFacts(record.evaluation?.render)),
    el("h3", {}, "Reward breakdown"), breakdownTable(data),
  );
  const right = el(
    "div", {},
    el("h3", {}, "Violations"), violationList(data),
    el("h3", {}, "JavaScript"), codeBox(data),
    el("h3", {}, "References faced"), referenceTable(data),
  );
  document.getElementById("detail-body").replaceChildren(...[left, right, revisionChain(data)].filter(Boolean));
}

async function show(at) {
  position = (at + items.length) % items.length;
  const item = items[position];
  const data = await getJSON(`/api/steps/${item.step}/rollouts/${item.index}`);
  if (item !== items[position]) return; // the keys moved on while this one loaded
  render(data);
  if (!dialog.open) dialog.showModal();
}

export function openDetail(list, item) {
  items = list;
  return show(list.findIndex((other) => other.step === item.step && other.index === item.index));
}

document.getElementById("detail-prev").addEventListener("click", () => show(position - 1));
document.getElementById("detail-next").addEventListener("click", () => show(position + 1));
document.getElementById("detail-close").addEventListener("click", () => dialog.close());
document.addEventListener("keydown", (event) => {
  if (!dialog.open) return;
  if (event.key === "ArrowLeft") show(position - 1);
  if (event.key === "ArrowRight") show(position + 1);
});
