// SPDX-License-Identifier: GPL-2.0-or-later
// page.js - the flame graph page of `stacktop --format html` (doc/formats.md):
// the page itself. It reads the profile (decode.js), holds the page's
// state (the view, the zoom, the cursor, the search) and is the one module
// that changes it: the DOM's events, the keyboard, the URL fragment
// (fragment.js), the test hook. The trees (tree.js, model.js, diff.js), the
// layout of a zoom (zoom.js), the words (text.js), the colours, the
// painting (draw.js) and the panels are the other modules', given what
// they read.
//
// The writer (src/output/html.c) embeds the profile once, as JSON or
// columns in #stacktop-data: deduplicated frame names and the call tree,
// merged and ordered by the writer (children alphabetical; left-heavy on
// demand), in preorder. The page reads nothing else and requests nothing
// (its Content-Security-Policy forbids it anyway). Every string of the
// profile reaches the page through textContent or the canvas, never as
// markup. embed.py bundles the modules into the page's one script.
// @ts-check
'use strict';

const { shape, layout, totals, label, nameLabel, hasTracing } = require('./tree.js');
const { readDoc, checkProfile, profileOf, checkNames, readNodes, NO_SPLITS, splitsFrom } =
	require('./decode.js');
const { readBefore, diffOn } = require('./diff.js');
const { matchNames, filtering, functions, derive } = require('./model.js');
const { ROW, hidden, frameAt, inZoom, isAncestorOfZoom, visibleKids, matchedUnder } = require('./zoom.js');
const { colours } = require('./colour.js');
const { num, pct, amount, describe, header } = require('./text.js');
const { painter, paintCallers } = require('./draw.js');
const { toFragment, fromFragment } = require('./fragment.js');
const panels = require('./panels.js');
const { listen } = require('./events.js');
const { probe } = require('./probe.js');

/** @param {string} id */
const $ = (id) => /** @type {any} */ (document.getElementById(id));

