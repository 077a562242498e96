// The live dashboard: one EventSource, the whole state on every message, drawn from scratch.
"use strict";

const $ = (sel) => document.querySelector(sel);
const t = (k, v) => I18N.t(k, v);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const App = { state: null, es: null, lastMessage: 0, listeners: [] };
window.App = App;

// -- connection: EventSource reconnects by itself; we also re-open it when a
// sleeping phone wakes up or when the stream has been silent too long.
function connect() {
  if (App.es) App.es.close();
  const es = new EventSource("/api/stream");
  App.es = es;
  es.addEventListener("state", (ev) => {
    App.lastMessage = Date.now();
    setConn(true);
    const s = JSON.parse(ev.data);
    s.received_at = performance.now();
    render(s);
  });
  es.onopen = () => { App.lastMessage = Date.now(); setConn(true); };
  es.onerror = () => { setConn(false); if (es.readyState === EventSource.CLOSED) setTimeout(connect, 1000); };
}
function setConn(on) {
  $("#conn").className = "conn " + (on ? "on" : "off");
  $("#conn-text").textContent = t(on ? "connected" : "reconnecting");
}
document.addEventListener("visibilitychange", () => {
  if (!pastMatch && document.visibilityState === "visible" && (!App.es || App.es.readyState !== EventSource.OPEN || Date.now() - App.lastMessage > 20000)) connect();
});
// the server pings every 15 s; a silent stream is a dead one (a phone's socket that slept)
setInterval(() => { if (!pastMatch && App.es && Date.now() - App.lastMessage > 35000) connect(); }, 5000);

// -- helpers ------------------------------------------------------------
const player = (s, seat) => (s.players && s.players[seat]) || `${t("seat")} ${seat}`;
const teamName = (s, team) => (s.teams && s.teams[team]) || t("team" + team);
const suitName = (code) => t("suit_" + code);

function render(s) {
  App.state = s;
  document.documentElement.lang = I18N.lang;
  document.querySelectorAll("[data-t]").forEach((el) => { el.textContent = t(el.dataset.t); });
  document.querySelectorAll("[data-ph]").forEach((el) => { el.placeholder = t(el.dataset.ph); });
  document.querySelectorAll(".lang button").forEach((b) => b.classList.toggle("on", b.dataset.lang === I18N.lang));
  $("#match-title").textContent = s.match && s.match.title ? "· " + s.match.title : "";
  renderScore(s); renderTable(s); renderInfo(s); renderHistory(s); renderBanner(s); renderNotices(s); renderStatus(s);
  showCardSize($("#cam-size"), App.cameraMeta);
  for (const fn of App.listeners) fn(s);
}

// -- score cross: as on paper, a stroke per risco ----------------------------
function renderScore(s) {
  $("#target").textContent = t("target", { n: s.target });
  const v = $("#verdict");
  if (s.winner !== null && s.winner !== undefined) { v.textContent = t("wins", { team: teamName(s, s.winner) }); v.className = "win"; }
  else { v.textContent = s.leading === null ? t("level") : t("leading", { team: teamName(s, s.leading) }); v.className = ""; }
  const rows = Math.ceil(Math.max(s.target, s.riscos[0], s.riscos[1]) / 5);
  const W = 400, cx = 200, cy = 120, H = cy + 24 + rows * 62;
  let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(teamName(s, 0))} ${s.riscos[0]} – ${esc(teamName(s, 1))} ${s.riscos[1]}">`;
  svg += `<path class="line" d="M${cx} 12 C${cx - 2} 110 ${cx + 3} 200 ${cx} ${H - 10}"/>`;
  svg += `<path class="line" d="M18 ${cy} C120 ${cy + 3} 280 ${cy - 3} ${W - 18} ${cy + 1}"/>`;
  for (const team of [0, 1]) {
    const x0 = team === 0 ? 20 : cx + 20, mid = team === 0 ? cx / 2 : cx + cx / 2;
    svg += `<text class="name" x="${mid}" y="30" text-anchor="middle">${esc(teamName(s, team).slice(0, 14))}</text>`;
    svg += `<text class="num t${team}" x="${mid}" y="${cy - 14}" text-anchor="middle">${s.riscos[team]}</text>`;
    const n = Math.max(0, s.riscos[team]), slots = Math.max(s.target, n);
    const per = 5, gapX = 26, rowH = 62;
    for (let i = 0; i < slots; i++) {
      const row = Math.floor(i / per), col = i % per;
      const x = x0 + 30 + col * gapX + row * 6, y = cy + 16 + row * rowH;
      const wob = ((i * 37 + team * 11) % 7) - 3;  // a hand-drawn wobble, the same on every screen
      if (i < n) svg += `<path class="mark t${team}" d="M${x + wob * 0.3} ${y} L${x - wob * 0.5 + 4} ${y + 46}"/>`;
      else svg += `<circle class="slotdot" cx="${x + 2}" cy="${y + 40}" r="4"/>`;
    }
  }
  svg += "</svg>";
  $("#cross").innerHTML = svg;
  const b = $("#bonus");
  b.hidden = !s.pending_bonus;
  b.textContent = s.pending_bonus ? t("bonus", { n: s.pending_bonus }) : "";
}

