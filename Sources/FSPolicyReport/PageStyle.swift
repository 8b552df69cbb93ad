/// The report page's style sheet: light, dark (`prefers-color-scheme`) and print.
enum PageStyle {
    static let text = #"""
        :root {
          --bg: #ffffff; --fg: #1b1f23; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa;
          --allow-bg: #dafbe1; --allow-fg: #0a5c26; --deny-bg: #ffe3e3; --deny-fg: #8c1414;
          --warn-bg: #fff4ce; --warn-fg: #6b4d00; --accent: #0b57d0; --sel: #dbe8ff; --decide: #fff1a8;
          color-scheme: light dark;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #0f1419; --fg: #e6edf3; --muted: #9ba7b4; --line: #30363d; --panel: #161b22;
            --allow-bg: #0f3d22; --allow-fg: #9be9a8; --deny-bg: #4a1518; --deny-fg: #ffb3b3;
            --warn-bg: #3d3000; --warn-fg: #f5d76e; --accent: #7cb1ff; --sel: #1f3a5f; --decide: #4d4000;
          }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
        header, nav, main, section.list, footer { padding: 0.5rem 1rem; }
        header { border-bottom: 1px solid var(--line); }
        h1 { font-size: 1.3rem; margin: 0.2rem 0; }
        h2 { font-size: 1.05rem; margin: 0.4rem 0; }
        h3 { font-size: 0.95rem; margin: 0.4rem 0; }
        pre, code, .ls, .who, .flags, .name, .src, td, .command { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
        pre { white-space: pre-wrap; word-break: break-all; background: var(--panel); border: 1px solid var(--line); padding: 0.5rem; margin: 0.3rem 0; }
        .summary { display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; margin: 0.3rem 0; padding: 0; list-style: none; }
        .summary li { white-space: nowrap; }
        nav { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; border-bottom: 1px solid var(--line); background: var(--panel); }
        nav label { display: inline-flex; gap: 0.3rem; align-items: center; }
        input, select, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 0.15rem 0.35rem; }
        input[type=search] { min-width: 18rem; }
        button.link { border: none; background: none; color: var(--accent); text-decoration: underline; padding: 0; cursor: pointer; font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; text-align: left; word-break: break-all; }
        :focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
        #results { padding: 0.3rem 1rem; border-bottom: 1px solid var(--line); max-height: 16rem; overflow: auto; }
        #results ul { margin: 0; padding-left: 1.2rem; }
        main { display: grid; grid-template-columns: minmax(18rem, 1fr) minmax(20rem, 1.3fr); gap: 1rem; align-items: start; }
        #tree-pane { max-height: 75vh; overflow: auto; border: 1px solid var(--line); padding: 0.3rem; }
        [role=tree], [role=group] { list-style: none; margin: 0; padding: 0; }
        [role=group] { padding-left: 1.1rem; }
        [role=treeitem] > .row { display: flex; gap: 0.5rem; align-items: baseline; padding: 0 0.2rem; cursor: pointer; white-space: nowrap; border-radius: 3px; }
        [role=treeitem][aria-selected=true] > .row { background: var(--sel); }
        [role=treeitem]:focus { outline: none; }
        [role=treeitem]:focus > .row { outline: 2px solid var(--accent); }
        .twisty { width: 0.8rem; display: inline-block; color: var(--muted); }
        .who, .flags, .src, .layer, .count { color: var(--muted); }
        .name { font-weight: 600; }
        li.more { padding-left: 1.3rem; }
        .badge { display: inline-block; border-radius: 3px; padding: 0 0.35rem; font-size: 12px; font-weight: 600; }
        .badge.ok { background: var(--allow-bg); color: var(--allow-fg); }
        .badge.bad { background: var(--deny-bg); color: var(--deny-fg); }
        .badge.warn { background: var(--warn-bg); color: var(--warn-fg); }
        #grid { border-collapse: collapse; margin: 0.5rem 0; }
        #grid caption { text-align: left; white-space: nowrap; color: var(--muted); padding-bottom: 0.2rem; }
        #grid th, #grid td { border: 1px solid var(--line); padding: 0.2rem 0.45rem; text-align: left; }
        #grid th.cmp, #grid td.cmp { border-left: 3px double var(--line); }
        #grid td { cursor: pointer; }
        #grid td .sym { font-weight: 700; }
        #grid td .layer { display: block; font-size: 11px; }
        #grid td.allow { background: var(--allow-bg); color: var(--allow-fg); }
        #grid td.deny { background: var(--deny-bg); color: var(--deny-fg); }
        #grid td.unknown { background: transparent; color: inherit; font-style: italic; }
        #grid td.open { outline: 3px solid var(--accent); outline-offset: -3px; }
        .answer.allow { color: var(--allow-fg); font-weight: 700; }
        .answer.deny { color: var(--deny-fg); font-weight: 700; }
        pre.trace { white-space: pre; word-break: normal; overflow-x: auto; }
        .trace .decide { background: var(--decide); font-weight: 700; }
        .finding { margin: 0.2rem 0; }
        ul.fails, ul.passes, ul.findings { list-style: none; padding: 0; }
        ul.fails > li, ul.findings > li { border-left: 4px solid var(--deny-fg); padding: 0.2rem 0.6rem; margin: 0.5rem 0; }
        ul.findings > li.sev-warning, ul.findings > li.sev-note { border-left-color: var(--warn-fg); }
        ul.passes > li { padding: 0.1rem 0; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 0.8rem; margin: 0.3rem 0; }
        dt { color: var(--muted); }
        dd { margin: 0; }
        .fix { color: var(--muted); }
        .count.bad { color: var(--deny-fg); font-weight: 600; }
        .count.good { color: var(--allow-fg); font-weight: 600; }
        footer { color: var(--muted); border-top: 1px solid var(--line); font-size: 12px; }
        [hidden] { display: none !important; }
        @media (max-width: 800px) { main { grid-template-columns: 1fr; } }
        @media print {
          :root { --bg: #fff; --fg: #000; --muted: #333; --line: #999; --panel: #fff; --allow-bg: #fff; --deny-bg: #fff; --warn-bg: #fff; --allow-fg: #000; --deny-fg: #000; --warn-fg: #000; --decide: #fff; }
          nav, #results, main, .passes, noscript { display: none !important; }
          body { font-size: 10.5pt; }
          pre, pre.trace { border: none; padding: 0; font-size: 8.5pt; white-space: pre-wrap; overflow: visible; }
          .trace .decide { text-decoration: underline; }
          ul.fails > li, ul.findings > li { break-inside: avoid; }
          button.link { color: #000; text-decoration: none; }
        }
        """#
}
