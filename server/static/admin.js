// The referee's drawer: every action is one API call with the admin token; the
// page then redraws from the state the server pushes (the record is the truth).
"use strict";

const Admin = {
  token: localStorage.getItem("sueca.token") || "",
  async api(method, path, body) {
    const headers = { "Content-Type": "application/json", Authorization: "Bearer " + Admin.token };
    const name = (localStorage.getItem("sueca.referee") || "").trim();
    if (name) headers["X-Referee"] = encodeURIComponent(name);  // logged with every correction
    const r = await fetch(path, { method, headers,
      body: body === undefined ? undefined : JSON.stringify(body) });
    let data = null;
    try { data = await r.json(); } catch (e) { /* empty body */ }
    if (!r.ok) {
      const d = data && data.detail;
      throw new Error(typeof d === "string" ? d : Array.isArray(d) ? d.map((x) => `${(x.loc || []).join(".")}: ${x.msg}`).join("; ") : r.statusText);
    }
    return data;
  },
  say(el, text, good) { el.textContent = text; el.className = "msg " + (good ? "good" : "bad"); },
};

// a token in the URL fragment (the link `sueca demo` prints) is kept and wiped from the address bar
(function takeTokenFromHash() {
  const m = /token=([^&]+)/.exec(location.hash);
  if (m) { Admin.token = decodeURIComponent(m[1]); localStorage.setItem("sueca.token", Admin.token); history.replaceState(null, "", location.pathname + location.search); }
})();

async function checkToken() {
  const msg = document.querySelector("#token-msg");
  if (!Admin.token) { App.isAdmin = false; return; }
  try {
    const r = await Admin.api("GET", "/api/admin/check");
    App.isAdmin = true; Admin.say(msg, t("token_ok", { who: r.who }), true);
  } catch (e) { App.isAdmin = false; Admin.say(msg, t("token_bad"), false); }
  if (App.state) render(App.state);
}

const VARIANTS = { target: [4, 3, 5, 7, 10], capote: ["all_tricks", "points_120"], tie: ["nothing", "next_hand_bonus"],
  first_lead: ["right_of_dealer", "cutter"], renuncia: ["auto", "claim"], forced_trump: [false, true], pente: [false, true],
  rolha: [false, true], ten_for_seven: [false, true] };
const seatOptions = (s) => [0, 1, 2, 3].map((i) => `<option value="${i}">${i} · ${esc(player(s, i))}</option>`).join("");
const mid = () => App.state.match.id;

function buildAdmin() {
  const s = App.state;
  const rules = Object.entries(VARIANTS).map(([k, vals]) => `<label>${esc(t("r_" + k))}
    <select name="${k}">${vals.map((v) => `<option value="${v}" ${String(s.rules[k]) === String(v) ? "selected" : ""}>${esc(typeof v === "number" ? v : t("v_" + v))}</option>`).join("")}</select></label>`).join(" ");
  document.querySelector("#admin-body").innerHTML = `
  <div class="row"><label>${esc(t("referee_name"))} <input id="referee-name" maxlength="40" value="${esc(localStorage.getItem("sueca.referee") || "")}"></label></div>
  <fieldset><legend>${esc(t("variants"))}</legend><form id="f-rules" class="row">${rules}
    <label>${esc(t("title_field"))} <input name="title" maxlength="80" value="${esc(s.match.title)}"></label>
    <button name="apply">${esc(t("save"))}</button><button name="new" class="danger">${esc(t("new_match"))}</button>
    <span class="msg"></span></form></fieldset>
  <fieldset><legend>${esc(t("names"))}</legend><form id="f-names">
    <div class="row">${[0, 1, 2, 3].map((i) => `<input name="p${i}" maxlength="40" value="${esc(s.players[i])}" aria-label="${t("seat")} ${i}">`).join("")}</div>
    <div class="row">${[0, 1].map((i) => `<input name="t${i}" maxlength="40" value="${esc(s.teams[i])}">`).join("")}
    <button>${esc(t("save"))}</button><span class="msg"></span></div></form></fieldset>
  <fieldset><legend>${esc(t("hand"))}</legend><form id="f-hand" class="row">
    <label>${esc(t("dealer"))} <select name="dealer">${seatOptions(s)}</select></label>
    <label>${esc(t("trump"))} <input name="trump" class="card-in" maxlength="3" placeholder="5H" pattern="(A|[2-9]|10|J|Q|K)[SHDCshdc]"></label>
    <button name="b-new">${esc(t("new_hand"))}</button><button name="b-dealer">${esc(t("set_dealer"))}</button>
    <button name="b-trump">${esc(t("set_trump"))}</button><span class="msg"></span></form></fieldset>
  <fieldset><legend>${esc(t("plays"))}</legend><div id="a-plays" class="plays"></div>
    <form id="f-play" class="row"><input name="index" type="hidden">
      <label>${esc(t("card"))} <input name="card" class="card-in" maxlength="3"></label>
      <label>${esc(t("seat"))} <select name="seat"><option value="">—</option>${seatOptions(s)}</select></label>
      <button name="correct">${esc(t("correct"))}</button><button name="confirm" class="ok">${esc(t("confirm"))}</button>
      <button name="add">${esc(t("add_play"))}</button><button name="insert">${esc(t("insert_play"))}</button>
      <button name="remove" class="danger">${esc(t("remove_play"))}</button><button name="undo" class="danger">${esc(t("undo"))}</button>
      <span class="msg"></span></form></fieldset>
  <fieldset><legend>${esc(t("calibration"))}</legend><div class="cam-wrap" id="calib-wrap"><img id="calib-img" alt="">
    <svg id="calib-svg" class="calib" preserveAspectRatio="none"></svg></div>
    <p id="calib-size" class="msg" hidden></p>
    <div class="row"><button id="calib-save">${esc(t("save"))}</button><span id="calib-msg" class="msg"></span></div></fieldset>
  <fieldset><legend>${esc(t("import"))}</legend><div class="row"><input id="import-file" type="file" accept=".json,application/json">
    <span id="import-msg" class="msg"></span></div></fieldset>`;
  wireAdmin();
  updateAdmin(s);
  loadCalibration();
}