// -- the table ---------------------------------------------------------------
function renderTable(s) {
  const h = s.hand;
  for (let seat = 0; seat < 4; seat++) {
    const el = document.querySelector(`.seat[data-seat="${seat}"]`);
    el.className = `seat s${seat} team${seat % 2}` + (h && h.turn === seat ? " turn" : "");
    el.innerHTML = esc(player(s, seat)) + (h && h.dealer === seat ? `<span class="chip" title="${t("dealer")}">${I18N.lang === "pt" ? "D" : "D"}</span>` : "");
    const slot = document.querySelector(`.slot[data-slot="${seat}"]`);
    const play = h && h.trick.plays.find((p) => p.seat === seat);
    const key = play ? `${h.index}:${play.index}:${play.card}:${play.uncertain}` : "";
    if (slot.dataset.key !== key) {
      slot.dataset.key = key;
      slot.innerHTML = play ? Cards.cardSVG(play.card, { uncertain: play.uncertain, title: I18N.cardName(play.card) }) : "";
    }
    slot.classList.toggle("winner", !!(h && h.trick.complete && h.trick.winner === seat));
  }
  const tc = $("#trump-card");
  if (h && !h.trump_card_played && !h.over) {
    tc.className = `trump-card d${h.dealer}`;
    if (tc.dataset.key !== h.trump_card) { tc.dataset.key = h.trump_card; tc.innerHTML = Cards.cardSVG(h.trump_card, { title: t("trump") }); }
  } else { tc.className = "trump-card"; tc.innerHTML = ""; tc.dataset.key = ""; }
  $("#watermark").innerHTML = h ? Cards.suitSVG(h.trump) : "";
  const c = $("#centre");
  if (!h) c.textContent = t("no_hand");
  else if (h.over) c.textContent = t("hand_over");
  else if (h.trick.complete) c.textContent = t("trick_won", { n: h.trick.number + 1, name: player(s, h.trick.winner), p: h.trick.points });
  else c.textContent = t("trick", { n: h.tricks_done + 1 });
}

