// Multi-table tournaments on the page: the lobby's list and the operator's form that creates
// one; a tournament's page (every table, the standings, the players left, the average stack,
// the level and the hands or time to the next, the payouts; registering; the operator's
// start, pause, resume, cancel and bots, the operator token typed in and never stored); and
// at a player's table the tournament bar: where they were moved and why, their rebuy and
// add-on buttons while on sale. The player's seat token is the one registration gave: the
// director moves their seat with it, so the table page follows them without a new join.

import { $, fetchJson } from "./dom.js";
import { cell, ordinal, stakesText } from "./rooms.js";

const STATUS = { registering: "Registering", running: "Running", finished: "Finished",
  cancelled: "Cancelled: every entry refunded" };
const WHY = { break: "your table broke", balance: "the tables were balanced" };

let hooks = null;   // table.js's: seat(), setSeat(seat), follow(table, seat, why), route()
let shown = null;   // the id of the tournament whose page is on screen
let latest = null;  // the newest tournament page fetched (the shown one or the player's)
let elsewhere = null;  // the table the player's bar last found them at, not yet followed

const request = (path, { body, token } = {}) =>
  fetchJson(path, { method: body === undefined ? "GET" : "POST", body, token });

const api = (id, tail = "") => `/api/tournaments/${encodeURIComponent(id)}${tail}`;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A tournament table's number, from its id ("sun-3" of tournament "sun": 3). */
export function tableNumber(mtt, table) {
  return table && table.startsWith(`${mtt}-`) ? table.slice(mtt.length + 1) : table;
}

// ---- the lobby ---------------------------------------------------------------------------
export function renderLobbyTournaments(list) {
  $("lobby-tournaments").tBodies[0].replaceChildren(...list.map((t) => {
    const row = document.createElement("tr");
    row.dataset.tournament = t.id;
    const link = document.createElement("a");
    link.href = `#t/${encodeURIComponent(t.id)}`;
    link.textContent = t.name;
    cell(row, "").append(link);
    cell(row, t.game);
    cell(row, `${t.status}${t.paused ? " (paused)" : ""}`);
    cell(row, t.players_left === null ? String(t.entrants) : `${t.entrants} (${t.players_left} left)`);
    cell(row, String(t.tables));
    cell(row, t.status === "registering" ? "" : String(t.level));
    cell(row, String(t.prize_pool));
    return row;
  }));
}

export async function loadLobbyTournaments() {
  renderLobbyTournaments(await request("/api/tournaments"));
}

function split(text, by = ",") {
  return text.split(by).map((part) => part.trim()).filter(Boolean);
}

function createBody() {
  const value = (id) => $(id).value.trim();
  const number = (id) => Number(value(id));
  const pair = (id) => split(value(id), "/").map(Number);
  const [rebuyPrice, rebuyChips] = pair("mc-rebuy");
  const [addonPrice, addonChips] = pair("mc-addon");
  const settings = {
    levels: split(value("mc-levels")).map((level) => {
      const [ante, bring_in, small_bet] = split(level, "/").map(Number);
      return { ante, bring_in, small_bet };
    }),
    every: number("mc-every"),
    unit: value("mc-unit"),
    payouts: split(value("mc-payouts")).map((p) => Math.round(Number(p) * 100)),  // basis points
    buy_in: number("mc-buy-in"),
    seats: number("mc-seats"),
    starting_stack: number("mc-stack"),
    min_entrants: number("mc-min"),
    late_levels: number("mc-late"),
    rebuy_levels: number("mc-rebuy-levels"),
    rebuy_price: rebuyPrice,
    rebuy_chips: rebuyChips,
    breaks: split(value("mc-breaks")).map(Number),
    addon_price: addonPrice,
    addon_chips: addonChips,
    break_seconds: number("mc-break-seconds"),
  };
  if (value("mc-addon-break")) settings.addon_break = number("mc-addon-break");
  const body = {
    id: value("mc-id"), name: value("mc-name") || value("mc-id"), game: value("mc-game"), settings,
    verifiable: $("mc-verifiable").checked,  // every table's deals: tickets and players' entropy
  };
  if (value("mc-seed")) body.seed = value("mc-seed");
  return body;
}

// ---- a tournament's page -----------------------------------------------------------------
function nextText(t) {
  if (t.status !== "running") return "";
  const next = t.next_level;
  if (!next) return "This is the last level.";
  // next.level counts levels from 0: it is the index of the level after this one
  const stakes = stakesText(t.settings.levels[next.level]);
  const when = next.in_hands !== undefined
    ? (next.in_hands <= 0 ? "from the next hand" : `in ${plural(next.in_hands, "hand")}`)
    : `in about ${Math.floor(next.in_seconds / 60)} min ${Math.round(next.in_seconds % 60)} s`;
  return `Next: level ${next.level + 1} (${stakes}) ${when}.`;
}