function updateAdmin(s) {
  const box = document.querySelector("#a-plays");
  if (!box || document.querySelector("#admin").hidden) return;
  const h = s.hand;
  box.innerHTML = h ? h.play_list.map((p) => `<button type="button" data-pick="${p.index}" class="${p.uncertain ? "unc" : ""}">${p.index + 1}. ${esc(p.card)} · ${p.seat}</button>`).join("") : "";
  const f = document.querySelector("#f-hand");
  if (h && !f.dataset.touched) { f.dealer.value = h.dealer; f.trump.value = h.trump_card; }
}

function run(form, fn) {
  const msg = form.querySelector(".msg");
  return fn().then(() => Admin.say(msg, t("done"), true)).catch((e) => Admin.say(msg, `${t("error")}: ${e.message}`, false));
}

function wireAdmin() {
  document.querySelector("#referee-name").addEventListener("change", (ev) => localStorage.setItem("sueca.referee", ev.target.value.trim()));
  const fr = document.querySelector("#f-rules");
  fr.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const rules = {};
    for (const k of Object.keys(VARIANTS)) { const v = fr[k].value; rules[k] = k === "target" ? Number(v) : v === "true" ? true : v === "false" ? false : v; }
    if (ev.submitter && ev.submitter.name === "new") run(fr, () => Admin.api("POST", "/api/matches", { title: fr.title.value, rules }));
    else run(fr, () => Admin.api("PUT", `/api/matches/${mid()}/rules`, rules).then(() => Admin.api("PUT", `/api/matches/${mid()}/title`, { title: fr.title.value })));
  });
  const fn = document.querySelector("#f-names");
  fn.addEventListener("submit", (ev) => { ev.preventDefault();
    run(fn, () => Admin.api("PUT", `/api/matches/${mid()}/names`, { players: [0, 1, 2, 3].map((i) => fn["p" + i].value), teams: [fn.t0.value, fn.t1.value] })); });
  const fh = document.querySelector("#f-hand");
  fh.addEventListener("input", () => { fh.dataset.touched = "1"; });
  fh.addEventListener("submit", (ev) => {
    ev.preventDefault(); delete fh.dataset.touched;
    const what = ev.submitter ? ev.submitter.name.slice(2) : "new", h = App.state.hand, trump = fh.trump.value.toUpperCase(), dealer = Number(fh.dealer.value);
    if (what === "new") run(fh, () => Admin.api("POST", `/api/matches/${mid()}/hands`, { dealer, trump_card: trump }));
    else if (what === "dealer") run(fh, () => Admin.api("PUT", `/api/matches/${mid()}/hands/${h.index}/dealer`, { dealer }));
    else run(fh, () => Admin.api("PUT", `/api/matches/${mid()}/hands/${h.index}/trump`, { trump_card: trump }));
  });
  const fp = document.querySelector("#f-play");
  document.querySelector("#a-plays").addEventListener("click", (ev) => {
    const b = ev.target.closest("[data-pick]"); if (!b) return;
    const p = App.state.hand.play_list[Number(b.dataset.pick)];
    fp.index.value = p.index; fp.card.value = p.card; fp.seat.value = p.seat;
  });
  fp.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const what = ev.submitter ? ev.submitter.name : "add", h = App.state.hand, card = fp.card.value.toUpperCase();
    const seat = fp.seat.value === "" ? undefined : Number(fp.seat.value);
    if (what === "undo") return run(fp, () => Admin.api("POST", `/api/matches/${mid()}/undo`));
    if (what === "add") return run(fp, () => Admin.api("POST", `/api/matches/${mid()}/plays`, { card, seat }));
    const base = `/api/matches/${mid()}/hands/${h.index}/plays/${fp.index.value}`;
    if (what === "confirm") return run(fp, () => Admin.api("POST", base + "/confirm", card ? { card } : {}));
    if (what === "insert") return run(fp, () => Admin.api("POST", base + "/insert", { card, seat }));
    if (what === "remove") return run(fp, () => Admin.api("DELETE", base));
    return run(fp, () => Admin.api("PATCH", base, { card: card || undefined, seat }));
  });
  document.querySelector("#calib-save").addEventListener("click", saveCalibration);
  document.querySelector("#import-file").addEventListener("change", async (ev) => {
    const msg = document.querySelector("#import-msg"), file = ev.target.files[0];
    if (!file) return;
    try { const record = JSON.parse(await file.text()); const r = await Admin.api("POST", "/api/matches/import", { record, title: file.name.slice(0, 80) });
      Admin.say(msg, `${t("done")}: #${r.id}`, true); } catch (e) { Admin.say(msg, `${t("error")}: ${e.message}`, false); }
  });
}