function renderInfo(s) {
  const h = s.hand;
  $("#trump-suit").innerHTML = h ? Cards.cardSVG(h.trump_card) + `<span>${esc(suitName(h.trump))}<small>${esc(I18N.cardName(h.trump_card))} · ${esc(t("dealer"))}: ${esc(player(s, h.dealer))}</small></span>` : "—";
  $("#turn-line").textContent = !h ? t("no_hand") : h.over ? t("hand_over") : h.turn !== null ? t("turn", { name: player(s, h.turn) }) : "";
  $("#th-team0").textContent = teamName(s, 0); $("#th-team1").textContent = teamName(s, 1);
  const pts = h ? h.points : [0, 0], trk = h ? h.tricks_won : [0, 0];
  $("#pts0").textContent = pts[0]; $("#pts1").textContent = pts[1];
  $("#trk0").textContent = trk[0]; $("#trk1").textContent = trk[1];
  $("#bar0").style.width = (pts[0] / 120 * 100) + "%"; $("#bar1").style.width = (pts[1] / 120 * 100) + "%";
  // the variants that differ from rules.md's defaults, in one line; all of them when opened
  const defaults = { capote: "all_tricks", tie: "nothing", first_lead: "right_of_dealer", renuncia: "auto",
    forced_trump: false, pente: false, rolha: false, ten_for_seven: false };
  const changed = Object.entries(s.rules || {}).filter(([k, v]) => k in defaults && defaults[k] !== v)
    .map(([k, v]) => typeof v === "boolean" ? t("r_" + k) : `${t("r_" + k)} ${t("v_" + v)}`);
  $("#rules-short").textContent = [t("target", { n: s.target })].concat(changed.length ? changed : [t("standard")]).join(" · ");
  $("#rules").innerHTML = Object.entries(s.rules || {}).map(([k, v]) =>
    `<li>${esc(t("r_" + k))}: <b>${esc(typeof v === "number" ? v : t("v_" + v))}</b></li>`).join("");
}

function outcomeTag(h) {
  const cls = h.outcome === "renuncia" ? "renuncia" : h.outcome === "capote" ? "capote" : h.outcome === "tie" ? "tie" : "";
  return `<span class="tag ${cls}">${esc(t("oc_" + h.outcome))}</span>` + (h.bonus ? ` <span class="tag">+${h.bonus}</span>` : "");
}

function renderHistory(s) {
  $("#history").innerHTML = s.history.slice().reverse().map((h) => `<tr class="${h.complete ? "" : "live"}">
    <td>${h.index + 1}</td><td title="${esc(player(s, h.dealer))}">${Cards.suitSVG(h.trump_card.slice(-1))}</td>
    <td><span class="t0">${h.points[0]}</span> – <span class="t1">${h.points[1]}</span></td>
    <td><span class="t0">${h.tricks_won[0]}</span> – <span class="t1">${h.tricks_won[1]}</span></td>
    <td><span class="t0">${h.riscos[0]}</span> – <span class="t1">${h.riscos[1]}</span></td>
    <td>${outcomeTag(h)}</td></tr>`).join("");
}

// -- the renúncia banner ---------------------------------------------------------
function renderBanner(s) {
  const list = (s.renuncias || []).filter((r) => r.status !== "dismissed");
  const el = $("#banner");
  if (!list.length) { el.hidden = true; el.innerHTML = ""; el.dataset.key = ""; return; }
  const key = JSON.stringify(list) + I18N.lang + (App.isAdmin ? 1 : 0);
  el.hidden = false;
  if (el.dataset.key === key) return;
  el.dataset.key = key;
  el.innerHTML = list.map((r) => {
    const team = teamName(s, r.seat % 2), other = teamName(s, 1 - (r.seat % 2));
    const status = r.status === "pending" ? t("pending") : r.status === "confirmed" ? t("confirmed", { team: other })
      : r.status === "applied" ? t("applied", { team: other }) : t(r.status);
    const fig = (url, cap) => `<figure>${url ? `<img src="${url}" alt="${esc(cap)}">` : `<div class="none">${esc(t("no_snapshot"))}</div>`}<figcaption>${esc(cap)}</figcaption></figure>`;
    const actions = r.status === "pending" && App.isAdmin ? `<div class="actions">
      <button class="ok" data-decide="1" data-hand="${r.hand}" data-seat="${r.seat}" data-trick="${r.trick}">${esc(t("confirm"))}</button>
      <button class="danger" data-decide="0" data-hand="${r.hand}" data-seat="${r.seat}" data-trick="${r.trick}">${esc(t("dismiss"))}</button></div>` : "";
    return `<div class="renuncia" data-seat="${r.seat}" data-trick="${r.trick}"><div class="text"><h1>${esc(t("renuncia"))}</h1>
      <div class="what">${esc(t("renuncia_text", { name: player(s, r.seat), team, suit: suitName(r.led_suit), trick: r.trick + 1 }))}
      — ${esc(t("proof", { card: I18N.cardName(r.proof_card), proof: r.proven_at_trick + 1 }))}.</div>
      <div class="status">${esc(status)}</div>${actions}</div>
      <div class="snaps">${fig(r.snapshots[0], t("offence", { n: r.trick + 1, card: I18N.cardName(r.offence_card) }))}${fig(r.snapshots[1], t("proof_snap", { card: I18N.cardName(r.proof_card) }))}</div></div>`;
  }).join("");
}