async function main() {
	const canvas = $('flame'), ctx = canvas.getContext('2d', { alpha: false }), tip = $('tip');
	let data;
	try {
		data = await readDoc('stacktop-data', $);
		checkProfile(data);
	} catch (e) {
		$('notes').textContent = 'cannot read the profile in this file: ' + e.message;
		return;
	}
	const P = profileOf(data), meta = P.meta, weighted = P.weighted;
	let base;
	try {
		checkNames(P.names);
		base = shape(readNodes(data, data.cols, '', data.stride, P.NN), P);
	} catch (e) {
		$('notes').textContent = 'the profile in this file is damaged (' + e.message + ')';
		return;
	}
	const { before, damaged: beforeDamaged } = readBefore(data, P);
	const col = colours(P, (css) => {
		ctx.fillStyle = '#000';
		ctx.fillStyle = css;
		return String(ctx.fillStyle);
	});
	const paint = painter(canvas, ctx, P, col);

	// the page's state: changed here only
	const S = {
		byWeight: weighted && !!(meta.weight && meta.weight.ranked),
		showTracing: false,
		inverted: false,       // drawn root at the bottom (flip)
		// left-heavy (speedscope's): each frame's callees heaviest first, not
		// alphabetical; kept in the URL fragment, so a shared link opens on it
		leftHeavy: false,
		/** @type {import('./model.js').View} the view, all in the URL fragment */
		view: { mode: 'flame', leafRooted: false, transforms: [], fn: -1, event: -1, proc: '', cpu: -1 },
		t: base,               // the tree on show
		flat: null,            // the graph the views start from: filters, transforms
		fns: null,             // functions(flat)
		callers: null,         // the sandwich's callers (inverted), or null
		zoom: 0,
		cursor: -1,            // the keyboard's frame
		hover: -1,
		keyboard: false,       // the cursor is outlined while the keyboard drives
		/** @type {Uint8Array|null} the names the search matches */
		matchName: null,
		/** @type {import('./draw.js').Drawn} what the last draw painted */
		drawn: { node: [], x: [], w: [], y: [], maxDepth: 0, cssW: 0, charW: 7 },
		/** @type {import('./draw.js').CallerDrawn[]} */
		cdrawn: [],
		/** @type {import('./decode.js').Splits|null} the records, once read */
		splits: null,
		/** @type {Promise<void>|null} */
		splitsRead: null,
		sortKey: 'total',
		sortDesc: true,
		/** @type {import('./panels.js').FnRow[]} */
		tableRows: [],
	};
	const baseTracing = hasTracing(base);
	const tot = () => totals(S.t, S.byWeight);
	const shownBefore = () => (diffOn(before, S.view, filtering(S.view)) ? before : null);
	const matcher = (t) => {
		const m = S.matchName;
		return (i) => m !== null && i > 0 && m[t.nameOf[i]] === 1;
	};
	const lay = () => layout(S.t, S.byWeight, S.leftHeavy);

	// ---- the records: parsed at the first filter, not at open ----------------------
	function splitsFailed(e) {
		S.splits = NO_SPLITS;
		$('notes').textContent = 'cannot read the records in this file: ' + e.message;
	}
	function loadSplits() {
		if (S.splitsRead)
			return S.splitsRead;
		if (document.readyState === 'loading') {
			/* they come after this script: read once the page is parsed */
			S.splitsRead = new Promise((done) =>
				document.addEventListener('DOMContentLoaded', done, { once: true }))
				.then(() => {
					S.splitsRead = null;
					return loadSplits();
				});
			return S.splitsRead;
		}
		if ($('stacktop-splits-cols') || $('stacktop-splits-gzip')) {
			S.splitsRead = readDoc('stacktop-splits', $).then((d) => {
				S.splits = splitsFrom(d, weighted);
			}).catch(splitsFailed);
			return S.splitsRead;
		}
		try { /* plain JSON: at once */
			const el = $('stacktop-splits');
			S.splits = splitsFrom(el ? JSON.parse(el.textContent) : null, weighted);
		} catch (e) {
			splitsFailed(e);
		}
		return (S.splitsRead = Promise.resolve());
	}

	// the tree on show from the view
	function rederive() {
		const d = derive(P, base, baseTracing, S.view, S.showTracing, S.splits || NO_SPLITS);
		S.flat = d.flat;
		S.fns = null;
		S.callers = d.callers;
		S.t = d.tree;
		S.zoom = 0;
		S.cursor = -1;
		S.hover = -1;
		lay();
	}

	// ---- drawing, and text about a frame ---------------------------------------------
	function draw() {
		S.drawn = paint.paint({ t: S.t, tot: tot(), zoom: S.zoom, showTracing: S.showTracing,
			inverted: S.inverted, isMatch: matcher(S.t), before: shownBefore(), cursor: S.cursor,
			keyboard: S.keyboard });
	}
	function pointAt(ev) {
		const r = canvas.getBoundingClientRect();
		return frameAt(S.t, tot(), S.zoom, S.showTracing,
			{ maxDepth: S.drawn.maxDepth, cssW: S.drawn.cssW, inverted: S.inverted },
			ev.clientX - r.left, ev.clientY - r.top);
	}
	const about = (i, t = S.t, zoom = S.zoom) => describe(P, t, i,
		{ zoom, showTracing: S.showTracing, before: t === S.t ? shownBefore() : null });
	function showTip(i, cx, cy, t = S.t, zoom = S.zoom) {
		if (i < 0) {
			tip.hidden = true;
			return;
		}
		tip.textContent = '';
		const b = document.createElement('b');
		b.textContent = label(P, t, i);
		tip.appendChild(b);
		tip.appendChild(document.createTextNode('\n' + about(i, t, zoom).join('\n')));
		tip.hidden = false;
		const r = tip.getBoundingClientRect();
		let x = cx + 14, y = cy + 16;
		if (x + r.width > window.innerWidth - 4)
			x = Math.max(4, cx - r.width - 14);
		if (y + r.height > window.innerHeight - 4)
			y = Math.max(4, cy - r.height - 12);
		tip.style.left = x + 'px';
		tip.style.top = y + 'px';
	}
	function status(i) {
		$('status').textContent = i < 0 ? '' : label(P, S.t, i) + ' - ' + about(i).join('; ');
	}

	// ---- search: the matches' summed share (a match nested in another counts once) ---
	function runSearch() {
		const q = $('search').value, out = $('matched');
		try {
			S.matchName = matchNames(P.names, q, $('regex').checked, $('case').checked);
		} catch (e) {
			S.matchName = null;
			out.textContent = e.message;
			return;
		}
		if (!S.matchName) {
			out.textContent = '';
			return;
		}
		const t = S.t, tt = tot(), isMatch = matcher(t), zoom = S.zoom;
		const all = matchedUnder(t, tt, S.showTracing, isMatch, 0);
		let txt = 'matched: ' + pct(all.sum, tt[0]) + ' of all (' +
			(S.byWeight ? amount(meta, all.sum) : num(all.sum) + ' hits') + ')';
		if (zoom !== 0) {
			let under = false;
			for (let a = zoom; a > 0; a = t.parent[a])
				if (isMatch(a))
					under = true;
			const inz = under ? tt[zoom] : matchedUnder(t, tt, S.showTracing, isMatch, zoom).sum;
			txt += ', ' + pct(inz, tt[zoom]) + ' of ' + label(P, t, zoom);
		}
		out.textContent = all.frames ? txt : 'no match';
	}

	// ---- actions ------------------------------------------------------------------
	function setZoom(i) {
		S.zoom = i < 0 ? 0 : i;
		$('reset').disabled = S.zoom === 0;
		if (S.cursor >= 0 && !inZoom(S.t, S.zoom, S.cursor) && !isAncestorOfZoom(S.t, S.zoom, S.cursor))
			S.cursor = S.zoom;
		runSearch();
		draw();
		updateFocusMerge();
	}
	function refresh() {
		runSearch();
		if (S.view.mode === 'sandwich') {
			tableDraw();
			callersDraw();
		}
		draw();
		if (S.cursor >= 0)
			status(S.cursor);
	}
	// the reset starts over: whole graph, no cursor (the next arrow starts at the root)
	function reset() {
		S.cursor = -1;
		setZoom(0);
		status(-1);
		showTip(-1);
	}
	function rebuild() {
		showTip(-1);
		status(-1);
		rederive();
		$('reset').disabled = true;
		saveHash();
		updateButtons();
		sandwichDraw();
		refresh();
	}
	// the function of the selected frame (the keyboard's or the last clicked)
	function selectedName() {
		if (S.cursor > 0)
			return S.t.nameOf[S.cursor];
		if (S.view.mode === 'sandwich' && S.view.fn >= 0)
			return S.view.fn;
		return S.zoom > 0 ? S.t.nameOf[S.zoom] : -1;
	}
	function addTransform(t) {
		const nm = selectedName();
		if (nm < 0)
			return;
		S.view.transforms.push({ t, name: nm });
		rebuild();
	}
	function undoTo(len) {
		S.view.transforms.length = Math.max(0, Math.min(len, S.view.transforms.length));
		rebuild();
	}
	// focus and merge act on the selected frame's function: enabled when
	// there is one (the keyboard's cursor, a zoom, the sandwich's choice)
	function updateFocusMerge() {
		$('focus').disabled = $('merge').disabled = selectedName() < 0;
	}
	function updateButtons() {
		updateFocusMerge();
		panels.putCrumbs($, P, S.view, S.flat && S.flat !== base ? S.flat.totH[0] : -1, base.totH[0],
			undoTo);
	}
	function saveHash() {
		const f = toFragment(P, S.view, S);
		history.replaceState(null, '', f ? '#' + f : location.pathname + location.search);
	}

	// ---- the sandwich: the function table, the callers above, the callees below -----
	const ccanvas = $('callers'), cctx = ccanvas.getContext('2d', { alpha: false });
	function tableDraw() {
		if (!S.fns)
			S.fns = functions(P, S.flat);
		S.tableRows = panels.tableRows(P, S.flat, S.fns, S.matchName, S.byWeight, S.sortKey, S.sortDesc);
		panels.putTable($, P, S.tableRows, { fn: S.view.fn, byWeight: S.byWeight, key: S.sortKey,
			desc: S.sortDesc, searched: S.matchName !== null });
	}
	function chooseFunction(nm) {
		S.view.fn = nm;
		rebuild();
		const row = $('fns').tBodies[0].querySelector('tr[data-name="' + nm + '"]');
		if (row)
			row.focus();
	}
	function callersDraw() {
		S.cdrawn = [];
		const c = S.callers;
		if (!c || c.N < 2) {
			ccanvas.hidden = true;
			return;
		}
		ccanvas.hidden = false;
		layout(c, S.byWeight, S.leftHeavy);
		S.cdrawn = paintCallers(ccanvas, cctx, Math.max(canvas.parentElement.clientWidth - 24, 100), P,
			col, { t: c, tot: totals(c, S.byWeight), isMatch: matcher(c), charW: S.drawn.charW });
	}
	function sandwichDraw() {
		const on = S.view.mode === 'sandwich';
		$('sandwich').hidden = !on;
		$('leafrooted').disabled = on;
		if (!on)
			return;
		tableDraw();
		panels.putSandwichTitles($, S.view.fn >= 0 ? nameLabel(P, S.view.fn) : '');
		callersDraw();
	}

	// ---- the keyboard's frame ----------------------------------------------------------
	function moveCursor(to) {
		if (to < 0)
			return;
		S.cursor = to;
		S.keyboard = true;
		draw();
		updateFocusMerge();
		status(S.cursor);
		// the tooltip next to the frame
		const d = S.drawn, k = d.node.lastIndexOf(S.cursor), r = canvas.getBoundingClientRect();
		if (k >= 0)
			showTip(S.cursor, r.left + d.x[k] + Math.min(d.w[k], 40), r.top + d.y[k]);
		else
			showTip(-1);
	}

	// what the page's controls do (events.js listens and calls these)
	let timer = 0;
	const act = {
		hover(ev) {
			if (S.keyboard) {
				S.keyboard = false;
				draw();
			}
			const i = pointAt(ev);
			if (i !== S.hover) {
				S.hover = i;
				status(i);
			}
			showTip(i, ev.clientX, ev.clientY);
		},
		leave() {
			S.hover = -1;
			showTip(-1);
		},
		hideTip() {
			showTip(-1);
		},
		click(ev) {
			const i = pointAt(ev);
			if (i < 0)
				return;
			S.cursor = i;
			setZoom(i);
			// the tooltip and status follow the zoom: the frame now under the pointer
			S.hover = pointAt(ev);
			status(S.hover);
			showTip(S.hover, ev.clientX, ev.clientY);
			updateButtons();
		},
		reset,
		refresh,
		searchTyped() {
			clearTimeout(timer);
			timer = setTimeout(refresh, 120);
		},
		tracing(on) {
			S.showTracing = on;
			if (S.t !== base) {
				rederive();
				sandwichDraw();
			}
			if (S.cursor >= 0 && hidden(S.t, S.showTracing, S.cursor))
				S.cursor = S.t.parent[S.cursor];
			saveHash();
			refresh();
		},
		invert(on) {
			S.inverted = on;
			draw();
		},
		heavy(on) {
			S.leftHeavy = on;
			saveHash();
			lay();
			sandwichDraw();
			refresh();
		},
		measure(on) {
			S.byWeight = weighted && !on;
			lay();
			refresh();
		},
		leafRooted(on) {
			S.view.leafRooted = on;
			rebuild();
		},
		mode(m) {
			S.view.mode = m === 'sandwich' ? 'sandwich' : 'flame';
			rebuild();
		},
		transform: addTransform,
		undo() {
			if (S.view.transforms.length)
				undoTo(S.view.transforms.length - 1);
		},
		filters(event, proc, cpu) {
			S.view.event = event;
			S.view.proc = proc;
			S.view.cpu = cpu;
			if (filtering(S.view) && S.splits === null && (loadSplits(), S.splits === null))
				S.splitsRead.then(rebuild); /* still being decompressed */
			else
				rebuild();
		},
		sort(key) {
			if (S.sortKey === key)
				S.sortDesc = !S.sortDesc;
			else {
				S.sortKey = key;
				S.sortDesc = key !== 'name' && key !== 'where';
			}
			tableDraw();
		},
		choose: chooseFunction,
		callersHover(x, y, cx, cy) {
			const f = S.cdrawn.find((d) => x >= d.x && x < d.x + d.w + 1 && y >= d.y && y < d.y + ROW);
			if (!f)
				showTip(-1);
			else
				showTip(f.node, cx, cy, S.callers, 0);
		},
		draw,
		// on the graph: arrows move a cursor frame, Enter zooms into it, Backspace zooms out
		key(ev) {
			const t = S.t, tt = tot(), c = S.cursor >= 0 ? S.cursor : S.zoom;
			const up = S.inverted ? 'ArrowDown' : 'ArrowUp', down = S.inverted ? 'ArrowUp' : 'ArrowDown';
			if (ev.key === up) {
				moveCursor(S.cursor < 0 ? S.zoom : t.parent[c] >= 0 ? t.parent[c] : c);
			} else if (ev.key === down) {
				let best = -1;
				for (const k of visibleKids(t, tt, S.showTracing, c))
					if (best < 0 || tt[k] > tt[best])
						best = k; // the heaviest callee
				moveCursor(S.cursor < 0 ? S.zoom : best >= 0 ? best : c);
			} else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
				if (c === 0 || S.cursor < 0 || !inZoom(t, S.zoom, c) || c === S.zoom) {
					moveCursor(c);
				} else {
					const sib = visibleKids(t, tt, S.showTracing, t.parent[c]);
					const at = sib.indexOf(c) + (ev.key === 'ArrowLeft' ? -1 : 1);
					moveCursor(at >= 0 && at < sib.length ? sib[at] : c);
				}
			} else if (ev.key === 'Enter' || ev.key === ' ') {
				if (S.cursor >= 0)
					setZoom(S.cursor);
			} else if (ev.key === 'Backspace') {
				setZoom(t.parent[S.zoom] >= 0 ? t.parent[S.zoom] : 0);
			} else {
				return false;
			}
			return true;
		},
	};
	listen($, canvas, ccanvas, act, () => ({ mode: S.view.mode, weighted }));

	// read-only view for tests and scripts: what the last draw painted
	window['stacktopFlame'] = probe({ P, S, before, col, tip, shownBefore, matcher, tot });

	panels.putHeader($, header(P, S.t, before, beforeDamaged), P, S.byWeight);
	panels.putLegend($, S.t, before !== null);
	panels.putFilters($, P);
	const f = fromFragment(P, location.hash.slice(1));
	if (f) {
		Object.assign(S.view, f.view);
		S.leftHeavy = f.leftHeavy;
		S.showTracing = f.showTracing;
	}
	panels.putControls($, S.view, S);
	if (filtering(S.view))
		await loadSplits();
	if (filtering(S.view) || S.view.transforms.length || S.view.mode !== 'flame' || S.view.leafRooted)
		rederive();
	else
		lay();
	updateButtons();
	sandwichDraw();
	if (S.matchName === null && $('search').value)
		runSearch();
	draw();
	requestAnimationFrame(() => {
		// open time as the browser measures it: navigation start to the first draw painted
		window['stacktopReady'] = performance.now();
		performance.mark('stacktop-ready');
		document.body.dataset.ready = '1';
		if (P.attrs.length) /* the records, read while nobody needs them yet */
			setTimeout(loadSplits, 0);
	});
}

main();