function renderPage(t, me) {
  const seat = hooks.seat();
  const mine = seat && seat.mtt === t.id ? seat : null;
  $("mtt").dataset.status = t.status;
  $("mtt").dataset.prizePool = t.prize_pool;
  $("mtt-title").textContent = `${t.name}: ${t.game}`;
  $("mtt-status").textContent = STATUS[t.status] + (t.paused ? " (paused by the operator)" : "")
    + (t.at_break !== null && t.status === "running" ? `: a break after level ${t.at_break}` : "")
    + (t.hand_for_hand ? ": hand-for-hand" : "");
  $("mtt-level").textContent = `Level ${t.level} of ${t.settings.levels.length}: ${stakesText(t.stakes)}`;
  $("mtt-next").textContent = nextText(t);
  $("mtt-field").textContent = t.status === "registering"
    ? `${plural(t.entrants, "entrant")}; it starts with ${t.settings.min_entrants} or more.`
    : `${t.players_left} of ${plural(t.entrants, "player")} left, average stack ${t.average_stack}, `
      + `${plural(t.tables.length, "table")}.`;
  $("mtt-pool").textContent = `Prize pool ${t.prize_pool}: `
    + t.payouts.map((prize, i) => `${ordinal(i + 1)} ${prize}`).join(", ") + ".";
  $("mtt-tables").tBodies[0].replaceChildren(...t.tables.map((table) => {
    const row = document.createElement("tr");
    row.dataset.table = table.table;
    cell(row, `Table ${table.number}${mine && mine.table === table.table ? " (yours)" : ""}`);
    cell(row, String(table.hand));
    cell(row, table.players.map((p) => `${p.name} ${p.chips}`).join(", "));
    return row;
  }));
  $("mtt-standings").tBodies[0].replaceChildren(...t.standings.map((s) => {
    const row = document.createElement("tr");
    row.dataset.player = s.player;
    row.classList.toggle("out", s.place !== null && t.status !== "finished");
    cell(row, s.place === null ? "in" : ordinal(s.place));
    cell(row, s.name);
    cell(row, String(s.chips));
    cell(row, s.table ? tableNumber(t.id, s.table) : "");
    cell(row, [s.rebuys ? plural(s.rebuys, "rebuy") : "", s.addon ? "add-on" : ""].filter(Boolean).join(", "));
    cell(row, s.prize === null ? "" : String(s.prize));
    return row;
  }));
  renderYou(t, mine, me);
}

function renderYou(t, mine, me) {
  const open = t.status === "registering" || (t.status === "running" && t.level <= t.settings.late_levels);
  $("mtt-register").hidden = !!mine || !open;
  $("mtt-to-table").hidden = !(mine && mine.table);
  let text = "";
  if (mine && me) {
    text = `You are registered as ${me.name}.`;
    if (me.place) text = `You finished ${ordinal(me.place)}, ${me.name}.`;
    else if (me.table) text += ` You sit at table ${tableNumber(t.id, me.table)}, seat ${me.seat}.`;
    else if (t.status === "registering") text += " Your table opens here when the tournament starts.";
    else if (t.status === "cancelled") text += " The tournament was cancelled: your entry is refunded.";
  } else if (!open) {
    text = t.status === "registering" ? "" : "Registration is closed.";
  }
  $("mtt-you-text").textContent = text;
}

async function refreshPage() {
  if (!shown) return;
  const id = shown;
  const t = await request(api(id));
  const seat = hooks.seat();
  let me = null;
  if (seat && seat.mtt === id) {
    me = await request(api(id, "/me"), { token: seat.token });
    if (me.table && !seat.table) {
      hooks.follow(me.table, me.seat, null);  // it has started: to the table
      return;
    }
  }
  if (shown === id) {
    latest = t;
    renderPage(t, me);
  }
}

export function showTournament(id) {
  const seat = hooks.seat();
  $("mtt").hidden = false;
  $("mtt-back").textContent = seat && seat.table ? "Back to my table" : "Back to the lobby";
  if (shown !== id) {
    shown = id;
    $("mtt-error").textContent = "";
    $("mtt-operator-result").textContent = "";
    $("mtt-tables").tBodies[0].replaceChildren();
    $("mtt-standings").tBodies[0].replaceChildren();
  }
  refreshPage().catch((error) => { $("mtt-error").textContent = error.message; });
}

export function closeTournament() {
  shown = null;
  $("mtt").hidden = true;
}

async function register(event) {
  event.preventDefault();
  $("mtt-error").textContent = "";
  const id = shown;
  try {
    const answer = await request(api(id, "/register"), { body: { name: $("mtt-name").value } });
    hooks.setSeat({ mtt: id, player: answer.player, token: answer.token, name: $("mtt-name").value.trim(),
      table: null, seat: null });
    await refreshPage();
  } catch (error) {
    $("mtt-error").textContent = error.message;
  }
}

async function operate(verb) {
  const result = $("mtt-operator-result");
  result.textContent = "";
  try {
    const answer = await request(api(shown, `/${verb}`), { body: {}, token: $("mo-token").value });
    const done = { start: `Started: ${answer.seated} players seated.`, pause: "Paused after the hands in play.",
      resume: "Resumed.", cancel: "Cancelled: every entry refunded." }[verb];
    result.textContent = done;
    await refreshPage();
  } catch (error) {
    result.textContent = `Not done: ${error.message}`;
  }
}