// why the camera's play was refused, in the page's language where the server says which case it is
function refusedWhy(s, r) {
  if (r.why === "unreadable") return t("unreadable");
  if (r.why === "unseen") return t("unseen", { player: player(s, r.seat) });
  return r.reason || "";
}

function renderNotices(s) {
  const out = [];
  // the table sees the "?" on the card itself; the list with its buttons is the referee's
  if (App.isAdmin) for (const u of s.uncertain || []) out.push(`<div class="notice">${Cards.cardSVG(u.card, { uncertain: true })}
    <span>${esc(t("uncertain", { card: I18N.cardName(u.card), name: player(s, u.seat), p: Math.round((u.confidence || 0) * 100) }))}</span>
    <button class="ok" data-confirm-play="${u.hand}:${u.index}">${esc(t("confirm"))}</button></div>`);
  for (const m of s.mismatches || []) out.push(`<div class="notice">${esc(t("mismatch", { seen: player(s, m.seen), expected: player(s, m.expected), card: I18N.cardName(m.card) }))}</div>`);
  // what the engine refused from the camera: the referee's business, not the café's
  const held = (s.status || {}).held || 0;
  if (App.isAdmin && held) out.push(`<div class="notice bad held">${esc(t("held", { n: held, t: Math.round((s.status.held_t || 0) * 10) / 10 }))}</div>`);
  if (App.isAdmin) for (const r of (s.rejected || []).slice(-2)) out.push(`<div class="notice bad">${esc(t("rejected", { card: r.card || (r.hint ? t("weakRead", { card: I18N.cardName(r.hint) }) : "?"), reason: refusedWhy(s, r) }))}</div>`);
  $("#notices").innerHTML = out.join("");
}

function renderStatus(s) {
  const st = s.status || {};
  const parts = [`<b>${esc(t(st.connected ? "cam_on" : "cam_off"))}</b>`, esc(t("fps", { n: st.fps || 0 }))];
  // the camera read at fewer frames a second than the referee needs (MIN_LIVE_FPS)
  if (st.slow) parts.push(`<span class="err slow">${esc(t("slow"))}</span>`);
  if (st.model) parts.push(`${esc(t("model"))}: ${esc(st.model)}`);
  if (st.last_error) parts.push(`<span class="err">${esc(t("last_error"))}: ${esc(st.last_error)}</span>`);
  $("#status-line").innerHTML = parts.join(" · ");
}

// -- camera view: a JPEG a few times a second, detections drawn over it -------------
// polled only while the camera panel is on screen: a café full of phones must not
// keep the Pi busy encoding pictures nobody looks at
let cameraOnScreen = true;
new IntersectionObserver((entries) => { cameraOnScreen = entries.some((e) => e.isIntersecting); })
  .observe(document.querySelector("#cam-wrap"));
// how large the cards show, as the recognizer reads them: a camera mounted too high is told
function showCardSize(el, meta) {
  if (!el) return;
  el.hidden = !(meta && meta.card_read_px);
  if (el.hidden) return;
  el.textContent = t(meta.small_cards ? "card_small" : "card_size", { px: Math.round(meta.card_read_px) });
  el.classList.toggle("bad", !!meta.small_cards);
}

