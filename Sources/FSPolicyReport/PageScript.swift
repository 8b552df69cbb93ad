/// The report page's script. It only reads the data block and builds the page from it with
/// DOM calls (`textContent`, never markup from data); every decision and explanation it shows
/// was computed by fspolicy and is looked up, not recomputed.
enum PageScript {
    static let text = #"""
        (function () {
        "use strict";
        var D = JSON.parse(document.getElementById("data").textContent);
        var LINES = D.lines;
        var W = null, WI = 0, kids = null, pathCache = null, exIndex = null, lintByNode = null;
        var selected = -1, selCell = null, searchTimer = 0;
        var CHUNK = 500, RESULT_LIMIT = 200;

        function $(id) { return document.getElementById(id); }
        function el(tag, cls, text) {
          var e = document.createElement(tag);
          if (cls) e.className = cls;
          if (text !== undefined && text !== null) e.textContent = String(text);
          return e;
        }
        function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
        function hide(e, yes) { if (yes) e.setAttribute("hidden", ""); else e.removeAttribute("hidden"); }

        // ---- data access -------------------------------------------------------------------------

        function path(i) {
          if (pathCache[i] !== undefined) return pathCache[i];
          var chain = [], j = i;
          while (j > 0 && pathCache[j] === undefined) { chain.push(j); j = W.parent[j]; }
          var base = j === 0 ? "/" : pathCache[j];
          for (var k = chain.length - 1; k >= 0; k--) {
            var n = chain[k];
            base = (base === "/" ? "/" : base + "/") + W.name[n];
            pathCache[n] = base;
          }
          return pathCache[i];
        }
        var DIG = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        function verdict(i, s, u, k) {
          var row = W.rowTab[W.rows[s][i]], w = W.width, pos = (W.classOf[s][u] * W.ops.length + k) * w, v = 0;
          for (var d = 0; d < w; d++) v = v * 62 + DIG.indexOf(row.charAt(pos + d));
          var t = W.verdicts[v];
          return { allowed: t[0] === 1, errno: t[1], layer: t[2], rule: t[3] };
        }
        function same(a, b) { return a.allowed === b.allowed && a.errno === b.errno; }
        function explanation(i, u, k, s) {
          if (!exIndex) {
            exIndex = new Map();
            for (var x = 0; x < W.explained.length; x++) {
              var e = W.explained[x];
              exIndex.set(e[0] + "," + e[1] + "," + e[2] + "," + e[3], e[4]);
            }
          }
          return exIndex.get(i + "," + u + "," + k + "," + s) || null;
        }
        function shellWord(s) {
          return /^[A-Za-z0-9_\/.,:=+@%-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
        }
        function explainCommand(i, u, k, s) {
          var c = D.tool + " explain " + shellWord(W.file) + " --as " + shellWord(W.users[u]) + " --op " + W.ops[k] + " " + shellWord(path(i));
          if (W.semantics[s] !== W.fileSemantics) c += " --semantics " + W.semantics[s];
          return c;
        }
        function unknownV(v) { return !v.allowed && v.rule === "traversal.not-read"; }
        function word(v) { return v.allowed ? "allow" : unknownV(v) ? "unknown" : "deny"; }
        function symbol(v) { return v.allowed ? "\u2713 allow" : unknownV(v) ? "? unknown" : "\u2717 " + (v.errno || "deny"); }

        // ---- the tree (WAI-ARIA tree pattern, children built on first expand) --------------------

        function treeItem(i, level, pos, size) {
          var li = el("li");
          li.setAttribute("role", "treeitem");
          li.setAttribute("aria-level", String(level));
          li.setAttribute("aria-posinset", String(pos));
          li.setAttribute("aria-setsize", String(size));
          li.setAttribute("aria-selected", i === selected ? "true" : "false");
          li.id = "node-" + i;
          li.tabIndex = -1;
          li.dataset.i = String(i);
          var row = el("div", "row");
          var tw = el("span", "twisty", kids[i] ? "\u25B8" : "\u00A0");
          tw.setAttribute("aria-hidden", "true");
          row.appendChild(tw);
          row.appendChild(el("span", "ls", W.lsTab[W.ls[i]]));
          row.appendChild(el("span", "who", W.ugTab[W.own[i]] + " " + W.ugTab[W.grp[i]]));
          if (W.flg[i] > 0) row.appendChild(el("span", "flags", W.flgTab[W.flg[i]]));
          row.appendChild(el("span", "name", i === 0 ? "/" : W.name[i]));
          var lf = lintByNode.get(i);
          if (lf) row.appendChild(el("span", "badge warn", "\u26A0 " + lf.length + (lf.length === 1 ? " finding" : " findings")));
          li.appendChild(row);
          if (kids[i]) li.setAttribute("aria-expanded", "false");
          return li;
        }
        function group(li) {
          for (var c = li.firstChild; c; c = c.nextSibling) if (c.tagName === "UL") return c;
          return null;
        }
        function renderChildren(li, upTo) {
          var i = +li.dataset.i, list = kids[i], ul = group(li);
          if (!ul) { ul = el("ul"); ul.setAttribute("role", "group"); li.appendChild(ul); }
          var more = ul.lastChild && ul.lastChild.classList.contains("more") ? ul.lastChild : null;
          if (more) ul.removeChild(more);
          var have = ul.children.length, level = +li.getAttribute("aria-level") + 1;
          var end = Math.min(list.length, Math.max(have + CHUNK, upTo === undefined ? 0 : upTo + 1));
          var frag = document.createDocumentFragment();
          for (var k = have; k < end; k++) frag.appendChild(treeItem(list[k], level, k + 1, list.length));
          ul.appendChild(frag);
          if (end < list.length) {
            var m = el("li", "more");
            m.setAttribute("role", "none");
            var b = el("button", null, "show " + Math.min(CHUNK, list.length - end) + " more of " + list.length);
            b.addEventListener("click", function () { renderChildren(li); });
            m.appendChild(b);
            ul.appendChild(m);
          }
        }
        function expand(li, yes) {
          var i = +li.dataset.i;
          if (!kids[i]) return;
          if (yes && !group(li)) renderChildren(li);
          li.setAttribute("aria-expanded", yes ? "true" : "false");
          li.querySelector(".twisty").textContent = yes ? "\u25BE" : "\u25B8";
        }
        function isOpen(li) { return li.getAttribute("aria-expanded") === "true"; }
        function items(ul) { var r = []; for (var c = ul.firstChild; c; c = c.nextSibling) if (c.getAttribute("role") === "treeitem") r.push(c); return r; }
        function parentItem(li) { var ul = li.parentNode; return ul && ul.getAttribute("role") === "group" ? ul.parentNode : null; }
        function nextVisible(li) {
          if (isOpen(li)) { var g = items(group(li)); if (g.length) return g[0]; }
          for (var x = li; x; x = parentItem(x)) {
            for (var s = x.nextSibling; s; s = s.nextSibling) if (s.getAttribute("role") === "treeitem") return s;
          }
          return null;
        }
        function lastVisible(li) {
          while (isOpen(li)) { var g = items(group(li)); if (!g.length) break; li = g[g.length - 1]; }
          return li;
        }
        function prevVisible(li) {
          for (var s = li.previousSibling; s; s = s.previousSibling) if (s.getAttribute("role") === "treeitem") return lastVisible(s);
          return parentItem(li);
        }
        function focusItem(li) {
          var old = $("tree").querySelector('[tabindex="0"]');
          if (old) old.tabIndex = -1;
          li.tabIndex = 0;
          li.focus();
        }
        function treeKey(ev) {
          var li = ev.target.closest('[role="treeitem"]');
          if (!li) return;
          var i = +li.dataset.i, t = null;
          switch (ev.key) {
            case "ArrowDown": t = nextVisible(li); break;
            case "ArrowUp": t = prevVisible(li); break;
            case "ArrowRight":
              if (kids[i] && !isOpen(li)) expand(li, true);
              else if (isOpen(li)) t = items(group(li))[0] || null;
              break;
            case "ArrowLeft":
              if (isOpen(li)) expand(li, false); else t = parentItem(li);
              break;
            case "Home": t = $("tree").firstChild; break;
            case "End": t = lastVisible($("tree").firstChild); break;
            case "Enter": case " ": select(i); break;
            case "*": var sib = li.parentNode ? items(li.parentNode) : []; sib.forEach(function (s) { expand(s, true); }); break;
            default: return;
          }
          ev.preventDefault();
          if (t) { focusItem(t); select(+t.dataset.i); }
        }
        function treeClick(ev) {
          var li = ev.target.closest('[role="treeitem"]');
          if (!li || ev.target.closest("button")) return;
          var i = +li.dataset.i;
          if (ev.target.classList.contains("twisty") || i === selected) expand(li, !isOpen(li));
          focusItem(li);
          select(i);
        }
        function reveal(i) {
          var chain = [];
          for (var j = i; j > 0; j = W.parent[j]) chain.push(j);
          var li = $("node-0");
          for (var k = chain.length - 1; k >= 0; k--) {
            var n = chain[k], p = W.parent[n];
            var pli = $("node-" + p);
            var pos = kids[p].indexOf(n);
            if (!group(pli) || group(pli).children.length <= pos) renderChildren(pli, pos);
            expand(pli, true);
            li = $("node-" + n);
          }
          focusItem(li);
          select(i);
          li.scrollIntoView({ block: "nearest" });
        }

        // ---- the selected node and its grid -------------------------------------------------------

        function select(i) {
          if (selected >= 0) { var o = $("node-" + selected); if (o) o.setAttribute("aria-selected", "false"); }
          selected = i;
          var li = $("node-" + i);
          if (li) li.setAttribute("aria-selected", "true");
          renderNode(i);
        }
        function renderNode(i) {
          $("node-title").textContent = path(i);
          var info = $("node-info");
          clear(info);
          var pre = el("pre", "ls-le");
          var line = W.lsTab[W.ls[i]] + " " + W.ugTab[W.own[i]] + "  " + W.ugTab[W.grp[i]] + "  " + (W.flg[i] > 0 ? W.flgTab[W.flg[i]] + "  " : "") + path(i);
          for (var x = 0; x < W.links.length; x++) if (W.links[x][0] === i) line += " -> " + W.links[x][1];
          pre.appendChild(document.createTextNode(line));
          if (W.acl[i] >= 0) W.aclTab[W.acl[i]].forEach(function (a) { pre.appendChild(document.createTextNode("\n  " + a)); });
          info.appendChild(pre);
          var src = el("p", "src", W.srcFile[i] >= 0 ? "Declared at " + W.srcTab[W.srcFile[i]] + ":" + W.srcLine[i] + ":" + W.srcColumn[i] : "Not declared in the file (implied, imported or scanned).");
          info.appendChild(src);
          var lf = lintByNode.get(i);
          if (lf) lf.forEach(function (f) { info.appendChild(el("p", "finding sev-" + f.severity, f.severity + " " + f.code + " " + f.name + ": " + f.message)); });
          renderGrid(i);
        }
        function renderGrid(i) {
          var table = $("grid");
          clear(table);
          var ops = W.ops, nsem = W.semantics.length;
          // The node's ops: by its type when the report was not given any.
          var shown = W.lsTab[W.ls[i]].charAt(0) === "d" ? W.opsDir : W.opsFile;
          // Compare columns: (op, rule set) where some user's answer differs from the first rule set.
          var cols = [];
          for (var j = 0; j < shown.length; j++) {
            var k = shown[j];
            cols.push([k, 0]);
            for (var s = 1; s < nsem; s++) {
              var differs = false;
              for (var u = 0; u < W.users.length && !differs; u++) differs = !same(verdict(i, 0, u, k), verdict(i, s, u, k));
              if (differs) cols.push([k, s]);
            }
          }
          var cap = el("caption", null, "Who may do what to " + path(i) + " (" + W.semantics[0] + (nsem > 1 ? "; columns for " + W.semantics.slice(1).join(", ") + " where they differ" : "") + ")");
          table.appendChild(cap);
          var thead = el("thead"), hr = el("tr");
          hr.appendChild(el("th", null, "user"));
          cols.forEach(function (c) {
            var th = el("th", c[1] ? "cmp" : null, ops[c[0]] + (c[1] ? " \u00B7 " + W.semantics[c[1]] : ""));
            th.setAttribute("scope", "col");
            hr.appendChild(th);
          });
          thead.appendChild(hr);
          table.appendChild(thead);
          var tb = el("tbody");
          W.users.forEach(function (name, u) {
            var tr = el("tr");
            var th = el("th", null, name);
            th.setAttribute("scope", "row");
            tr.appendChild(th);
            cols.forEach(function (c) {
              var v = verdict(i, c[1], u, c[0]);
              var td = el("td", word(v) + (c[1] ? " cmp" : ""));
              td.setAttribute("role", "gridcell");
              td.tabIndex = -1;
              td.dataset.u = String(u); td.dataset.k = String(c[0]); td.dataset.s = String(c[1]);
              td.appendChild(el("span", "sym", symbol(v)));
              td.appendChild(el("span", "layer", v.layer));
              td.title = (v.allowed || unknownV(v) ? word(v) : "deny " + v.errno) + " \u2014 layer " + v.layer + ", rule " + v.rule;
              tr.appendChild(td);
            });
            tb.appendChild(tr);
          });
          table.appendChild(tb);
          // Each column's allowed users as a set, as `who`, `diff` and `matrix` write one.
          var tf = el("tfoot"), fr = el("tr"), fh = el("th", null, "allowed");
          fh.setAttribute("scope", "row");
          fr.appendChild(fh);
          cols.forEach(function (c) {
            var yes = W.users.filter(function (name, u) { return verdict(i, c[1], u, c[0]).allowed; });
            fr.appendChild(el("th", "sets", setWords(yes, W.users)));
          });
          tf.appendChild(fr);
          table.appendChild(tf);
          var first = tb.querySelector("td");
          if (first) first.tabIndex = 0;
          clear($("explain"));
        }
        // `everyone` when every user is in the set (of at least three); `everyone except A, B`
        // when at most three of six or more (at most a quarter) are not; else the names. The
        // phrase is about the users alone: the services allowed follow it after a semicolon
        // (SubjectSetText.text(allowed:ofUsersAndServices:)).
        function setWords(yes, all) {
          function svc(n) { return n.indexOf("service:") === 0; }
          var users = all.filter(function (n) { return !svc(n); });
          if (users.length >= 3) {
            var out = users.filter(function (n) { return yes.indexOf(n) < 0; });
            var phrase = null;
            if (out.length === 0) phrase = "everyone";
            else if (users.length >= 6 && out.length <= 3 && out.length * 4 <= users.length) phrase = "everyone except " + out.join(", ");
            var services = yes.filter(svc);
            if (phrase !== null) return services.length ? phrase + "; " + services.join(", ") : phrase;
          }
          return yes.length ? yes.join(", ") : "no one";
        }
        function gridKey(ev) {
          var td = ev.target.closest("td");
          if (!td) return;
          var tr = td.parentNode, idx = Array.prototype.indexOf.call(tr.children, td), t = null;
          switch (ev.key) {
            case "ArrowRight": t = td.nextElementSibling; break;
            case "ArrowLeft": t = td.previousElementSibling; if (t && t.tagName !== "TD") t = null; break;
            case "ArrowDown": t = tr.nextElementSibling ? tr.nextElementSibling.children[idx] : null; break;
            case "ArrowUp": t = tr.previousElementSibling ? tr.previousElementSibling.children[idx] : null; break;
            case "Home": t = tr.children[1]; break;
            case "End": t = tr.lastElementChild; break;
            case "Enter": case " ": openCell(td); break;
            default: return;
          }
          ev.preventDefault();
          if (t && t.tagName === "TD") { td.tabIndex = -1; t.tabIndex = 0; t.focus(); }
        }
        function gridClick(ev) {
          var td = ev.target.closest("td");
          if (!td) return;
          var old = $("grid").querySelector('td[tabindex="0"]');
          if (old) old.tabIndex = -1;
          td.tabIndex = 0;
          td.focus();
          openCell(td);
        }
        function traceBlock(lines) {
          var pre = el("pre", "trace");
          lines.forEach(function (n, x) {
            var t = LINES[n];
            var span = el("span", t.charAt(0) === "\u2192" ? "step decide" : "step", t);
            if (t.charAt(0) === "\u2192") span.setAttribute("aria-label", "deciding step: " + t.slice(1));
            pre.appendChild(span);
            if (x < lines.length - 1) pre.appendChild(document.createTextNode("\n"));
          });
          return pre;
        }
        function openCell(td) {
          var u = +td.dataset.u, k = +td.dataset.k, s = +td.dataset.s, i = selected;
          var prev = $("grid").querySelector("td.open");
          if (prev) prev.classList.remove("open");
          td.classList.add("open");
          var v = verdict(i, s, u, k), box = $("explain");
          clear(box);
          box.appendChild(el("h3", null, "Can " + W.users[u] + " " + W.ops[k] + " " + path(i) + "? [" + W.semantics[s] + "]"));
          box.appendChild(el("p", "answer " + word(v), symbol(v) + " \u2014 decided by the " + v.layer + " layer, rule " + v.rule));
          var lines = explanation(i, u, k, s);
          if (lines) {
            box.appendChild(traceBlock(lines));
          } else {
            box.appendChild(el("p", null, "The full trace of this cell is not embedded in this page (only the first " + W.explainedNodes + " nodes' are: those with findings or failed expectations, then the top of the tree). This command prints it:"));
            box.appendChild(el("pre", "command", explainCommand(i, u, k, s)));
          }
        }

        // ---- search and the "what can this user do" filter ----------------------------------------

        function runSearch() {
          var q = $("search").value.trim(), fu = +$("f-user").value, fk = +$("f-op").value;
          var box = $("results");
          clear(box);
          if (!q && fu < 0) { hide(box, true); return; }
          var ql = q.toLowerCase(), found = [], total = 0;
          for (var i = 0; i < W.count; i++) {
            if (fu >= 0 && !verdict(i, 0, fu, fk).allowed) continue;
            if (q && path(i).toLowerCase().indexOf(ql) < 0 && W.ugTab[W.own[i]] !== q && W.ugTab[W.grp[i]] !== q) continue;
            total++;
            if (found.length < RESULT_LIMIT) found.push(i);
          }
          var what = [];
          if (q) what.push("matching \u201C" + q + "\u201D (path, owner or group)");
          if (fu >= 0) what.push("that " + W.users[fu] + " can " + W.ops[fk] + " [" + W.semantics[0] + "]");
          box.appendChild(el("p", "count", total + (total === 1 ? " node " : " nodes ") + what.join(" and ") + (total > found.length ? "; the first " + found.length + " are listed" : "")));
          var ul = el("ul");
          found.forEach(function (i) {
            var li = el("li"), b = el("button", "link", path(i));
            b.dataset.i = String(i);
            b.addEventListener("click", function () { reveal(i); });
            li.appendChild(b);
            li.appendChild(el("span", "ls", " " + W.lsTab[W.ls[i]] + " " + W.ugTab[W.own[i]] + " " + W.ugTab[W.grp[i]]));
            ul.appendChild(li);
          });
          box.appendChild(ul);
          hide(box, false);
        }

        // ---- check and lint -----------------------------------------------------------------------

        function nodeLink(i, text) {
          if (i < 0) return el("span", "path", text);
          var b = el("button", "link", text);
          b.addEventListener("click", function () { reveal(i); $("node-pane").scrollIntoView({ block: "start" }); });
          return b;
        }
        function renderExpect() {
          var box = $("expect-list"), E = W.expect;
          clear(box);
          box.appendChild(el("p", "count " + (E.failed ? "bad" : "good"), E.count + (E.count === 1 ? " expectation, " : " expectations, ") + E.passed + " passed, " + E.failed + " failed"));
          var fails = el("ul", "fails"), passes = el("ul", "passes");
          E.items.forEach(function (x) {
            var li = el("li", x.ok ? "pass" : "fail");
            li.appendChild(el("span", "badge " + (x.ok ? "ok" : "bad"), x.ok ? "\u2713 pass" : "\u2717 FAIL"));
            li.appendChild(el("span", "label", " " + x.label + " "));
            li.appendChild(el("span", "src", x.src + " "));
            if (x.node >= 0) li.appendChild(nodeLink(x.node, x.path));
            if (!x.ok) {
              var dl = el("dl");
              dl.appendChild(el("dt", null, "expected")); dl.appendChild(el("dd", null, x.expected));
              if (x.actual) { dl.appendChild(el("dt", null, "actual")); dl.appendChild(el("dd", null, x.actual)); }
              (x.mismatches || []).forEach(function (m) { dl.appendChild(el("dt", null, "mismatch")); dl.appendChild(el("dd", null, m)); });
              if (x.cxCount !== undefined) { dl.appendChild(el("dt", null, "counterexamples")); dl.appendChild(el("dd", null, x.cxCount + " of " + x.pairs + " pairs fail" + (x.cx.length < x.cxCount ? "; the first " + x.cx.length + " are shown" : ""))); }
              li.appendChild(dl);
              if (x.trace) { var d = el("details"); d.open = true; d.appendChild(el("summary", null, "Explanation")); d.appendChild(traceBlock(x.trace)); li.appendChild(d); }
              if (x.cx) {
                var cu = el("ul", "cx");
                x.cx.forEach(function (c) {
                  var ci = el("li");
                  ci.appendChild(el("span", null, c.user + " on "));
                  ci.appendChild(nodeLink(c.node, c.path));
                  ci.appendChild(el("span", null, ": " + c.mismatch + " \u2014 " + c.actual));
                  var cd = el("details"); cd.appendChild(el("summary", null, "Explanation")); cd.appendChild(traceBlock(c.trace)); ci.appendChild(cd);
                  cu.appendChild(ci);
                });
                li.appendChild(cu);
              }
              fails.appendChild(li);
            } else passes.appendChild(li);
          });
          if (fails.children.length) box.appendChild(fails);
          if (passes.children.length) {
            var d = el("details", "passes");
            d.appendChild(el("summary", null, E.passed + " passed"));
            d.appendChild(passes);
            box.appendChild(d);
          }
        }
        function renderLint() {
          var box = $("lint-list");
          clear(box);
          if (!W.lint.length) { box.appendChild(el("p", "count good", "no findings")); return; }
          box.appendChild(el("p", "count bad", W.lint.length + (W.lint.length === 1 ? " finding" : " findings")));
          var ul = el("ul", "findings");
          W.lint.forEach(function (f) {
            var li = el("li", "sev-" + f.severity);
            li.appendChild(el("span", "badge " + (f.severity === "error" ? "bad" : "warn"), f.severity));
            li.appendChild(el("span", "code", " " + f.code + " " + f.name + " "));
            li.appendChild(nodeLink(f.node, f.path));
            if (f.src) li.appendChild(el("span", "src", " " + f.src));
            li.appendChild(el("p", null, f.message));
            li.appendChild(el("p", "fix", "fix: " + f.fix));
            ul.appendChild(li);
          });
          box.appendChild(ul);
        }

        // ---- set-up -------------------------------------------------------------------------------

        function option(sel, value, text) { var o = el("option", null, text); o.value = String(value); sel.appendChild(o); }
        function setWorld(w) {
          W = D.worlds[w]; WI = w;
          pathCache = new Array(W.count); pathCache[0] = "/";
          exIndex = null; selected = -1;
          kids = new Array(W.count);
          for (var i = 1; i < W.count; i++) { var p = W.parent[i]; (kids[p] || (kids[p] = [])).push(i); }
          lintByNode = new Map();
          W.lint.forEach(function (f) { if (f.node >= 0) { var a = lintByNode.get(f.node) || []; a.push(f); lintByNode.set(f.node, a); } });
          var fu = $("f-user"), fo = $("f-op");
          clear(fu); clear(fo);
          option(fu, -1, "(anyone: no filter)");
          W.users.forEach(function (u, k) { option(fu, k, u); });
          W.ops.forEach(function (o, k) { option(fo, k, o); });
          var wk = W.ops.indexOf("write");
          fo.value = String(wk >= 0 ? wk : 0);
          var tree = $("tree");
          clear(tree);
          var root = treeItem(0, 1, 1, 1);
          root.tabIndex = 0;
          tree.appendChild(root);
          expand(root, true);
          select(0);
          renderExpect();
          renderLint();
          runSearch();
        }
        function start() {
          var ws = $("world");
          D.worlds.forEach(function (w, k) { option(ws, k, w.file); });
          hide($("world-field"), D.worlds.length < 2);
          ws.addEventListener("change", function () { setWorld(+ws.value); });
          $("tree").addEventListener("keydown", treeKey);
          $("tree").addEventListener("click", treeClick);
          $("grid").addEventListener("keydown", gridKey);
          $("grid").addEventListener("click", gridClick);
          $("search").addEventListener("input", function () { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 150); });
          $("f-user").addEventListener("change", runSearch);
          $("f-op").addEventListener("change", runSearch);
          // On paper every failure shows its explanations, counterexamples' included.
          window.addEventListener("beforeprint", function () {
            document.querySelectorAll("#expect-list .fails details").forEach(function (d) { d.open = true; });
          });
          hide($("app"), false);
          setWorld(0);
          document.body.dataset.ready = "true";
        }
        start();
        })();
        """#
}
