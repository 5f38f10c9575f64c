// The report's row table: every row of every task from the JSON in #report-data, filtered,
// sorted (worst first) and drawn a page at a time as it scrolls into view. Text from the run
// only ever reaches the page through textContent: an answer is data, never markup.
(function () {
  "use strict";
  var started = performance.now();
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var parsed = performance.now();
  DATA.rows.forEach(function (r, n) { r.n = n; });
  // what rows open to (full texts, prompts, verdicts) sits in a second element after this code,
  // read once the page has it, on the first row opened or the first search
  var DETAILS = null;
  function details() {
    if (DETAILS === null && document.readyState !== "loading") {
      DETAILS = JSON.parse(document.getElementById("report-details").textContent);
    }
    return DETAILS;
  }
  function full(r) { var d = details(); return d ? d[r.n] : r; }
  var PAGE = 150;
  var ATTRS = [];
  DATA.tasks.forEach(function (t) { t.attrs.forEach(function (a) { if (ATTRS.indexOf(a) < 0) ATTRS.push(a); }); });
  var state = {id: null, task: "", status: "", why: "", think: false, cut: false, flips: false, imperfect: false, q: "", attrs: {},
               sort: "worst", up: true};
  var shown = [], drawn = 0;
  var root = document.getElementById("explorer");

  function el(tag, props, children) {
    var node = document.createElement(tag);
    if (props) for (var k in props) {
      if (k === "text") node.textContent = props[k];
      else if (k === "cls") node.className = props[k];
      else node.setAttribute(k, props[k]);
    }
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }
  function taskOf(r) { return DATA.tasks[r.t]; }
  function fmt(v) { return v === null || v === undefined ? "—" : (+v).toFixed(4); }
  function clip(s, n) { s = (s || "").replace(/\s+/g, " "); return s.length > n ? s.slice(0, n) + "…" : s; }
  function attrText(r) { var out = []; for (var k in r.a) out.push(r.a[k]); return out.join(" · "); }

  // --- controls --------------------------------------------------------------------------------
  var controls = el("div", {id: "controls"});
  function select(name, label, options) {
    var s = el("select", {"data-filter": name});
    s.appendChild(el("option", {value: "", text: "all"}));
    options.forEach(function (o) { s.appendChild(el("option", {value: o[0], text: o[1]})); });
    s.addEventListener("change", function () {
      if (name.indexOf("attr:") === 0) state.attrs[name.slice(5)] = s.value; else state[name] = s.value;
      if (name === "task") refreshOptions();
      apply();
    });
    controls.appendChild(el("label", {text: label + " "}, [s]));
    return s;
  }
  function check(name, label) {
    var c = el("input", {type: "checkbox", "data-filter": name});
    c.addEventListener("change", function () { state[name] = c.checked; apply(); });
    controls.appendChild(el("label", {}, [c, document.createTextNode(" " + label)]));
  }
  var taskSelect = select("task", "task", DATA.tasks.map(function (t, n) { return [String(n), t.title]; }));
  select("status", "status", [["ok", "answered"], ["error", "failed"], ["unasked", "not asked"]]);
  var attrSelects = {};
  ATTRS.forEach(function (a) { attrSelects[a] = select("attr:" + a, a, []); });
  var whySelect = select("why", "why", []);
  check("imperfect", "below full marks");
  check("think", "has <think>");
  check("cut", "cut by the token limit");
  if (DATA.rows.some(function (r) { return r.fl !== undefined; })) check("flips", "verdict changes between askings");
  var search = el("input", {type: "search", placeholder: "id or text in answer / reference"});
  search.addEventListener("input", function () {
    state.q = search.value.toLowerCase(); state.id = null; details(); apply();
  });
  controls.appendChild(search);
  var counter = el("span", {cls: "muted"});
  controls.appendChild(counter);

  function refreshOptions() {
    var pool = DATA.rows.filter(function (r) { return state.task === "" || String(r.t) === state.task; });
    ATTRS.forEach(function (a) {
      var seen = {};
      pool.forEach(function (r) { if (r.a[a] !== undefined) seen[r.a[a]] = (seen[r.a[a]] || 0) + 1; });
      fill(attrSelects[a], Object.keys(seen).sort());
      attrSelects[a].parentNode.style.display = Object.keys(seen).length ? "" : "none";
      state.attrs[a] = attrSelects[a].value;
    });
    var why = {};
    pool.forEach(function (r) { r.f.forEach(function (f) { why[f] = (why[f] || 0) + 1; }); });
    fill(whySelect, Object.keys(why).sort(function (x, y) { return why[y] - why[x]; }), why);
    state.why = whySelect.value;
  }
  function fill(s, values, counts) {
    var keep = s.value;
    while (s.options.length > 1) s.remove(1);
    values.forEach(function (v) {
      s.appendChild(el("option", {value: v, text: counts ? v + " (" + counts[v] + ")" : v}));
    });
    s.value = values.indexOf(keep) >= 0 ? keep : "";
  }

  // --- table -----------------------------------------------------------------------------------
  var COLUMNS = [["task", "task", "7.5rem"], ["i", "id", "3.5rem"], ["s", "status", "4rem"], ["v", "score", "4.5rem"],
                 ["a", "attributes", "12rem"], ["f", "why", "10rem"], ["k", "think", "3rem"],
                 ["c", "cut", "2.5rem"], ["o", "answer", ""], ["r", "reference", ""]];
  var table = el("table", {cls: "rows"});
  var headRow = el("tr");
  COLUMNS.forEach(function (c) {
    var th = el("th", {text: c[1], "data-sort": c[0], cls: c[0] === "v" || c[0] === "i" ? "num" : ""});
    if (c[2]) th.style.width = c[2];
    th.addEventListener("click", function () {
      if (state.sort === c[0]) state.up = !state.up; else { state.sort = c[0]; state.up = true; }
      apply();
    });
    headRow.appendChild(th);
  });
  table.appendChild(el("thead", {}, [headRow]));
  var body = el("tbody");
  table.appendChild(body);
  var more = el("button", {id: "more", type: "button"});
  more.addEventListener("click", function () { draw(PAGE); });

  function worst(a, b) {  // failed requests, then the lowest scores; rows never asked last
    var ua = a.s === "unasked", ub = b.s === "unasked";
    if (ua !== ub) return ua ? 1 : -1;
    var sa = a.s === "ok", sb = b.s === "ok";
    if (sa !== sb) return sa ? 1 : -1;
    var na = a.v === null, nb = b.v === null;
    if (na !== nb) return na ? 1 : -1;
    if (a.v !== b.v) return a.v - b.v;
    return a.t - b.t || a.i - b.i;
  }
  function value(r, key) {
    if (key === "task") return taskOf(r).title;
    if (key === "a") return attrText(r);
    if (key === "f") return r.f.join(", ");
    if (key === "o" || key === "r") return r[key] || "";
    if (key === "k" || key === "c") return r[key] ? 1 : 0;
    return r[key];
  }
  function compare(key) {
    if (key === "worst") return worst;
    return function (a, b) {
      var x = value(a, key), y = value(b, key);
      if (x === y) return worst(a, b);
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return x < y ? -1 : 1;
    };
  }
  function matches(r) {
    if (state.task !== "" && String(r.t) !== state.task) return false;
    if (state.id !== null && String(r.i) !== state.id) return false;
    if (state.status && r.s !== state.status) return false;
    if (state.why && r.f.indexOf(state.why) < 0) return false;
    if (state.think && !r.k) return false;
    if (state.cut && !r.c) return false;
    if (state.flips && !r.fl) return false;
    if (state.imperfect && !(r.s !== "ok" || (r.v !== null && r.v < 1))) return false;
    for (var a in state.attrs) if (state.attrs[a] && r.a[a] !== state.attrs[a]) return false;
    if (state.q) {
      var q = state.q;
      var f = full(r);
      if (String(r.i) !== q && (f.o || "").toLowerCase().indexOf(q) < 0 && (f.r || "").toLowerCase().indexOf(q) < 0) return false;
    }
    return true;
  }
  function apply() {
    shown = DATA.rows.filter(matches);
    var cmp = compare(state.sort), sign = state.up ? 1 : -1;
    shown.sort(function (a, b) { return sign * cmp(a, b); });
    headRow.querySelectorAll("th").forEach(function (th) {
      var on = th.getAttribute("data-sort") === state.sort;
      th.classList.toggle("sorted", on);
      th.classList.toggle("up", on && !state.up);
    });
    body.textContent = "";
    drawn = 0;
    draw(PAGE);
    counter.textContent = shown.length.toLocaleString() + " of " + DATA.rows.length.toLocaleString() + " rows" +
      (state.sort === "worst" ? ", worst first" : "");
  }
  function draw(count) {
    var frag = document.createDocumentFragment();
    var end = Math.min(shown.length, drawn + count);
    for (var n = drawn; n < end; n++) frag.appendChild(line(shown[n]));
    body.appendChild(frag);
    drawn = end;
    more.style.display = drawn < shown.length ? "" : "none";
    more.textContent = "show " + Math.min(PAGE, shown.length - drawn) + " more (" + (shown.length - drawn) + " left)";
  }
  function line(r) {
    var tr = el("tr", {cls: "row"});
    var status = {ok: "ok", error: "failed", unasked: "not asked"}[r.s];
    [taskOf(r).title, String(r.i), status, fmt(r.v), attrText(r), r.f.join(", "), r.k ? "yes" : "", r.c ? "yes" : "",
     clip(r.o === null ? r.e : r.o, 160), clip(r.r, 160)].forEach(function (text, n) {
      var td = el("td", {text: text, cls: n === 1 || n === 3 ? "num" : (n === 2 && r.s !== "ok" ? "err" : "")});
      td.title = text;
      tr.appendChild(td);
    });
    tr.addEventListener("click", function () { toggle(tr, r); });
    return tr;
  }
  function toggle(tr, r) {
    if (details() === null) {  // the page is still reading the details: open the row once it has them
      document.addEventListener("DOMContentLoaded", function () { toggle(tr, r); });
      return;
    }
    var next = tr.nextSibling;
    if (next && next.classList.contains("detailrow")) { next.remove(); tr.classList.remove("open"); return; }
    tr.classList.add("open");
    var td = el("td", {cls: "detail", colspan: String(COLUMNS.length)}, detail(r, full(r)));
    tr.parentNode.insertBefore(el("tr", {cls: "detailrow"}, [td]), tr.nextSibling);
  }
  function block(title, text) {
    return el("div", {}, [el("h4", {text: title}), el("pre", {text: text === null || text === undefined ? "—" : text})]);
  }
  function askings(t, draws) {  // a row asked in several draws (--repeats, --wordings all): each one's verdict
    var at = el("table", {cls: "verdicts"});
    at.appendChild(el("tr", {}, ["repeat", "wording", t.score || "score", "answer"].map(function (h) {
      return el("th", {text: h});
    })));
    draws.forEach(function (a) {
      at.appendChild(el("tr", {}, [el("td", {text: String(a[0])}), el("td", {text: a[1] === null ? "own" : String(a[1])}),
                                   el("td", {text: fmt(a[2]), cls: a[2] === null ? "na" : a[2] >= 1 ? "ok" : "bad"}),
                                   el("td", {text: clip(a[3], 200)})]));
    });
    return el("div", {}, [el("h4", {text: "each asking of this row (the answer shown above is the first)"}), at]);
  }
  function detail(r, d) {
    var t = taskOf(r), parts = [];
    var head = t.title + " row " + r.i + " · " + {ok: "answered", error: "failed", unasked: "not asked"}[r.s] +
      (t.score && r.v !== null ? " · " + t.score + " " + fmt(r.v) : "");
    parts.push(el("div", {}, [el("b", {text: head})]));
    if (d.e) parts.push(el("div", {cls: "err", text: "error: " + d.e}));
    if (d.src !== undefined) parts.push(block("source (the text to correct)", d.src));
    parts.push(el("div", {cls: "pair"}, [block("reference", d.r === null ? "(not in the data read)" : d.r),
                                          block("answer (raw)", d.o)]));
    if (d.x !== null && d.x !== undefined) parts.push(block("scored text (what the scorer read)", d.x));
    if (d.tc) parts.push(block("the tool-calling conversation (--tool-mode native; the answer above is the envelope " +
                               "it maps to)", d.tc));
    if (d.tv) {
      var passed = d.tv.v === null || d.tv.v === undefined ? "not scored" : d.tv.v >= 1 ? "passed" : "failed";
      parts.push(el("div", {}, [el("h4", {text: "the text-protocol run's answer to this row (" + passed + ")"}),
                                el("pre", {text: d.tv.o === null ? "—" : d.tv.o}),
                                el("a", {href: d.tv.href, text: "open it in the text run's report"})]));
    }
    if (d.dr) parts.push(askings(t, d.dr));
    if (d.d.length) {
      var vt = el("table", {cls: "verdicts"});
      d.d.forEach(function (v) {
        var help = DATA.help, why = help[v[2]] || v[2] || help[v[0]] || help[v[0].split(":")[0]] || "";
        var mark = v[1] === true ? "✓" : v[1] === false ? "✗" : "·";
        vt.appendChild(el("tr", {}, [el("td", {text: mark, cls: v[1] === true ? "ok" : v[1] === false ? "bad" : "na"}),
                                     el("td", {text: v[0]}), el("td", {text: why, cls: "muted"})]));
      });
      parts.push(el("h4", {text: "verdicts"}), vt);
    }
    var metrics = [];
    d.m.forEach(function (value, n) {
      if (value !== null) metrics.push(el("span", {cls: "pill", text: t.metrics[n] + " " + fmt(value)}));
    });
    if (metrics.length) parts.push(el("h4", {text: "metrics of this row"}), el("div", {}, metrics));
    if (d.p) parts.push(el("details", {}, [el("summary", {text: "prompt"}), el("pre", {text: d.p})]));
    else if (d.short && d.short.indexOf("p") >= 0) {
      parts.push(el("div", {cls: "muted", text: "prompt left out to keep the page small: the samples file holds it"}));
    } else parts.push(el("div", {cls: "muted", text: DATA.scoring ? "no prompt: a score folder holds saved answers, "
                                                   + "not the requests that made them" :
                                                   "prompt not logged (run with --log-prompts to keep it)"}));
    if (d.short) parts.push(el("div", {cls: "muted", text: "shortened to keep the page small (" + d.short.join(", ") +
                                                      "): the samples file holds them whole"}));
    return parts;
  }

  root.textContent = "";
  if (DATA.note) root.appendChild(el("div", {cls: "muted", text: DATA.note}));
  root.appendChild(controls);
  root.appendChild(table);
  root.appendChild(more);
  if ("IntersectionObserver" in window) {
    new IntersectionObserver(function (seen) {
      if (seen[0].isIntersecting && drawn < shown.length) draw(PAGE);
    }, {rootMargin: "600px"}).observe(more);
  }
  document.querySelectorAll("a.rowlink").forEach(function (a) {
    a.addEventListener("click", function () {
      var n = DATA.tasks.findIndex(function (t) { return t.name === a.getAttribute("data-task"); });
      taskSelect.value = String(n); state.task = taskSelect.value; refreshOptions(); apply();
    });
  });
  // report.html#row=TASK/ID opens that row (a link to one row can be shared)
  function openFromHash() {
    var m = /^#row=([^/]+)\/(-?\d+)$/.exec(location.hash);
    if (!m) return;
    var n = DATA.tasks.findIndex(function (t) { return t.name === decodeURIComponent(m[1]); });
    if (n < 0) return;
    taskSelect.value = String(n); state.task = taskSelect.value; state.id = m[2];
    refreshOptions(); apply();
    var tr = body.querySelector("tr.row");
    var r = shown.find(function (x) { return String(x.i) === m[2]; });
    if (tr && r) { toggle(tr, r); tr.scrollIntoView(); }
  }
  refreshOptions();
  apply();
  openFromHash();
  window.addEventListener("hashchange", openFromHash);
  // when the page was usable, from navigation start (benchmarks/report_scale.py reads these)
  var root_ = document.documentElement;
  root_.setAttribute("data-script-start-ms", String(Math.round(started)));
  root_.setAttribute("data-json-parsed-ms", String(Math.round(parsed)));
  root_.setAttribute("data-rows-ready-ms", String(Math.round(performance.now())));
  document.addEventListener("DOMContentLoaded", function () {
    root_.setAttribute("data-page-read-ms", String(Math.round(performance.now())));
  });
})();