async function pollCamera() {
  try {
    const visible = document.visibilityState === "visible" && cameraOnScreen;
    const meta = visible ? await (await fetch("/api/camera", { cache: "no-store" })).json() : { available: false };
    if (meta.available && (!App.cameraMeta || App.cameraMeta.index !== meta.index)) {
      const img = $("#cam-img");
      await new Promise((ok) => { img.onload = ok; img.onerror = ok; img.src = "/api/camera.jpg?f=" + meta.index; });
      $("#cam-empty").hidden = true;
      const [w, h] = meta.size, ov = $("#cam-overlay");
      ov.setAttribute("viewBox", `0 0 ${w} ${h}`);
      $("#cam-wrap").style.aspectRatio = `${w} / ${h}`;
      ov.querySelector(".dets")?.remove();
      const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
      g.setAttribute("class", "dets");
      g.innerHTML = meta.detections.map((d) => { const [x1, y1, x2, y2] = d.box;
        return `<rect x="${x1}" y="${y1}" width="${x2 - x1}" height="${y2 - y1}"/><text x="${x1}" y="${y1 - 4}">${esc(d.card)} ${Math.round(d.confidence * 100)}%</text>`; }).join("");
      ov.prepend(g);
      App.cameraMeta = meta;
      showCardSize($("#cam-size"), meta);
    }
  } catch (e) { /* the next poll retries */ }
  setTimeout(pollCamera, document.visibilityState === "visible" && cameraOnScreen ? 300 : 1500);
}

async function loadMatches() {
  try {
    const list = await (await fetch("/api/matches?limit=12")).json();
    $("#matches").innerHTML = list.length ? list.map((m) => `<li><span>#${m.id} ${esc(m.title)} ${m.live ? `<span class="live-tag">● ${esc(t("live"))}</span>` : ""}
      <br><small>${new Date(m.created * 1000).toLocaleString(I18N.lang)} · ${esc(t(m.hands === 1 ? "hand_count" : "hands_count", { n: m.hands }))} ·
      ${esc(m.teams[0])} ${m.riscos[0]} – ${m.riscos[1]} ${esc(m.teams[1])}</small></span>
      <span><a href="/api/matches/${m.id}/record.json" download>${t("export_json")}</a><a href="/api/matches/${m.id}/record.csv" download>${t("export_csv")}</a><a href="/api/matches/${m.id}/events" target="_blank">${esc(t("log"))}</a>${m.live ? "" : `<a href="/?match=${m.id}">${esc(t("view"))}</a>`}</span></li>`).join("")
      : `<li>${esc(t("no_matches"))}</li>`;
  } catch (e) { /* offline: keep the old list */ }
}

// a TV shows the page full screen; a phone left on the table keeps its screen on while watching
$("#fullscreen").addEventListener("click", () => {
  if (document.fullscreenElement) document.exitFullscreen(); else document.documentElement.requestFullscreen?.();
});
if (!document.documentElement.requestFullscreen) $("#fullscreen").hidden = true;
let wakeLock = null;
async function keepAwake() {
  try { if (document.visibilityState === "visible" && navigator.wakeLock && !wakeLock) {
    wakeLock = await navigator.wakeLock.request("screen"); wakeLock.addEventListener("release", () => { wakeLock = null; }); } }
  catch (e) { /* not allowed here (no HTTPS, battery saver): the phone may sleep, the page re-syncs */ }
}
document.addEventListener("visibilitychange", keepAwake);
keepAwake();

document.querySelectorAll(".lang button").forEach((b) => b.addEventListener("click", () => {
  I18N.set(b.dataset.lang); if (App.state) render(App.state); loadMatches();
}));
// ?match=N shows a past match (read-only, refreshed now and then) instead of the live one
const pastMatch = new URLSearchParams(location.search).get("match");
async function showPast() {
  try { const r = await fetch(`/api/matches/${encodeURIComponent(pastMatch)}`); if (r.ok) { setConn(true); render(await r.json()); } }
  catch (e) { setConn(false); }
  setTimeout(showPast, 5000);
}
if (pastMatch) showPast(); else connect();
pollCamera();
loadMatches();
setInterval(loadMatches, 15000);
