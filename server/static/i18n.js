// User-facing text: Portuguese first, English available. t("key", {vars}).
"use strict";

const TEXT = {
  pt: {
    title: "Sueca", target: "Partida a {n}", wins: "Vitória: {team}!", leading: "{team} à frente",
    level: "Empatados", connected: "ao vivo", reconnecting: "a ligar…", trump: "Trunfo", dealer: "Dá",
    turn: "Vez de {name}", trick: "Vaza {n}/10", trick_won: "Vaza {n} para {name} ({p} pontos)",
    points: "Pontos", tricks: "Vazas", riscos: "Riscos", hand: "Mão", hands: "Mãos", hand_count: "{n} mão", hands_count: "{n} mãos", outcome: "Resultado",
    no_hand: "À espera do trunfo da próxima mão", hand_over: "Mão terminada", bonus: "Bónus de empate pendente: +{n}",
    history: "Histórico das mãos", camera: "Câmara", cam_on: "câmara ligada", cam_off: "câmara desligada",
    fps: "{n} imagens/s", slow: "lento de mais: jogadas podem ficar para o árbitro confirmar", model: "modelo", last_error: "último erro", no_frame: "Sem imagem da câmara",
    rules: "Regras", renuncia: "RENÚNCIA!", renuncia_text: "{name} ({team}) não assistiu a {suit} na vaza {trick}",
    proof: "prova: {card} na vaza {proof}", offence: "Vaza {n}: jogou {card}", proof_snap: "A prova: {card}",
    no_snapshot: "sem fotografia", pending: "Por decidir pelo árbitro", confirmed: "Confirmada: +4 riscos para {team}",
    applied: "Penalização: +4 riscos para {team}", proven: "Provada", dismissed: "Anulada",
    confirm: "Confirmar", dismiss: "Anular", uncertain: "Jogada incerta: {card} de {name} ({p}%) — a confirmar",
    mismatch: "A câmara viu {seen} jogar {card} na vez de {expected}", rejected: "Recusado: {card} — {reason}", weakRead: "? (leitura fraca: {card})", unreadable: "ninguém a conseguiu ler: o árbitro indica a carta", unseen: "ninguém viu a carta de {player} ser jogada: o árbitro indica-a",
    held: "Carta ilegível jogada aos {t} s: {n} jogada(s) à espera. Indique-a em «Jogada manual» para continuar.",
    oc_in_progress: "a decorrer", oc_tie: "empate", oc_points: "pontos", oc_capote: "capote", oc_pente: "pente",
    oc_renuncia: "renúncia", matches: "Partidas", export_json: "JSON", export_csv: "CSV", live: "ao vivo",
    referee: "Árbitro", close: "Fechar", token: "Senha do árbitro", save: "Guardar", token_ok: "Senha aceite ({who})",
    token_bad: "Senha errada", new_match: "Nova partida", names: "Nomes", players: "Jogadores", teams: "Equipas",
    variants: "Variantes", new_hand: "Nova mão", set_dealer: "Corrigir quem dá", set_trump: "Corrigir trunfo",
    plays: "Jogadas desta mão", add_play: "Jogada manual", undo: "Desfazer última jogada", seat: "Lugar",
    insert_play: "Inserir antes da escolhida", remove_play: "Apagar a escolhida",
    card_size: "Cartas na imagem: cerca de {px} px de altura.",
    card_small: "Cartas na imagem: cerca de {px} px de altura — pequenas de mais para ler bem (feito para cerca de 100 px): baixe a câmara ou aumente a resolução.",
    card: "Carta", correct: "Corrigir", calibration: "Calibração (arraste os pontos)", import: "Importar registo",
    done: "Feito", error: "Erro", center: "centro", no_matches: "Ainda sem partidas", team0: "Nós", team1: "Eles",
    created: "Início", events: "eventos", nobody: "ninguém", waiting: "à espera",
    suit_S: "espadas", suit_H: "copas", suit_D: "ouros", suit_C: "paus",
    rank_A: "Ás", rank_7: "Manilha", rank_K: "Rei", rank_J: "Valete", rank_Q: "Dama",
    r_target: "alvo", r_capote: "capote", r_tie: "empate", r_first_lead: "primeira saída", r_renuncia: "renúncia",
    r_forced_trump: "obrigação de trunfar", r_pente: "pente", r_rolha: "rolha", r_ten_for_seven: "10 em vez do 7",
    v_all_tricks: "todas as vazas", v_points_120: "120 pontos", v_nothing: "não conta", v_next_hand_bonus: "bónus na seguinte",
    v_right_of_dealer: "à direita de quem dá", v_cutter: "quem cortou", v_auto: "automática", v_claim: "reclamada",
    v_true: "sim", v_false: "não", title_field: "Título", referee_name: "O seu nome (fica no registo)", log: "registo", view: "ver", fullscreen: "Ecrã inteiro", standard: "regras habituais",
  },
  en: {
    title: "Sueca", target: "Match to {n}", wins: "{team} won the match!", leading: "{team} ahead",
    level: "Level", connected: "live", reconnecting: "connecting…", trump: "Trump", dealer: "Deals",
    turn: "{name} to play", trick: "Trick {n}/10", trick_won: "Trick {n} to {name} ({p} points)",
    points: "Points", tricks: "Tricks", riscos: "Riscos", hand: "Hand", hands: "Hands", hand_count: "{n} hand", hands_count: "{n} hands", outcome: "Result",
    no_hand: "Waiting for the next hand's trump", hand_over: "Hand over", bonus: "Tie bonus pending: +{n}",
    history: "Hand history", camera: "Camera", cam_on: "camera connected", cam_off: "camera disconnected",
    fps: "{n} fps", slow: "too slow: plays may be left for the referee to confirm", model: "model", last_error: "last error", no_frame: "No camera picture",
    rules: "Rules", renuncia: "RENÚNCIA!", renuncia_text: "Revoke: {name} ({team}) did not follow {suit} in trick {trick}",
    proof: "proof: the {card} in trick {proof}", offence: "Trick {n}: played {card}", proof_snap: "The proof: {card}",
    no_snapshot: "no snapshot", pending: "Awaiting the referee", confirmed: "Confirmed: +4 riscos to {team}",
    applied: "Penalty: +4 riscos to {team}", proven: "Proven", dismissed: "Dismissed",
    confirm: "Confirm", dismiss: "Dismiss", uncertain: "Uncertain play: {card} by {name} ({p}%) — to confirm",
    mismatch: "The camera saw {seen} play {card} on {expected}'s turn", rejected: "Refused: {card} — {reason}", weakRead: "? (weak reading: {card})", unreadable: "nobody could read it: the referee names the card", unseen: "nobody saw {player}'s card played: the referee names it",
    held: "Unreadable card played at {t} s: {n} play(s) waiting. Enter it under “Manual play” to go on.",
    oc_in_progress: "in progress", oc_tie: "tie", oc_points: "points", oc_capote: "capote", oc_pente: "pente",
    oc_renuncia: "revoke", matches: "Matches", export_json: "JSON", export_csv: "CSV", live: "live",
    referee: "Referee", close: "Close", token: "Referee token", save: "Save", token_ok: "Token accepted ({who})",
    token_bad: "Wrong token", new_match: "New match", names: "Names", players: "Players", teams: "Teams",
    variants: "Variants", new_hand: "New hand", set_dealer: "Correct the dealer", set_trump: "Correct the trump",
    plays: "Plays of this hand", add_play: "Manual play", undo: "Undo last play", seat: "Seat",
    insert_play: "Insert before the chosen one", remove_play: "Delete the chosen one",
    card_size: "Cards in the picture: about {px} px tall.",
    card_small: "Cards in the picture: about {px} px tall — too small to read well (made for about 100 px): lower the camera or raise its resolution.",
    card: "Card", correct: "Correct", calibration: "Calibration (drag the points)", import: "Import a record",
    done: "Done", error: "Error", center: "centre", no_matches: "No matches yet", team0: "Us", team1: "Them",
    created: "Started", events: "events", nobody: "nobody", waiting: "waiting",
    suit_S: "spades", suit_H: "hearts", suit_D: "diamonds", suit_C: "clubs",
    rank_A: "Ace", rank_7: "Seven", rank_K: "King", rank_J: "Jack", rank_Q: "Queen",
    r_target: "target", r_capote: "capote", r_tie: "tie", r_first_lead: "first lead", r_renuncia: "revoke",
    r_forced_trump: "must trump", r_pente: "pente", r_rolha: "rolha", r_ten_for_seven: "10 instead of 7",
    v_all_tricks: "all tricks", v_points_120: "120 points", v_nothing: "does not count", v_next_hand_bonus: "bonus next hand",
    v_right_of_dealer: "right of dealer", v_cutter: "the cutter", v_auto: "automatic", v_claim: "claimed",
    v_true: "yes", v_false: "no", title_field: "Title", referee_name: "Your name (logged)", log: "log", view: "view", fullscreen: "Full screen", standard: "standard rules",
  },
};

const I18N = {
  // Portuguese unless this browser chose English (or the URL says ?lang=en)
  lang: (new URLSearchParams(location.search).get("lang") || localStorage.getItem("sueca.lang")) === "en" ? "en" : "pt",
  t(key, vars = {}) {
    const s = (TEXT[I18N.lang][key] ?? TEXT.pt[key] ?? key);
    return s.replace(/\{(\w+)\}/g, (_, k) => (vars[k] ?? ""));
  },
  set(lang) { I18N.lang = lang === "en" ? "en" : "pt"; localStorage.setItem("sueca.lang", I18N.lang); },
  cardName(code) {
    const c = window.Cards.parseCard(code);
    if (!c) return code || "?";
    const rank = TEXT[I18N.lang]["rank_" + c.rank] || c.rank;
    const suit = I18N.t("suit_" + c.suit);
    return I18N.lang === "pt" ? `${rank} de ${suit}` : `${rank} of ${suit}`;
  },
};
window.I18N = I18N;