async function addBots() {
  const result = $("mtt-operator-result");
  const kind = $("mo-bot-kind").value;
  const taken = new Set((latest ? latest.standings : []).map((s) => s.name.toLowerCase()));
  let added = 0;
  let n = 1;
  try {
    while (added < Number($("mo-bots").value)) {
      const name = `${kind[0].toUpperCase()}${kind.slice(1)} bot ${n++}`;
      if (taken.has(name.toLowerCase())) continue;
      await request(api(shown, "/bots"), { body: { name, bot: kind }, token: $("mo-token").value });
      added += 1;
    }
    result.textContent = `${plural(added, "bot")} registered.`;
  } catch (error) {
    result.textContent = `${plural(added, "bot")} registered, then: ${error.message}`;
  }
  await refreshPage().catch(() => {});
}

// ---- at the player's table ---------------------------------------------------------------
/** The table page is a tournament player's: the bar shows; leaving and bots are not theirs. */
export function renderBar(seat) {
  const inTournament = !!(seat && seat.mtt);
  $("mtt-bar").hidden = !inTournament;
  if (!inTournament) return;
  $("leave").hidden = true;
  $("add-bot").hidden = true;
  $("mtt-link").href = `#t/${encodeURIComponent(seat.mtt)}`;
}

/** Tells the player they moved (the push, or their page finding them elsewhere). */
export function announceMove(seat, why) {
  const reason = WHY[why] ? `: ${WHY[why]}` : "";
  $("mtt-moved").textContent =
    `You moved to table ${tableNumber(seat.mtt, seat.table)}, seat ${seat.seat}${reason}. Your chips came with you.`;
  $("table").dataset.moves = Number($("table").dataset.moves || 0) + 1;
}

async function refreshBar(seat) {
  const [t, me] = await Promise.all([request(api(seat.mtt)), request(api(seat.mtt, "/me"), { token: seat.token })]);
  latest = t;
  // the push moves the page; this is the fallback, when a second look finds it not moved
  if (me.table && me.table !== seat.table) {
    if (elsewhere === me.table) hooks.follow(me.table, me.seat, me.moved ? me.moved.why : null);
    elsewhere = me.table;
    return;
  }
  elsewhere = null;
  $("mtt-bar-heading").textContent = `${t.name}: ${STATUS[t.status].toLowerCase()}`;
  $("mtt-bar-text").textContent = `Level ${t.level}; ${t.players_left} of ${t.entrants} players left, `
    + `average stack ${t.average_stack}; prize pool ${t.prize_pool}.`
    + (t.at_break !== null && t.status === "running" ? ` A break after level ${t.at_break}.` : "");
  $("mtt-bar").dataset.prizePool = t.prize_pool;
  const s = t.settings;
  $("rebuy").hidden = !me.can_rebuy;
  $("rebuy").textContent = `Rebuy: ${s.rebuy_chips} chips for ${s.rebuy_price}`;
  $("addon").hidden = !me.can_addon;
  $("addon").textContent = `Add-on: ${s.addon_chips} chips for ${s.addon_price}`;
}

async function buy(what) {
  const seat = hooks.seat();
  $("mtt-buy-result").textContent = "";
  try {
    const answer = await request(api(seat.mtt, `/${what}`), { body: {}, token: seat.token });
    $("mtt-buy-result").textContent = `${what === "rebuy" ? "Rebought" : "Added on"}: your stack is ${answer.stack}.`;
    await refreshBar(seat);
  } catch (error) {
    $("mtt-buy-result").textContent = error.message;
  }
}

// ---- wiring ------------------------------------------------------------------------------
export function setupTournaments(tableHooks) {
  hooks = tableHooks;
  $("mtt-register").addEventListener("submit", register);
  $("mtt-to-table").addEventListener("click", () => { location.hash = ""; });
  for (const button of $("mtt-operator").querySelectorAll("button[data-verb]")) {
    button.addEventListener("click", () => operate(button.dataset.verb));
  }
  $("mo-add-bots").addEventListener("click", addBots);
  $("rebuy").addEventListener("click", () => buy("rebuy"));
  $("addon").addEventListener("click", () => buy("addon"));
  $("mtt-create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = $("mtt-create-result");
    result.textContent = "";
    try {
      const answer = await request("/api/tournaments", { body: createBody(), token: $("mc-token").value });
      result.textContent = `Created tournament ${answer.id}.`;
      await loadLobbyTournaments();
    } catch (error) {
      result.textContent = `Not created: ${error.message}`;
    }
  });
  // the shown page and the player's bar follow the tournament, once a second
  setInterval(async () => {
    try {
      const seat = hooks.seat();
      if (shown) await refreshPage();
      else if (seat && seat.mtt && seat.table && !$("table").hidden) await refreshBar(seat);
    } catch {
      // offline for a moment: the next round tries again
    }
  }, 1000);
}
