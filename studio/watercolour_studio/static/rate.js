// Grading one painting at a time: 1 love, 2 okay, 3 meh, 4 nope, u undo, g grid. Every grade is saved
// by the server before the page moves on; actions run in order, so fast typing loses nothing.
import { el, getJSON } from "./dom.js";

const main = document.getElementById("view");
let state = null;
let picked = null; // a painting chosen in the grid, graded out of turn
let queue = Promise.resolve();

const mode = () => (location.hash === "#grid" ? "grid" : "one");
const post = (url, body) => getJSON(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });

function current() {
  return state.paintings.find((p) => p.file_name === picked) ?? state.paintings.find((p) => !p.tier) ?? null;
}

function progress() {
  const total = state.paintings.length;
  document.getElementById("folder").textContent = state.folder;
  document.getElementById("progress-bar").style.width = `${total ? (100 * state.graded) / total : 0}%`;
  const counts = state.tiers.map((tier) => `${state.counts[tier]} ${tier}`).join(" · ");
  document.getElementById("progress").textContent = `${state.graded} of ${total} graded · ${counts}`;
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("active", link.dataset.mode === mode());
}

function gradeButtons(painting) {
  return el("div", { class: "grades" }, state.tiers.map((tier, i) =>
    el("button", { class: `tier-${tier}${painting.tier === tier ? " chosen" : ""}`, "data-tier": tier, onclick: () => act(() => grade(tier)) },
      tier, el("kbd", {}, String(i + 1)))));
}

function single() {
  const painting = current();
  if (!painting) {
    return el("div", { class: "done", id: "all-graded" }, el("h2", {}, `All ${state.paintings.length} paintings are graded.`),
      el("p", { class: "muted" }, "Pack them as a pool with ", el("code", {}, "watercolour pool pack"), ", or press g to look them over."));
  }
  const undo = el("button", { id: "undo", disabled: !state.can_undo, onclick: () => act(undoLast) }, "Undo ", el("kbd", {}, "u"));
  const about = el("div", { class: "about" }, el("p", {}, el("b", {}, painting.subject)), el("p", {}, painting.generator), el("p", {}, painting.file_name),
    painting.tier ? el("p", {}, "graded ", el("b", {}, painting.tier)) : null);
  const hint = el("p", { class: "hint" }, "Keys: ", el("kbd", {}, "1"), "–", el("kbd", {}, "4"), " grade · ", el("kbd", {}, "u"), " undo · ",
    el("kbd", {}, "g"), " grid. Every grade is saved at once.");
  const image = el("img", { id: "painting", src: painting.image, alt: painting.file_name, "data-file": painting.file_name });
  return el("div", { class: "rate" }, el("figure", {}, image), el("div", {}, about, gradeButtons(painting), undo, hint));
}

function grid() {
  return el("div", { class: "thumbs", id: "thumbs" }, state.paintings.map((p) =>
    el("button", { class: `thumb tier-${p.tier}`, "data-file": p.file_name, onclick: () => { picked = p.file_name; location.hash = "#one"; } },
      el("img", { src: p.image, loading: "lazy", alt: p.file_name }),
      el("span", { class: `badge${p.tier ? "" : " ungraded"}` }, p.tier ?? "ungraded"))));
}

function show() {
  progress();
  main.replaceChildren(mode() === "grid" ? grid() : single());
  main.dataset.graded = state.graded;
}

async function grade(tier) {
  const painting = current();
  if (!painting) return;
  state = await post("/api/grade", { file_name: painting.file_name, tier });
  picked = null;
}

async function undoLast() {
  const answer = await post("/api/undo");
  state = answer;
  picked = answer.undone;
}

function act(action) {
  queue = queue.then(action).then(show).catch((error) => main.prepend(el("p", { class: "tag" }, String(error))));
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey && event.key === "z") return act(undoLast);
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const tier = state?.tiers[Number(event.key) - 1];
  if (tier && mode() === "one") act(() => grade(tier));
  if (event.key === "u") act(undoLast);
  if (event.key === "g") location.hash = mode() === "grid" ? "#one" : "#grid";
});
window.addEventListener("hashchange", show);
act(async () => { state = await getJSON("/api/state"); });