// -- calibration: drag the centre and the four seat points on a camera snapshot -------
const Calib = { cal: null, drag: null };
async function loadCalibration() {
  const meta = App.cameraMeta, img = document.querySelector("#calib-img");
  const size = meta && meta.available ? meta.size : [640, 480];
  let cal = null;
  try { cal = await (await fetch("/api/calibration")).json(); } catch (e) { cal = null; }
  if (!cal) { const [w, h] = size; cal = { image_size: size, center: [w / 2, h / 2], seats: [[w / 2, h * 0.92], [w * 0.92, h / 2], [w / 2, h * 0.08], [w * 0.08, h / 2]] }; }
  Calib.cal = cal;
  showCardSize(document.querySelector("#calib-size"), meta);
  img.src = "/api/camera.jpg?calib=" + Date.now();
  document.querySelector("#calib-wrap").style.aspectRatio = `${cal.image_size[0]} / ${cal.image_size[1]}`;
  drawCalibration();
  const svg = document.querySelector("#calib-svg");
  svg.onpointerdown = (ev) => { const c = ev.target.closest("[data-pt]"); if (c) { Calib.drag = c.dataset.pt; svg.setPointerCapture(ev.pointerId); } };
  svg.onpointermove = (ev) => {
    if (!Calib.drag) return;
    const r = svg.getBoundingClientRect(), [w, h] = Calib.cal.image_size;
    const p = [Math.round(Math.min(w, Math.max(0, (ev.clientX - r.left) / r.width * w))), Math.round(Math.min(h, Math.max(0, (ev.clientY - r.top) / r.height * h)))];
    if (Calib.drag === "c") Calib.cal.center = p; else Calib.cal.seats[Number(Calib.drag)] = p;
    drawCalibration();
  };
  svg.onpointerup = () => { Calib.drag = null; };
}
function drawCalibration() {
  const { image_size: [w, h], center, seats } = Calib.cal, svg = document.querySelector("#calib-svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const r = Math.max(w, h) / 45;
  svg.innerHTML = seats.map((p, i) => `<line x1="${center[0]}" y1="${center[1]}" x2="${p[0]}" y2="${p[1]}" stroke="#ffd54f" stroke-width="${r / 4}"/>`).join("") +
    [["c", center, t("center")], ...seats.map((p, i) => [String(i), p, `${i} ${player(App.state, i)}`])].map(([k, p, label]) =>
      `<g data-pt="${k}"><circle cx="${p[0]}" cy="${p[1]}" r="${r}"/><text x="${p[0] + r * 1.3}" y="${p[1] - r}">${esc(label)}</text></g>`).join("");
}
async function saveCalibration() {
  const msg = document.querySelector("#calib-msg");
  try { await Admin.api("PUT", "/api/calibration", Calib.cal); Admin.say(msg, t("done"), true); }
  catch (e) { Admin.say(msg, `${t("error")}: ${e.message}`, false); }
}

// -- buttons on the page itself (banner, notices) --------------------------------
document.addEventListener("click", (ev) => {
  const d = ev.target.closest("[data-decide]");
  if (d) Admin.api("POST", `/api/matches/${mid()}/renuncias`, { hand: Number(d.dataset.hand), seat: Number(d.dataset.seat), trick: Number(d.dataset.trick), confirm: d.dataset.decide === "1" }).catch((e) => alert(e.message));
  const c = ev.target.closest("[data-confirm-play]");
  if (c) { const [h, i] = c.dataset.confirmPlay.split(":"); Admin.api("POST", `/api/matches/${mid()}/hands/${h}/plays/${i}/confirm`, {}).catch((e) => alert(e.message)); }
});
document.querySelector("#open-admin").addEventListener("click", () => {
  const a = document.querySelector("#admin"); a.hidden = !a.hidden;
  document.querySelector("#token").value = Admin.token;
  if (!a.hidden && App.state) buildAdmin();
});
document.querySelector("#close-admin").addEventListener("click", () => { document.querySelector("#admin").hidden = true; });
document.querySelector("#token-form").addEventListener("submit", (ev) => {
  ev.preventDefault(); Admin.token = document.querySelector("#token").value.trim();
  localStorage.setItem("sueca.token", Admin.token); checkToken();
});
App.listeners.push(updateAdmin);
checkToken();
